package io.tapline.common.api;

import io.tapline.common.error.VersionMismatchException;
import jakarta.ws.rs.core.EntityTag;

/**
 * Strong ETags derived from a resource's version number, and the {@code If-Match} check
 * (RFC 9110 §13.1.1): absent or {@code *} passes; otherwise one of the listed tags must equal
 * the current one, else 412.
 */
public final class ETags {

    private ETags() {
    }

    /** The ETag of a resource at {@code version}: {@code "<version>"}. */
    public static EntityTag of(long version) {
        return new EntityTag(Long.toString(version));
    }

    /**
     * Enforces {@code If-Match}.
     *
     * @param ifMatch the header value, or null
     * @param version the resource's current version
     * @throws VersionMismatchException 412 when the header names other versions
     */
    public static void checkIfMatch(String ifMatch, long version) {
        if (ifMatch == null || ifMatch.isBlank() || ifMatch.trim().equals("*")) {
            return;
        }
        String current = Long.toString(version);
        for (String tag : ifMatch.split(",")) {
            String t = tag.trim();
            if (t.startsWith("W/")) {
                continue; // weak tags never match for If-Match (strong comparison)
            }
            if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
                t = t.substring(1, t.length() - 1);
            }
            if (t.equals(current)) {
                return;
            }
        }
        throw new VersionMismatchException("If-Match " + ifMatch.trim()
                + " does not match the current ETag \"" + current + "\"; read the resource again and retry.",
                "\"" + current + "\"");
    }
}
