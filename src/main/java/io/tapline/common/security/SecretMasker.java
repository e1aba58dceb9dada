package io.tapline.common.security;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * Replaces every form in which a connector may print a secret value with {@link #MASK}: the raw
 * value; each line (or NUL-separated piece) of a multi-line value (a PEM key, a multi-line password)
 * that is at least {@link #MIN_LINE_LENGTH} characters long, since a connector's stderr is split into
 * lines; the value JSON-escaped as Python's {@code json.dumps} writes it (with and without
 * {@code ensure_ascii}, lower- and upper-case hex in unicode escapes, with {@code \/} or not);
 * URL-encoded ({@code %20} and {@code +} for spaces, upper- and lower-case hex); base64 (standard
 * and URL-safe, padded or not), alone or inside a longer base64 text such as an HTTP Basic credential ({@link Base64Runs});
 * hex; and every literal Python prints for it ({@link PythonLiterals}: {@code repr} and
 * {@code ascii} of the string, {@code repr} of its UTF-8 bytes, {@code unicode_escape}, in both quote
 * styles, also JSON-escaped and quoted twice). Values shorter than {@link #MIN_LENGTH} characters are
 * not masked, to keep logs readable. Immutable and thread-safe.
 */
public final class SecretMasker {

    /** What a secret value reads as in logs, summaries and the database. */
    public static final String MASK = "********";

    /** Shortest value (in characters) that is masked. */
    public static final int MIN_LENGTH = 3;

    /** Shortest line of a multi-line value that is masked on its own. */
    public static final int MIN_LINE_LENGTH = 6;

    private static final SecretMasker NONE = new SecretMasker(List.of());

    private final List<String> forms;
    /** The UTF-8 bytes of each value and of each of its pieces, looked for inside base64 runs. */
    private final List<byte[]> values;

    /** A masker of every form of each of {@code secrets} (null and short values are skipped). */
    public SecretMasker(Collection<String> secrets) {
        Set<String> all = new LinkedHashSet<>();
        Set<String> plain = new LinkedHashSet<>();
        for (String s : secrets) {
            if (s != null && s.length() >= MIN_LENGTH) {
                all.addAll(forms(s));
                plain.add(s);
                plain.addAll(pieces(s));
            }
        }
        List<String> sorted = new ArrayList<>(all);
        sorted.removeIf(f -> f.length() < MIN_LENGTH);
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        this.forms = List.copyOf(sorted);
        this.values = plain.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** A masker that masks nothing. */
    public static SecretMasker none() {
        return NONE;
    }

    /** {@code text} with every form of every secret replaced by {@link #MASK}; null stays null. */
    public String mask(String text) {
        if (text == null || forms.isEmpty()) {
            return text;
        }
        String t = Base64Runs.mask(text, values, MASK);
        for (String f : forms) {
            if (t.contains(f)) {
                t = t.replace(f, MASK);
            }
        }
        return t;
    }

    /** How many distinct strings this masker looks for (for tests and diagnostics). */
    public int formCount() {
        return forms.size();
    }

    /**
     * Every form of one secret value that is masked: the value itself and its encodings, then each
     * sufficiently long line of a multi-line value with the encodings of that line.
     */
    public static Set<String> forms(String secret) {
        Set<String> out = new LinkedHashSet<>(encodings(secret));
        for (String piece : pieces(secret)) {
            out.addAll(encodings(piece));
        }
        return out;
    }

    /**
     * The stripped lines (split at line breaks and at NUL characters, as in a file of NUL-separated
     * entries) of a multi-line value that are at least {@link #MIN_LINE_LENGTH} long; none for one line.
     */
    private static List<String> pieces(String secret) {
        String[] lines = secret.split("\r\n|\r|\n|\\x00");
        if (lines.length < 2) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String l = line.strip();
            if (l.length() >= MIN_LINE_LENGTH) {
                out.add(l);
            }
        }
        return out;
    }

    private static Set<String> encodings(String v) {
        Set<String> out = new LinkedHashSet<>();
        out.add(v);
        String ascii = json(v, true, false);
        out.add(ascii);
        out.add(json(v, true, true));
        out.add(json(v, false, false));
        if (v.indexOf('/') >= 0) {
            out.add(ascii.replace("/", "\\/"));
            out.add(json(v, false, false).replace("/", "\\/"));
        }
        // Python's literals (a traceback, %r, a logged dict), and those inside a JSON log line
        for (String literal : PythonLiterals.forms(v)) {
            out.add(literal);
            out.add(json(literal, true, false));
            out.add(json(literal, false, false));
        }
        String java = URLEncoder.encode(v, StandardCharsets.UTF_8);
        // Python's quote() leaves '~' and encodes '*', where Java does the opposite
        String python = java.replace("*", "%2A").replace("%7E", "~");
        // urllib.parse.quote(v): '/' kept, a space as %20 (the form connectors put into URLs)
        String quote = python.replace("+", "%20").replace("%2F", "/");
        for (String form : List.of(java, python, quote)) {
            out.add(form);
            out.add(form.replace("+", "%20"));
            out.add(lowerHex(form));
            out.add(lowerHex(form.replace("+", "%20")));
        }
        byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
        String b64 = Base64.getEncoder().encodeToString(bytes);
        String url = Base64.getUrlEncoder().encodeToString(bytes);
        out.add(b64);
        out.add(url);
        out.add(strip(b64));
        out.add(strip(url));
        // inside a longer base64 text (an HTTP Basic header: base64("user:" + password)): the part
        // of the encoding that only the secret's bytes decide, at each of the three alignments
        for (int shift = 1; shift <= 2; shift++) {
            byte[] shifted = new byte[shift + bytes.length];
            Arrays.fill(shifted, 0, shift, (byte) ':');
            System.arraycopy(bytes, 0, shifted, shift, bytes.length);
            String e = Base64.getEncoder().withoutPadding().encodeToString(shifted);
            int to = (shifted.length / 3) * 4;
            if (to - 4 >= 8) {
                out.add(e.substring(4, to));
            }
        }
        if (bytes.length / 3 * 4 >= 8) {
            out.add(b64.substring(0, bytes.length / 3 * 4));
        }
        if (bytes.length >= 4) {
            out.add(HexFormat.of().formatHex(bytes));
            out.add(HexFormat.of().withUpperCase().formatHex(bytes));
        }
        return out;
    }

    /**
     * The body of a JSON string literal for {@code v}, as Python writes it: {@code \"}, {@code \\},
     * {@code \n}, {@code \r}, {@code \t}, {@code \b}, {@code \f}, other control characters as
     * a unicode escape, and with {@code ensureAscii} every non-ASCII UTF-16 unit as a unicode escape.
     */
    static String json(String v, boolean ensureAscii, boolean upperHex) {
        StringBuilder sb = new StringBuilder(v.length() + 16);
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || (ensureAscii && c > 0x7e)) {
                        String hex = String.format("%04x", (int) c);
                        sb.append("\\u").append(upperHex ? hex.toUpperCase(Locale.ROOT) : hex);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    private static String lowerHex(String urlEncoded) {
        StringBuilder sb = new StringBuilder(urlEncoded);
        for (int i = 0; i + 2 < sb.length(); i++) {
            if (sb.charAt(i) == '%') {
                sb.setCharAt(i + 1, Character.toLowerCase(sb.charAt(i + 1)));
                sb.setCharAt(i + 2, Character.toLowerCase(sb.charAt(i + 2)));
            }
        }
        return sb.toString();
    }

    private static String strip(String b64) {
        int end = b64.length();
        while (end > 0 && b64.charAt(end - 1) == '=') {
            end--;
        }
        return b64.substring(0, end);
    }
}
