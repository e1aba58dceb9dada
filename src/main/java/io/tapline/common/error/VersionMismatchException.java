package io.tapline.common.error;

/**
 * A write was made against a version of the resource that is no longer the current one (the
 * caller's {@code If-Match} at the edge, an expected version below it). Maps to 412
 * {@code precondition-failed}; {@link #currentTag()} becomes {@code currentETag}.
 */
public final class VersionMismatchException extends DomainException {

    private static final long serialVersionUID = 1L;

    private final String currentTag;

    /**
     * @param detail human explanation
     * @param currentTag the current version's entity tag as the edge writes it (quoted), or null when
     *                   the resource no longer exists or the tag must not be shown
     */
    public VersionMismatchException(String detail, String currentTag) {
        super(detail);
        this.currentTag = currentTag;
        if (currentTag != null) {
            with("currentETag", currentTag);
        }
    }

    /** The current version's entity tag, or null. */
    public String currentTag() {
        return currentTag;
    }
}
