package io.tapline.state.mirror;

/**
 * What a look at one state ID's mirror file found and did ({@link StateMirror#sync}).
 *
 * @param stateId the state ID
 * @param outcome what was found and done
 * @param version the version the import made, 0 when none
 * @param message a sentence for logs and run warnings, or null when unchanged
 */
public record Reconciled(String stateId, Outcome outcome, long version, String message) {

    /** What a look at one state ID's mirror file found and did. */
    public enum Outcome {
        /** The file is what Tapline last wrote or accepted (or both are absent). */
        UNCHANGED,
        /** An outside change was imported as a MELTANO version. */
        IMPORTED,
        /** The file was removed from outside; the state ID was cleared (a MELTANO version). */
        CLEARED,
        /** The file could not be read as a Meltano state record; it was set aside, nothing imported. */
        INVALID,
        /** The directory could not be checked (lock held too long, I/O error, directory missing). */
        FAILED
    }

    /** True when the look found nothing to report. */
    public boolean quiet() {
        return outcome == Outcome.UNCHANGED;
    }
}
