package io.tapline.events;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tapline.events.delivery.Sink;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Prometheus metrics of events ({@code /q/metrics}, listed in docs/operations.md):
 * {@code tapline_events_total{type}} (events recorded), {@code tapline_state_warnings_total{pipeline,type}}
 * (state warnings on runs, one per run and warning) and
 * {@code tapline_event_deliveries_total{sink,outcome}} (settled attempts: delivered, retry, given_up).
 */
@ApplicationScoped
public class EventMetrics {

    private final MeterRegistry registry;

    public EventMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** An event of {@code type} was recorded (counted when its transaction is still open). */
    public void recorded(EventType type) {
        Counter.builder("tapline.events").description("Events recorded in the outbox")
                .tag("type", type.id()).register(registry).increment();
    }

    /** A run of {@code pipeline} ended with a state warning of {@code type}. */
    public void stateWarning(String pipeline, EventType type) {
        Counter.builder("tapline.state.warnings").description("State warnings on runs (not advancing, large)")
                .tag("pipeline", pipeline).tag("type", type.id()).register(registry).increment();
    }

    /** A delivery attempt was settled with {@code outcome} (delivered, retry or given_up). */
    public void delivery(Sink sink, String outcome) {
        Counter.builder("tapline.event.deliveries").description("Settled delivery attempts of events")
                .tag("sink", sink.name().toLowerCase(java.util.Locale.ROOT)).tag("outcome", outcome)
                .register(registry).increment();
    }
}
