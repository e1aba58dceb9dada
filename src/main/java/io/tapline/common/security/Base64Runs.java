package io.tapline.common.security;

import java.util.List;

/**
 * Finds secrets inside base64 text that holds more than the secret: an HTTP Basic credential
 * ({@code Basic base64(user ":" password)}), a token or a URL with the secret in it. Every run of
 * base64 characters (standard and URL-safe alphabets, at least {@value #MIN_RUN} long, with its
 * {@code =} padding) is decoded at each of its four alignments; a run whose decoding holds the UTF-8
 * bytes of a secret is masked whole. A run is masked only when it really decodes to the secret, so
 * a password of any length (down to {@link SecretMasker#MIN_LENGTH}) is found inside, and words of
 * ordinary text stay as they are. Stateless.
 */
final class Base64Runs {

    /** Shortest run decoded: the base64 of {@code ":" + a 3-character secret} without padding. */
    static final int MIN_RUN = 6;

    private static final byte[] VALUE = new byte[128];

    static {
        java.util.Arrays.fill(VALUE, (byte) -1);
        String std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        for (int i = 0; i < std.length(); i++) {
            VALUE[std.charAt(i)] = (byte) i;
        }
        VALUE['+'] = 62;
        VALUE['-'] = 62;
        VALUE['/'] = 63;
        VALUE['_'] = 63;
    }

    private Base64Runs() {
    }

    /**
     * {@code text} with every base64 run whose decoding contains one of {@code secrets} (UTF-8
     * bytes, each at least 3 long) replaced by {@code mask}; {@code text} itself when none does.
     */
    static String mask(String text, List<byte[]> secrets, String mask) {
        StringBuilder out = null;
        int copied = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!isBase64(text.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && isBase64(text.charAt(i))) {
                i++;
            }
            int end = i;
            while (i < n && i - end < 2 && text.charAt(i) == '=') {
                i++;
            }
            if (end - start >= MIN_RUN && holdsSecret(text, start, end, secrets)) {
                if (out == null) {
                    out = new StringBuilder(n);
                }
                out.append(text, copied, start).append(mask);
                copied = i;
            }
        }
        if (out == null) {
            return text;
        }
        return out.append(text, copied, n).toString();
    }

    private static boolean isBase64(char c) {
        return c < 128 && VALUE[c] >= 0;
    }

    private static boolean holdsSecret(String text, int start, int end, List<byte[]> secrets) {
        byte[] decoded = new byte[(end - start) * 3 / 4 + 1];
        for (int align = 0; align < 4 && start + align < end; align++) {
            int len = decode(text, start + align, end, decoded);
            for (byte[] s : secrets) {
                if (contains(decoded, len, s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Decodes {@code text[from, to)} into {@code out}, a final group of 2 or 3 characters included; the byte count. */
    private static int decode(String text, int from, int to, byte[] out) {
        int len = 0;
        int bits = 0;
        int acc = 0;
        for (int i = from; i < to; i++) {
            acc = (acc << 6) | VALUE[text.charAt(i)];
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[len++] = (byte) (acc >> bits);
                acc &= (1 << bits) - 1;
            }
        }
        return len;
    }

    private static boolean contains(byte[] hay, int len, byte[] needle) {
        int last = len - needle.length;
        byte first = needle[0];
        for (int i = 0; i <= last; i++) {
            if (hay[i] != first) {
                continue;
            }
            int j = 1;
            while (j < needle.length && hay[i + j] == needle[j]) {
                j++;
            }
            if (j == needle.length) {
                return true;
            }
        }
        return false;
    }
}
