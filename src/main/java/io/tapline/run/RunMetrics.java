package io.tapline.run;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Prometheus metrics of runs ({@code /q/metrics}): {@code tapline_runs_total{pipeline,status}},
 * {@code tapline_run_duration_seconds{pipeline,status}} (histogram),
 * {@code tapline_records_total{pipeline,stream}}, {@code tapline_state_checkpoints_total{pipeline}},
 * {@code tapline_state_size_bytes{pipeline}} (distribution of the stored state's size per
 * checkpoint), {@code tapline_runs_active} (runs this replica executes) and
 * {@code tapline_scheduler_lag_seconds} (histogram of the delay from a schedule tick to its run
 * row). docs/operations.md lists them.
 */
@ApplicationScoped
public class RunMetrics {

    private final MeterRegistry registry;
    private final Timer schedulerLag;

    /** Registers the meters that exist before any run: the scheduler lag. */
    public RunMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.schedulerLag = Timer.builder("tapline.scheduler.lag")
                .description("Delay from a schedule tick's instant to the creation of its run row")
                .publishPercentileHistogram().register(registry);
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

    /**
     * A scheduled run's row was created {@code lag} after the tick's instant (run row created minus
     * scheduled instant). Negative lags count as zero.
     */
    public void schedulerLag(Duration lag) {
        schedulerLag.record(lag.isNegative() ? Duration.ZERO : lag);
    }

    /** A state checkpoint of {@code pipeline} stored a merged state of {@code bytes} bytes (UTF-8 JSON). */
    public void stateSize(String pipeline, long bytes) {
        DistributionSummary.builder("tapline.state.size").description("Size of the stored state per checkpoint")
                .baseUnit("bytes").tag("pipeline", pipeline).register(registry).record(bytes);
    }

    /** Exports {@code tapline_runs_active}: the number of runs this replica executes, read from {@code count}. */
    public void activeRuns(Supplier<Number> count) {
        Gauge.builder("tapline.runs.active", count).description("Runs this replica is executing")
                .strongReference(true).register(registry);
    }
}
