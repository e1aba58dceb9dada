package io.tapline.cli.out;

/**
 * {@code meltano state get --format pretty}: Python's {@code json.dumps(state, indent=2)}, made from
 * the compact text the API answers with (meltano-state.md §1b, §8). Only whitespace is added: every
 * string and number token is copied as the API wrote it (already with {@code ensure_ascii} escapes
 * and Python's number forms such as {@code 1e+16} or {@code NaN}), so no re-encoding can change a
 * byte. Empty containers stay {@code {}} and {@code []}, items are separated by {@code ,} and a new
 * line, keys by {@code ": "}.
 */
public final class MeltanoJson {

    private MeltanoJson() {
    }

    /**
     * Indents compact JSON as Python's {@code indent=2} does.
     *
     * @param compact one JSON value (whitespace outside strings is ignored)
     * @return the indented text, without a trailing newline
     */
    public static String indent(String compact) {
        StringBuilder out = new StringBuilder(compact.length() * 2);
        int depth = 0;
        int n = compact.length();
        for (int i = 0; i < n; i++) {
            char c = compact.charAt(i);
            switch (c) {
                case '"' -> {
                    int end = stringEnd(compact, i);
                    out.append(compact, i, end);
                    i = end - 1;
                }
                case '{', '[' -> {
                    int next = skipSpace(compact, i + 1);
                    char close = c == '{' ? '}' : ']';
                    if (next < n && compact.charAt(next) == close) {
                        out.append(c).append(close);
                        i = next;
                    } else {
                        depth++;
                        out.append(c);
                        newline(out, depth);
                    }
                }
                case '}', ']' -> {
                    depth--;
                    newline(out, depth);
                    out.append(c);
                }
                case ',' -> {
                    out.append(',');
                    newline(out, depth);
                }
                case ':' -> out.append(": ");
                case ' ', '\t', '\n', '\r' -> {
                }
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static int stringEnd(String s, int start) {
        int i = start + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\') {
                i += 2;
            } else if (c == '"') {
                return i + 1;
            } else {
                i++;
            }
        }
        return s.length();
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && " \t\n\r".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        for (int d = 0; d < depth; d++) {
            out.append("  ");
        }
    }
}
