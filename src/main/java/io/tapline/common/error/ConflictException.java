package io.tapline.common.error;

/**
 * The request contradicts what is stored or running now. {@link Reason} says how; each reason is a
 * problem type of its own, all with status 409.
 */
public final class ConflictException extends DomainException {

    private static final long serialVersionUID = 1L;

    /** How the request conflicts. */
    public enum Reason {
        /** A plugin or pipeline of that name exists. */
        ALREADY_EXISTS,
        /** The resource is still used by another one (a plugin by a pipeline). */
        IN_USE,
        /** Another pipeline already owns this state ID. */
        STATE_ID_TAKEN,
        /** A run of this state ID is queued or running. */
        RUN_ACTIVE,
        /** The status change is not allowed from the current status ({@code RunStatus}'s transition table). */
        INVALID_TRANSITION,
        /** A state cannot be merged over the stored one: an object over a non-object (meltano-state.md §1e). */
        STATE_CONFLICT,
        /** The extractor has no catalog yet: nothing stored, nothing discovered. */
        NO_CATALOG
    }

    private final Reason reason;

    /**
     * @param reason how the request conflicts
     * @param detail human explanation, naming what it conflicts with
     */
    public ConflictException(Reason reason, String detail) {
        super(detail);
        this.reason = reason;
    }

    /** How the request conflicts. */
    public Reason reason() {
        return reason;
    }
}
