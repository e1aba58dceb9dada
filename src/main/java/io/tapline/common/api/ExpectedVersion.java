package io.tapline.common.api;

import io.tapline.common.error.VersionMismatchException;
import java.util.Set;

/**
 * The version a write expects its resource to be at, as the edge read it from {@code If-Match}
 * ({@link ETags#expectedVersion}): {@link #none() none} (no precondition), {@link #any() any}
 * ({@code *}: the resource must exist) or one of a set of versions (a list of strong tags; weak
 * and non-numeric tags are kept out, since they never match). Services compare it with the
 * stored version through {@link #check}.
 */
public final class ExpectedVersion {

    private static final ExpectedVersion NONE = new ExpectedVersion(false, true, Set.of(), null);
    private static final ExpectedVersion ANY = new ExpectedVersion(true, true, Set.of(), "*");

    private final boolean sent;
    private final boolean any;
    private final Set<Long> versions;
    private final String header;

    private ExpectedVersion(boolean sent, boolean any, Set<Long> versions, String header) {
        this.sent = sent;
        this.any = any;
        this.versions = versions;
        this.header = header;
    }

    /** No precondition: every version passes and a missing resource may be created. */
    public static ExpectedVersion none() {
        return NONE;
    }

    /** {@code *}: every version passes, but the resource must exist. */
    public static ExpectedVersion any() {
        return ANY;
    }

    /** Exactly {@code version} (what an {@code If-Match: "<version>"} asks for). */
    public static ExpectedVersion of(long version) {
        return new ExpectedVersion(true, false, Set.of(version), "\"" + version + "\"");
    }

    /**
     * One of {@code versions}; {@code header} is the trimmed header text the caller sent, quoted
     * back in the 412 detail. An empty set matches nothing (every listed tag was weak or not a
     * version).
     */
    static ExpectedVersion oneOf(Set<Long> versions, String header) {
        return new ExpectedVersion(true, false, Set.copyOf(versions), header);
    }

    /** Whether a precondition was sent at all ({@code *} or tags); false for {@link #none()}. */
    public boolean sent() {
        return sent;
    }

    /** Whether the precondition is {@code *} (the resource must exist, any version). */
    public boolean isAny() {
        return sent && any;
    }

    /** Whether a resource at {@code version} satisfies this expectation. */
    public boolean matches(long version) {
        return any || versions.contains(version);
    }

    /**
     * Compares with the resource's current version.
     *
     * @param version the stored version (0 when a state ID has nothing stored)
     * @throws VersionMismatchException 412 {@code precondition-failed} with {@code currentETag}
     *     when the expectation names other versions
     */
    public void check(long version) {
        if (matches(version)) {
            return;
        }
        String current = "\"" + version + "\"";
        throw new VersionMismatchException("If-Match " + header
                + " does not match the current ETag " + current + "; read the resource again and retry.", current);
    }

    @Override
    public String toString() {
        return sent ? "If-Match " + header : "no If-Match";
    }
}
