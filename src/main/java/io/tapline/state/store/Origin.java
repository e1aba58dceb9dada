package io.tapline.state.store;

import java.util.UUID;

/**
 * Who made a change of a state ID and why, as its history row and audit event record it.
 *
 * @param source RUN, STATE_EDIT, IMPORT, ROLLBACK or MELTANO (read back from the shared directory)
 * @param action set, merge, copy, move, clear, bookmark, checkpoint, import, rollback, mirror import, mirror clear
 * @param actor user or component name
 * @param runId the run, for RUN changes
 */
public record Origin(Source source, String action, String actor, UUID runId) {

    /** Source of a change, as recorded in the history ({@code singer_state_version.source}). */
    public enum Source { RUN, STATE_EDIT, IMPORT, ROLLBACK, MELTANO }

    /** A manual edit by {@code actor}. */
    public static Origin edit(String action, String actor) {
        return new Origin(Source.STATE_EDIT, action, actor, null);
    }
}
