package io.tapline.cli.http;

import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of the parts of an API URL. A path segment keeps RFC 3986's unreserved
 * characters, sub-delimiters but {@code ;} (which the service refuses raw), {@code :} and {@code @} as they are (so {@code dev:tap-x-to-y} reads
 * as typed) and encodes everything else as UTF-8 bytes; {@code /}, {@code ?}, {@code #} and
 * {@code %} in a name never change the path.
 */
public final class Paths {

    private static final String SEGMENT_SAFE = "-._~!$&'()*+,=:@";
    private static final String QUERY_SAFE = "-._~!$'()*,;:@/?";

    private Paths() {
    }

    /** One path segment, encoded. */
    public static String seg(String s) {
        return encode(s, SEGMENT_SAFE);
    }

    /** A query name or value, encoded ({@code &}, {@code =}, {@code +} and {@code #} escaped). */
    public static String query(String s) {
        return encode(s, QUERY_SAFE);
    }

    private static String encode(String s, String safe) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (c < 0x80 && safe.indexOf(c) >= 0)) {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }
}
