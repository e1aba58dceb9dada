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

    /**
     * The pip_url as viewers, exports and logs may see it: the secret part of a URL's user info
     * ({@code https://user:TOKEN@host} becomes {@code https://user:********@host}, a lone token
     * {@code https://TOKEN@host} becomes {@code https://********@host}) is masked unless it is a
     * reference ({@code ${secret:NAME}}, {@code ${env:NAME}}, {@code ${NAME}}, {@code $NAME}: these
     * hold no secret). The SSH user {@code git} ({@code git+ssh://git@github.com/...}) is kept.
     *
     * @param text a pip_url or any text holding URLs (a pip command line, pip's output), or null
     * @return the masked text, or null for null
     */
    public static String masked(String text) {
        return UrlCredentials.mask(text);
    }

    /** True when {@code text} holds a literal (not referenced) credential that {@link #masked} hides. */
    public static boolean hasCredential(String text) {
        return text != null && !text.equals(UrlCredentials.mask(text));
    }

    /**
     * The pip_url to store from one sent in a write: when {@code sent} is exactly the masked form
     * of {@code stored} (a GET, edited elsewhere and sent back), the stored pip_url with its
     * credential; otherwise {@code sent} itself.
     *
     * @throws IllegalArgumentException when {@code sent} holds the mask {@code ********} in a URL's
     *     user info but is not the masked form of the stored pip_url (the message says what to send)
     */
    public static String unmasked(String sent, String stored) {
        if (sent == null || !UrlCredentials.hasMask(sent)) {
            return sent;
        }
        if (stored != null && sent.equals(UrlCredentials.mask(stored))) {
            return stored;
        }
        throw new IllegalArgumentException("holds the mask " + UrlCredentials.MASK + " in a URL but the stored pip_url"
                + " differs; send the real credential or a reference such as ${secret:NAME}");
    }

    /**
     * A copy whose words have their references resolved by {@code resolve} (install time only).
     * The words were split before, so a resolved value never becomes several words; one that then
     * reads as a pip option is refused like a written one.
     *
     * @param resolve resolves the references in one word
     * @throws IllegalArgumentException when a resolved word is a pip option
     */
    public PipUrl resolved(java.util.function.UnaryOperator<String> resolve) {
        List<String> out = new ArrayList<>(words.size());
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("-e") || w.indexOf('$') < 0) {
                out.add(w);
                continue;
            }
            String r = resolve.apply(w);
            if (r.startsWith("-") || r.isEmpty()) {
                throw new IllegalArgumentException("word " + (i + 1) + " resolves to " + (r.isEmpty() ? "an empty word"
                        : "a pip option") + "; a reference in pip_url must give a URL or a part of one");
            }
            out.add(r);
        }
        return new PipUrl(List.copyOf(out));
    }

    /** True when a word holds a {@code $} reference that {@link #resolved} would resolve. */
    public boolean hasReferences() {
        return words.stream().anyMatch(w -> w.indexOf('$') >= 0);
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
