package io.tapline.run.exec;

import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.tapline.common.config.InstanceId;
import io.tapline.common.db.DatabaseRetry;
import io.tapline.common.json.Jsons;
import io.tapline.connector.StreamCounts;
import io.tapline.run.RunEnd;
import io.tapline.run.RunEndService;
import io.tapline.run.RunLogs;
import io.tapline.run.RunMetrics;
import io.tapline.run.RunMonitor;
import io.tapline.run.RunRepository;
import io.tapline.run.RunStatus;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The finishing stage of every executor: logs the outcome (with its failure type in words), and
 * records it with the run's exit codes, warnings, stages, log tail and final counts through the one
 * end path ({@link RunEndService}: guarded on RUNNING and this owner).
 *
 * <p>While the database is unreachable the write is retried until it is back (the run stays
 * registered, so its heartbeat resumes first and this replica's reaper leaves it alone); on service
 * shutdown only until the shutdown deadline (the run is then reported by {@link RunExecutor#shutdown}
 * in one line), and never once the application container has stopped.
 * When another replica reaped the run meanwhile ("heartbeat lost"), the true outcome is written onto
 * the reaped run ({@link RunRepository#amendReaped}).
 */
@ApplicationScoped
public class RunFinisher {

    private static final Logger LOG = Logger.getLogger(RunFinisher.class);
    private static final int OTHER_ERROR_ATTEMPTS = 5;

    private final RunEndService ends;
    private final RunRepository runs;
    private final RunLogs logs;
    private final ActiveRuns active;
    private final InstanceId instance;
    private final RunMetrics metrics;
    private final Clock clock;

    public RunFinisher(RunEndService ends, RunRepository runs, RunLogs logs, ActiveRuns active, InstanceId instance,
                       RunMetrics metrics, Clock clock) {
        this.ends = ends;
        this.runs = runs;
        this.logs = logs;
        this.active = active;
        this.instance = instance;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * Records the end of a run this replica executed.
     *
     * @param ctx the run's context, or null when it failed before its log opened
     */
    void finish(UUID runId, String pipeline, ActiveRun ctx, Outcome outcome, Map<String, Integer> exitCodes) {
        try {
            List<String> warnings = new ArrayList<>(ctx == null ? List.of() : ctx.warnings);
            if (ctx != null) {
                String unwritable = ctx.log.writeError();
                if (unwritable != null) {
                    warnings.add("the run log file could not be written (" + unwritable + "); lines after the error"
                            + " are only in the log tail");
                }
                ctx.log.line("service", "run " + OutcomeClassifier.describe(outcome));
                ctx.log.flush();
            }
            RunEnd end = end(ctx, outcome, exitCodes, warnings);
            Boolean changed = store(runId, end);
            if (changed == null) {
                // RunExecutor#shutdown reports every run given up in one line
                active.endGivenUp(runId);
                LOG.debugf("Recording the end of run %s (%s) was given up at the shutdown deadline", runId,
                        outcome.status());
            } else if (changed && containerRunning()) {
                Duration d = ctx == null ? Duration.ZERO : Duration.between(ctx.startedAt, clock.instant());
                metrics.finished(pipeline, outcome.status(), d);
                if (end.counts() != null && ctx != null) {
                    ctx.counts().streams().forEach((name, c) -> metrics.records(pipeline, name, c.records()));
                }
                LOG.infof("Run %s of pipeline '%s' ended %s", runId, pipeline, OutcomeClassifier.describe(outcome));
            } else if (amend(runId, end)) {
                LOG.warnf("Run %s had been reaped by another replica (heartbeat lost); its outcome here"
                        + " (%s) was written onto it", runId, OutcomeClassifier.describe(outcome));
            } else {
                LOG.infof("Run %s was already ended elsewhere; its outcome here (%s) was not recorded", runId,
                        outcome.status());
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "Recording the end of run %s failed", runId);
        } finally {
            // After a shutdown that gave up waiting for this thread no bean may be touched any more.
            if (containerRunning()) {
                active.remove(runId);
                logs.close(runId);
            }
        }
    }

    private RunEnd end(ActiveRun ctx, Outcome o, Map<String, Integer> exitCodes, List<String> warnings) {
        if (ctx == null) {
            return new RunEnd(o.status(), o.component(), o.type(), o.reason(), exitCodes, warnings, "", 0L, "[]", null);
        }
        StreamCounts counts = ctx.counts();
        StateCheckpointer cp = ctx.checkpointer;
        RunEnd.Counts c = new RunEnd.Counts(Jsons.write(RunStateWriter.countsJson(counts)), counts.total().records(),
                counts.bytes(), cp == null ? null : cp.validLines(), cp == null ? null : cp.invalidLines());
        return new RunEnd(o.status(), o.component(), o.type(), o.reason(), exitCodes, warnings, ctx.log.tail(),
                ctx.log.totalBytes(), ctx.stagesJson(), c);
    }

    /**
     * The guarded end write, retried while the database is unreachable.
     *
     * @return whether this write ended the run, or null when it was given up (shutdown)
     */
    private Boolean store(UUID runId, RunEnd end) {
        // Only an unreachable database is waited for without limit; any other error (a bug, a
        // failing observer) gets a few attempts.
        return DatabaseRetry.whileUnreachable(OTHER_ERROR_ATTEMPTS, () -> !containerRunning(),
                () -> active.shuttingDown() && System.nanoTime() - active.shutdownDeadline() > 0,
                e -> LOG.warnf("Recording the end of run %s failed, will retry until the database is back: %s", runId,
                        RunThreads.rootMessage(e)),
                () -> ends.end(runId, new RunEnd.Guard(RunStatus.RUNNING, instance.get(), null), end)).orElse(null);
    }

    private boolean amend(UUID runId, RunEnd end) {
        RunEnd e = end;
        try {
            return QuarkusTransaction.requiringNew().call(() -> runs.amendReaped(runId, instance.get(),
                    RunMonitor.HEARTBEAT_LOST, e));
        } catch (RuntimeException ex) {
            return false;
        }
    }

    private static boolean containerRunning() {
        ArcContainer c = Arc.container();
        return c != null && c.isRunning();
    }
}
