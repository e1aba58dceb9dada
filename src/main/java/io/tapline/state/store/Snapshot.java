package io.tapline.state.store;

import io.tapline.state.model.MeltanoState;

import java.time.OffsetDateTime;

/**
 * The current state of an ID.
 *
 * @param stateId the state ID
 * @param state the completed/partial record ({@link MeltanoState#empty()} when unknown)
 * @param version current version, 0 when the ID has no stored state
 * @param updatedAt last change, or null
 */
public record Snapshot(String stateId, MeltanoState state, long version, OffsetDateTime updatedAt) {

    /** True when something is stored under the ID. */
    public boolean exists() {
        return version > 0;
    }

    /** Nothing stored under {@code stateId}: the empty record, version 0. */
    public static Snapshot none(String stateId) {
        return new Snapshot(stateId, MeltanoState.empty(), 0, null);
    }

    /** The snapshot of a stored row, its sides read with {@link MeltanoState#side}. */
    public static Snapshot of(StateRepository.Row r) {
        return new Snapshot(r.stateId(), new MeltanoState(MeltanoState.side(r.completed()),
                MeltanoState.side(r.partial())), r.version(), r.updatedAt());
    }
}
