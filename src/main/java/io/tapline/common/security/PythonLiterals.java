package io.tapline.common.security;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The texts Python prints for a string value, as a Python connector's traceback, {@code %r},
 * {@code logging} of a dict or an exception's {@code repr} shows a secret: the body (between the
 * quotes) of {@code repr(str)} and {@code ascii(str)}, of {@code repr(bytes)} of its UTF-8
 * encoding, and {@code str.encode("unicode_escape")} (decoded, and as a bytes repr). Each in both
 * quote styles: Python writes {@code '...'} escaping {@code '} when the value holds both quotes, and
 * {@code "..."} escaping nothing when it holds only {@code '}. Rules from CPython 3.11
 * ({@code unicode_repr}, {@code PyBytes_Repr}, {@code unicode_escape} codec): {@code \\},
 * {@code \t}, {@code \n}, {@code \r}; other characters below U+0020 and U+007F as {@code \xNN};
 * non-ASCII kept when printable ({@code str.isprintable}) in {@code repr} and escaped as
 * {@code \xNN}, {@code \}{@code uNNNN} or {@code \UNNNNNNNN} (lower-case hex) otherwise; bytes at or
 * above 0x7F as {@code \xNN}. Stateless.
 */
final class PythonLiterals {

    private PythonLiterals() {
    }

    /**
     * Every Python literal body of {@code v} (see the class comment), and the body of each of those
     * quoted once more (a repr inside a repr: an exception's repr holding a dict's repr).
     * Includes {@code v} itself when no character needs escaping.
     */
    static Set<String> forms(String v) {
        Set<String> first = new LinkedHashSet<>();
        byte[] utf8 = v.getBytes(StandardCharsets.UTF_8);
        String escaped = unicodeEscape(v);
        for (char quote : List.of('\'', '"')) {
            first.add(str(v, quote, false));
            first.add(str(v, quote, true));
            first.add(bytes(utf8, quote));
            first.add(bytes(escaped.getBytes(StandardCharsets.US_ASCII), quote));
        }
        first.add(escaped);
        Set<String> out = new LinkedHashSet<>(first);
        for (String f : first) {
            out.add(str(f, '\'', false));
            out.add(str(f, '"', false));
        }
        return out;
    }

    /**
     * The body of {@code repr(v)} (or {@code ascii(v)} when {@code ascii}) written between
     * {@code quote} characters, the one quote that is escaped.
     */
    static String str(String v, char quote, boolean ascii) {
        StringBuilder sb = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); ) {
            int cp = v.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == quote || cp == '\\') {
                sb.append('\\').append((char) cp);
            } else if (!common(sb, cp)) {
                if (cp < 0x7f) {
                    sb.append((char) cp);
                } else if (!ascii && cp > 0x7f && printable(cp)) {
                    sb.appendCodePoint(cp);
                } else {
                    hex(sb, cp);
                }
            }
        }
        return sb.toString();
    }

    /** The body of {@code repr(b)} for bytes {@code b} written between {@code quote} characters. */
    static String bytes(byte[] b, char quote) {
        StringBuilder sb = new StringBuilder(b.length + 8);
        for (byte x : b) {
            int c = x & 0xff;
            if (c == quote || c == '\\') {
                sb.append('\\').append((char) c);
            } else if (!common(sb, c)) {
                if (c < 0x7f) {
                    sb.append((char) c);
                } else {
                    hex(sb, c);
                }
            }
        }
        return sb.toString();
    }

    /** {@code v.encode("unicode_escape")} as text: no quote escaped, every non-ASCII character escaped. */
    static String unicodeEscape(String v) {
        StringBuilder sb = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); ) {
            int cp = v.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\\') {
                sb.append("\\\\");
            } else if (!common(sb, cp)) {
                if (cp < 0x7f) {
                    sb.append((char) cp);
                } else {
                    hex(sb, cp);
                }
            }
        }
        return sb.toString();
    }

    /** Appends the escape of a tab, newline, carriage return or other C0 control (and DEL); false for anything else. */
    private static boolean common(StringBuilder sb, int c) {
        switch (c) {
            case '\t' -> sb.append("\\t");
            case '\n' -> sb.append("\\n");
            case '\r' -> sb.append("\\r");
            default -> {
                if (c >= 0x20 && c != 0x7f) {
                    return false;
                }
                hex(sb, c);
            }
        }
        return true;
    }

    /** {@code \xNN}, {@code \}{@code uNNNN} or {@code \UNNNNNNNN}, as Python picks by size. */
    private static void hex(StringBuilder sb, int cp) {
        if (cp <= 0xff) {
            sb.append("\\x").append(String.format("%02x", cp));
        } else if (cp <= 0xffff) {
            sb.append("\\u").append(String.format("%04x", cp));
        } else {
            sb.append("\\U").append(String.format("%08x", cp));
        }
    }

    /**
     * Python's {@code str.isprintable} for one code point: false for the categories Other (control,
     * format, surrogate, private use, unassigned) and Separator (space, line, paragraph); the ASCII
     * space is handled before this is asked.
     */
    static boolean printable(int cp) {
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                 Character.UNASSIGNED, Character.SPACE_SEPARATOR, Character.LINE_SEPARATOR,
                 Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }
}
