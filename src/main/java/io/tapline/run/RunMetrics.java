package io.tapline.run;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;

/**
 * Prometheus metrics of runs ({@code /q/metrics}): {@code tapline_runs_total{pipeline,status}},
 * {@code tapline_run_duration_seconds{pipeline,status}} (histogram),
 * {@code tapline_records_total{pipeline,stream}} and {@code tapline_state_checkpoints_total{pipeline}}.
 */
@ApplicationScoped
public class RunMetrics {

    private final MeterRegistry registry;

    public RunMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A run ended with {@code status} after {@code duration}. */
    public void finished(String pipeline, RunStatus status, Duration duration) {
        Counter.builder("tapline.runs").description("Runs that reached a terminal status")
                .tag("pipeline", pipeline).tag("status", status.name()).register(registry).increment();
        Timer.builder("tapline.run.duration").description("Run duration from start to end")
                .tag("pipeline", pipeline).tag("status", status.name()).publishPercentileHistogram()
                .register(registry).record(duration);
    }

    /** {@code n} RECORD messages of {@code stream} were relayed. */
    public void records(String pipeline, String stream, long n) {
        Counter.builder("tapline.records").description("RECORD messages relayed from taps to targets")
                .tag("pipeline", pipeline).tag("stream", stream).register(registry).increment(n);
    }

    /** A state checkpoint of a run was stored. */
    public void statePersisted(String pipeline) {
        Counter.builder("tapline.state.checkpoints").description("State checkpoints stored from targets' output")
                .tag("pipeline", pipeline).register(registry).increment();
    }
}
