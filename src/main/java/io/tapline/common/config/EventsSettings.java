package io.tapline.common.config;

import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * The events outbox ({@link io.tapline.events.OutboxWriter}) and its delivery
 * ({@link io.tapline.events.delivery.DeliveryWorker}): state warnings computed when a run ends,
 * and how deliveries are retried. docs/events.md describes the events.
 *
 * <p>Mapped under {@code tapline.events} as {@link TaplineConfig.Events}.
 */
public interface EventsSettings {
    /**
     * Successful runs with records whose state did not change, in a row, after which a state
     * counts as not advancing; a pipeline's {@code stateNotAdvancingRuns} overrides it.
     */
    @WithDefault("3")
    int notAdvancingRuns();

    /** A stored state larger than this (bytes, UTF-8 JSON) raises {@code state.large}. */
    @WithDefault("1048576")
    long stateLargeBytes();

    /** A state that grew by more than this factor in one run raises {@code state.large}... */
    @WithDefault("4")
    double stateGrowthFactor();

    /** ...when it is at least this large afterwards (bytes), so tiny states may double freely. */
    @WithDefault("65536")
    long stateGrowthMinBytes();

    /** Deliver due events from this replica (every replica may; each delivery goes out once). */
    @WithDefault("true")
    boolean deliver();

    /** How often this replica looks for due deliveries (1 s at the finest: the scheduler's resolution). */
    @WithDefault("1s")
    Duration pollInterval();

    /** Deliveries claimed per poll. */
    @WithDefault("20")
    int batchSize();

    /** Connect and response timeout of one delivery attempt. */
    @WithDefault("10s")
    Duration timeout();

    /** Delivery attempts this replica makes at once, in all. */
    @WithDefault("16")
    int maxConcurrent();

    /** Delivery attempts this replica makes at once to one receiver (host and port; OpenLineage is one). */
    @WithDefault("2")
    int maxConcurrentPerEndpoint();

    /** A claimed delivery is retried by any replica after this long (a replica died mid-attempt). */
    @WithDefault("2m")
    Duration lease();

    /** Wait after the first failed attempt; doubles with each further failure. */
    @WithDefault("30s")
    Duration backoffInitial();

    /** Longest wait between two attempts. */
    @WithDefault("1h")
    Duration backoffMax();

    /** A delivery not acknowledged within this long after its event is given up (FAILED). */
    @WithDefault("24h")
    Duration giveUpAfter();

    /** Events (and their delivery log) older than this many days are deleted. */
    @WithDefault("30")
    int keepDays();
}
