package io.tapline.schedule;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.config.TaplineConfig;
import io.tapline.pipeline.PipelineChanged;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Runs this replica's {@link ScheduleTicker}: loads it at start-up (when
 * {@code tapline.scheduler.enabled}), ticks it every {@code tapline.scheduler.tick-interval} as a
 * safety net beside its own wake-ups, re-syncs it with the database every
 * {@code tapline.scheduler.resync-interval}, and re-plans a pipeline as soon as this replica
 * commits a change to it. Metrics: {@code tapline.scheduler.fires{outcome}} and
 * {@code tapline.scheduler.pipelines}.
 */
@ApplicationScoped
public class ScheduleTickerJob {

    private static final Logger LOG = Logger.getLogger(ScheduleTickerJob.class);

    private final ScheduleTicker ticker;
    private final Clock clock;
    private final TaplineConfig config;
    private volatile boolean stopped;
    /** The steps ("tick", "resync") whose last run failed. */
    private final java.util.Set<String> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public ScheduleTickerJob(ScheduleRepository store, Clock clock, TaplineConfig config, MeterRegistry registry) {
        this.clock = clock;
        this.config = config;
        this.ticker = new ScheduleTicker(store, clock, config.scheduler().misfireGrace(), "main");
        ScheduleTicker.Stats stats = ticker.stats();
        counter(registry, "queued", stats, s -> s.queued);
        counter(registry, "skipped", stats, s -> s.skipped);
        counter(registry, "already-fired", stats, s -> s.alreadyFired);
        counter(registry, "missed", stats, s -> s.missed);
        counter(registry, "catch-up", stats, s -> s.catchUps);
        counter(registry, "failed", stats, s -> s.failed);
        Gauge.builder("tapline.scheduler.pipelines", ticker, ScheduleTicker::size)
                .description("Pipelines with a schedule held by this replica's ticker").register(registry);
    }

    private static void counter(MeterRegistry registry, String outcome, ScheduleTicker.Stats stats,
                                Function<ScheduleTicker.Stats, AtomicLong> field) {
        FunctionCounter.builder("tapline.scheduler.fires", stats, s -> field.apply(s).get())
                .description("Schedule ticks handled by this replica, by outcome").tag("outcome", outcome)
                .register(registry);
    }

    void start(@Observes StartupEvent event) {
        if (config.scheduler().enabled()) {
            ticker.start();
        } else {
            LOG.info("Scheduler disabled on this replica (tapline.scheduler.enabled=false)");
        }
    }

    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        ticker.close();
    }

    @Scheduled(every = "{tapline.scheduler.tick-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!stopped) {
            guarded("tick", () -> ticker.tick(clock.instant()));
        }
    }

    @Scheduled(every = "{tapline.scheduler.resync-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void resync() {
        if (!stopped) {
            guarded("resync", () -> ticker.resync(clock.instant()));
        }
    }

    /**
     * Runs a scheduled step; a failure (the database is unreachable) is logged in one line, the
     * first of a streak at WARN, repeats at DEBUG, none during the shutdown; the next run retries.
     */
    private void guarded(String what, Runnable step) {
        try {
            step.run();
            if (failing.remove(what)) {
                LOG.infof("Schedule %s works again", what);
            }
        } catch (RuntimeException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            if (stopped) {
                LOG.debugf("Schedule %s failed during the shutdown: %s", what, message);
            } else if (failing.add(what)) {
                LOG.warnf("Schedule %s failed (repeats are logged at DEBUG until it works again): %s", what, message);
            } else {
                LOG.debugf("Schedule %s failed: %s", what, message);
            }
        }
    }

    void onPipelineChanged(@Observes(during = TransactionPhase.AFTER_SUCCESS) PipelineChanged event) {
        try {
            ticker.refresh(event.id(), clock.instant());
        } catch (RuntimeException e) {
            LOG.warnf(e, "Re-planning pipeline '%s' failed; the next resync will pick it up", event.name());
        }
    }

    /** This replica's ticker. */
    public ScheduleTicker ticker() {
        return ticker;
    }
}
