package io.tapline.schedule;

import io.tapline.pipeline.PipelineChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;

import java.time.Instant;

/**
 * Test bean doing for a test's own ticker what {@link ScheduleTickerJob} does for the service's:
 * re-plan a pipeline after its change committed (the test profile keeps the service's ticker off).
 */
@ApplicationScoped
public class TickerEventForwarder {

    private volatile ScheduleTicker ticker;

    void set(ScheduleTicker t) {
        ticker = t;
    }

    void onPipelineChanged(@Observes(during = TransactionPhase.AFTER_SUCCESS) PipelineChanged event) {
        ScheduleTicker t = ticker;
        if (t != null) {
            t.refresh(event.id(), Instant.now());
        }
    }
}
