package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.api.UuidV7;
import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Prunes old run history: for each pipeline (by name), deletes the terminal runs created more
 * than {@code tapline.retention.keep-days} ago that are not among its
 * {@code tapline.retention.keep-min-runs-per-pipeline} newest runs, in batches of
 * {@code tapline.retention.batch-size}, each batch its own short transaction. Rows locked by
 * another transaction are skipped, never waited for, so pruning never blocks a run; active
 * (QUEUED, RUNNING) runs are never deleted, and the Singer state tables are never touched. The
 * run log files of deleted runs are removed from this replica's logs directory.
 *
 * <p>Every replica prunes every {@code tapline.retention.interval}; concurrent sweeps split the
 * rows between them (SKIP LOCKED) and are otherwise idempotent. "Created" is the time in the
 * run's UUIDv7 id, the order of the run list.
 */
@ApplicationScoped
public class RunRetention {

    private static final Logger LOG = Logger.getLogger(RunRetention.class);

    /**
     * What one sweep did.
     *
     * @param deleted runs deleted
     * @param batches delete transactions that deleted at least one run
     * @param elapsed wall time of the sweep
     */
    public record Result(long deleted, int batches, Duration elapsed) {
    }

    /**
     * What to keep (the {@code tapline.retention.*} settings).
     *
     * @param keepDays runs created within this many days are kept
     * @param keepMinRunsPerPipeline the newest runs of each pipeline kept whatever their age (at least 1)
     * @param batchSize runs deleted per transaction (at least 1)
     */
    public record Policy(int keepDays, int keepMinRunsPerPipeline, int batchSize) {
        static Policy of(TaplineConfig.Retention r) {
            return new Policy(r.keepDays(), r.keepMinRunsPerPipeline(), r.batchSize());
        }
    }

    private final RunRepository runs;
    private final RunLogs logs;
    private final TaplineConfig config;
    private final Clock clock;

    public RunRetention(RunRepository runs, RunLogs logs, TaplineConfig config, Clock clock) {
        this.runs = runs;
        this.logs = logs;
        this.config = config;
        this.clock = clock;
    }

    @Scheduled(every = "{tapline.retention.interval}", delayed = "{tapline.retention.interval}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        try {
            prune(clock.instant());
        } catch (RuntimeException e) {
            // the database is unreachable; the next tick retries
            LOG.warnf("Run retention failed: %s", e.getMessage());
        }
    }

    /** Runs one sweep as of {@code now} with the configured policy. */
    public Result prune(Instant now) {
        return prune(now, Policy.of(config.retention()));
    }

    /**
     * Runs one sweep as of {@code now}. A pipeline whose sweep fails is logged and skipped; the
     * others are still pruned.
     */
    public Result prune(Instant now, Policy policy) {
        long started = System.nanoTime();
        UUID createdBefore = UuidV7.lowerBound(now.minus(Duration.ofDays(policy.keepDays())).toEpochMilli());
        int keep = Math.max(1, policy.keepMinRunsPerPipeline());
        int batchSize = Math.max(1, policy.batchSize());
        long deleted = 0;
        int batches = 0;
        List<String> names = QuarkusTransaction.requiringNew().call(runs::pipelineNamesWithRuns);
        for (String name : names) {
            try {
                Optional<UUID> nth = QuarkusTransaction.requiringNew().call(() -> runs.nthNewestId(name, keep));
                if (nth.isEmpty()) {
                    continue;
                }
                for (;;) {
                    List<UUID> ids = QuarkusTransaction.requiringNew().call(() ->
                            runs.deleteTerminalBefore(name, createdBefore, nth.get(), batchSize));
                    if (ids.isEmpty()) {
                        break;
                    }
                    deleted += ids.size();
                    batches++;
                    deleteLogs(ids);
                    if (ids.size() < batchSize) {
                        break;
                    }
                }
            } catch (RuntimeException e) {
                LOG.warnf("Pruning the runs of pipeline '%s' failed: %s", name, e.getMessage());
            }
        }
        Result result = new Result(deleted, batches, Duration.ofNanos(System.nanoTime() - started));
        if (deleted > 0) {
            LOG.infof("Run retention: deleted %d runs in %d batches (%d ms)", deleted, batches,
                    result.elapsed().toMillis());
        }
        return result;
    }

    private void deleteLogs(List<UUID> ids) {
        for (UUID id : ids) {
            try {
                Files.deleteIfExists(logs.path(id));
            } catch (IOException e) {
                LOG.debugf("Log of pruned run %s not deleted: %s", id, e.getMessage());
            }
        }
    }
}
