package io.tapline.events;

import java.util.Arrays;
import java.util.Optional;

/**
 * The events Tapline records in its outbox (table {@code event}, docs/events.md). The id is the
 * name on the wire ({@code type} of a webhook body, {@code Tapline-Event} header, subscription lists).
 */
public enum EventType {
    /** A run ended SUCCEEDED. */
    RUN_SUCCEEDED("run.succeeded"),
    /** A run ended FAILED; the body carries the failing component and reason. */
    RUN_FAILED("run.failed"),
    /** A run ended CANCELLED (by a user, a forced run, or the service shutting down). */
    RUN_CANCELLED("run.cancelled"),
    /** A schedule paused itself after consecutive failed runs. */
    PIPELINE_PAUSED("pipeline.paused"),
    /** A state ID's stored state did not change over the last N successful runs that emitted records. */
    STATE_NOT_ADVANCING("state.not_advancing"),
    /** A stored state is above the size threshold, or grew by more than the growth factor in one run. */
    STATE_LARGE("state.large"),
    /**
     * A run's state ID had stored bookmarks, but its extractor was not given them ({@code --state})
     * because it does not declare the {@code state} capability: it read everything again.
     */
    STATE_NOT_PASSED("state.not_passed");

    private final String id;

    EventType(String id) {
        this.id = id;
    }

    /** The wire name, e.g. {@code run.failed}. */
    public String id() {
        return id;
    }

    /** The type of a wire name; empty when unknown. */
    public static Optional<EventType> fromId(String id) {
        return Arrays.stream(values()).filter(t -> t.id.equals(id)).findFirst();
    }

    /** True for the three run.* events (the ones OpenLineage run events are made from). */
    public boolean isRunEnd() {
        return this == RUN_SUCCEEDED || this == RUN_FAILED || this == RUN_CANCELLED;
    }
}
