package io.tapline.common.api;

import jakarta.ws.rs.core.EntityTag;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Strong ETags derived from a resource's version number, and the reading of {@code If-Match}
 * into an {@link ExpectedVersion} (RFC 9110 §13.1.1): absent or {@code *} passes; otherwise one of
 * the listed tags must equal the current one, else 412 (at {@link ExpectedVersion#check}).
 */
public final class ETags {

    private ETags() {
    }

    /** The ETag of a resource at {@code version}: {@code "<version>"}. */
    public static EntityTag of(long version) {
        return new EntityTag(Long.toString(version));
    }

    /**
     * Reads an {@code If-Match} header into the version a write expects (RFC 9110 §13.1.1):
     * absent or blank is {@link ExpectedVersion#none()}, {@code *} is {@link ExpectedVersion#any()},
     * anything else a comma-separated list of tags of which one must equal the current ETag. Tags
     * compare strongly: weak tags ({@code W/"3"}) never match, quotes are optional, and a tag that
     * is not a version number in canonical form ({@code "abc"}, {@code "05"}) matches nothing, so a
     * malformed header ends in 412 at the check, not here.
     *
     * @param ifMatch the header value, or null
     * @return the expectation to hand to a service; never null
     */
    public static ExpectedVersion expectedVersion(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            return ExpectedVersion.none();
        }
        String header = ifMatch.trim();
        if (header.equals("*")) {
            return ExpectedVersion.any();
        }
        Set<Long> versions = new HashSet<>();
        for (String tag : header.split(",")) {
            String t = tag.trim();
            if (t.startsWith("W/")) {
                continue; // weak tags never match for If-Match (strong comparison)
            }
            if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
                t = t.substring(1, t.length() - 1);
            }
            version(t).ifPresent(versions::add);
        }
        return ExpectedVersion.oneOf(versions, header);
    }

    /** {@code t} as a version when it is one written as {@link #of} writes it, else empty. */
    private static Optional<Long> version(String t) {
        try {
            long v = Long.parseLong(t);
            return Long.toString(v).equals(t) ? Optional.of(v) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
