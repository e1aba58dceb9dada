package io.tapline.plugin.install;

import io.tapline.common.error.Problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A Meltano {@code pip_url}: one or more requirement specifiers separated by spaces
 * ({@code tap-x==1.2}, {@code git+https://...}, {@code -e path}, a local directory or a wheel),
 * split as Meltano splits it (POSIX shell words: spaces separate, single and double quotes group,
 * a backslash escapes) but never run through a shell. It is data: apart from {@code -e}, nothing
 * that pip would read as an option is accepted ({@code --index-url}, {@code -r},
 * {@code --trusted-host}, {@code -c}, ...), not even inside quotes; the index, proxy and other pip
 * options are service settings ({@code tapline.plugins.pip-args}, {@code PIP_INDEX_URL}).
 *
 * @param words the words pip receives after {@code pip install}, in order
 */
public record PipUrl(List<String> words) {

    /** Longest accepted pip_url, in characters. */
    public static final int MAX_LENGTH = 4096;
    /** Most requirement words in one pip_url. */
    public static final int MAX_WORDS = 100;
    /** Meltano's {@code python}: a command name on PATH or an absolute path. */
    private static final Pattern PYTHON = Pattern.compile("[A-Za-z0-9._+-]{1,255}|/[^\\x00-\\x1f]{1,4095}");

    /**
     * Parses and checks a pip_url.
     *
     * @param text the pip_url as written
     * @return the words, or the reason it is refused (one sentence, naming the offending word)
     */
    public static Result parse(String text) {
        if (text == null || text.isBlank()) {
            return Result.error("is empty; give one or more requirement specifiers such as tap-x==1.2");
        }
        if (text.length() > MAX_LENGTH) {
            return Result.error("must be at most " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return Result.error("must not contain control characters");
            }
        }
        List<String> words;
        try {
            words = split(text);
        } catch (IllegalArgumentException e) {
            return Result.error(e.getMessage());
        }
        if (words.isEmpty()) {
            return Result.error("is empty; give one or more requirement specifiers such as tap-x==1.2");
        }
        if (words.size() > MAX_WORDS) {
            return Result.error("has more than " + MAX_WORDS + " words");
        }
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.isEmpty()) {
                return Result.error("has an empty word (\"\" or '')");
            }
            if (w.equals("-e")) {
                if (i + 1 >= words.size()) {
                    return Result.error("ends with -e; -e takes a path or VCS URL");
                }
                String target = words.get(i + 1);
                if (target.startsWith("-")) {
                    return Result.error("has '-e " + target + "': -e takes a path or VCS URL, not an option");
                }
                continue;
            }
            if (w.startsWith("-")) {
                return Result.error("passes the pip option '" + optionName(w) + "'; only requirement specifiers and"
                        + " -e are accepted (the index and other pip options are the service setting"
                        + " tapline.plugins.pip-args)");
            }
        }
        return new Result(new PipUrl(List.copyOf(words)), null);
    }

    /**
     * Checks Meltano's {@code python} field: the interpreter that builds the environment.
     *
     * @return the reason it is refused, or empty
     */
    public static Optional<String> checkPython(String python) {
        if (python == null) {
            return Optional.empty();
        }
        if (!PYTHON.matcher(python).matches() || python.contains("/../") || python.endsWith("/..")) {
            return Optional.of("must be an interpreter command name on PATH (such as python3.11) or a normalised"
                    + " absolute path");
        }
        return Optional.empty();
    }

    /**
     * Adds a field error for an invalid pip_url or python to {@code errors} (plugin create/update).
     *
     * @param pipUrlField the field name used for the pip_url ({@code pipUrl})
     * @param pythonField the field name used for the interpreter ({@code extras.python})
     */
    public static void validate(String pipUrl, String python, String pipUrlField, String pythonField,
                                List<Problem.FieldError> errors) {
        if (pipUrl != null) {
            Result r = parse(pipUrl);
            if (r.error() != null) {
                errors.add(new Problem.FieldError(pipUrlField, r.error()));
            }
        }
        checkPython(python).ifPresent(m -> errors.add(new Problem.FieldError(pythonField, m)));
    }

    /** The requirement words without the {@code -e} flags (for the log and the distribution guess). */
    public List<String> requirements() {
        List<String> out = new ArrayList<>();
        for (String w : words) {
            if (!w.equals("-e")) {
                out.add(w);
            }
        }
        return out;
    }

    /**
     * The result of {@link #parse}.
     *
     * @param pipUrl the parsed pip_url, or null when refused
     * @param error why it is refused, or null
     */
    public record Result(PipUrl pipUrl, String error) {
        static Result error(String message) {
            return new Result(null, message);
        }
    }

    private static String optionName(String word) {
        int eq = word.indexOf('=');
        String name = eq > 0 ? word.substring(0, eq) : word;
        return name.length() > 40 ? name.substring(0, 40) + "..." : name;
    }

    /** POSIX shell word splitting without expansion (as Python's {@code shlex.split}). */
    static List<String> split(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inWord = false;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                if (inWord) {
                    words.add(cur.toString());
                    cur.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int end = s.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("has an unclosed single quote");
                }
                cur.append(s, i + 1, end);
                inWord = true;
                i = end + 1;
            } else if (c == '"') {
                i++;
                while (true) {
                    if (i >= s.length()) {
                        throw new IllegalArgumentException("has an unclosed double quote");
                    }
                    char d = s.charAt(i);
                    if (d == '"') {
                        break;
                    }
                    if (d == '\\' && i + 1 < s.length() && "\\\"$`\n".indexOf(s.charAt(i + 1)) >= 0) {
                        cur.append(s.charAt(i + 1));
                        i += 2;
                    } else {
                        cur.append(d);
                        i++;
                    }
                }
                inWord = true;
                i++;
            } else if (c == '\\') {
                if (i + 1 >= s.length()) {
                    throw new IllegalArgumentException("ends with a lone backslash");
                }
                cur.append(s.charAt(i + 1));
                inWord = true;
                i += 2;
            } else {
                cur.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(cur.toString());
        }
        return words;
    }
}
