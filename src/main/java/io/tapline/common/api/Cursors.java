package io.tapline.common.api;


import io.tapline.common.error.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Opaque keyset-pagination cursors. A cursor carries the sort key of the last item of a page
 * (an id, or a time and an id) so the next page starts strictly after it and stays stable while
 * rows are inserted. Encoded as unpadded base64url of {@code v1:<key>}.
 */
public final class Cursors {

    private Cursors() {
    }

    /** Encodes a sort key such as {@code "42"} or {@code "2026-01-01T00:00:00Z|0190..."}. */
    public static String encode(String key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(("v1:" + key).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Decodes a cursor made by {@link #encode}.
     *
     * @return the sort key, or null when {@code cursor} is null or empty
     * @throws InvalidInputException 400 when the cursor was not made by this service
     */
    public static String decode(String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            return null;
        }
        try {
            String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (s.startsWith("v1:")) {
                return s.substring(3);
            }
        } catch (IllegalArgumentException e) {
            // fall through
        }
        throw InvalidInputException.field("cursor", "is not a cursor returned by this API");
    }

    /** Decodes a cursor holding a numeric id. */
    public static Long decodeId(String cursor) {
        String key = decode(cursor);
        if (key == null) {
            return null;
        }
        try {
            return Long.parseLong(key);
        } catch (NumberFormatException e) {
            throw InvalidInputException.field("cursor", "is not a cursor returned by this API");
        }
    }

    /**
     * Checks a {@code limit} parameter.
     *
     * @param text requested page size as sent, or null for the default
     * @return the page size to use
     * @throws InvalidInputException 400 when not a whole number from 1 to {@code maxSize}
     */
    public static int limit(String text, int defaultSize, int maxSize) {
        if (text == null || text.isBlank()) {
            return defaultSize;
        }
        int limit;
        try {
            limit = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > maxSize) {
            throw InvalidInputException.field("limit", "must be between 1 and " + maxSize);
        }
        return limit;
    }
}
