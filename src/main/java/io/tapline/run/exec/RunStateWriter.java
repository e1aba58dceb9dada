package io.tapline.run.exec;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConflictException;
import io.tapline.common.json.Jsons;
import io.tapline.connector.StreamCounts;
import io.tapline.invocation.RunPlan;
import io.tapline.run.RunMetrics;
import io.tapline.run.RunRepository;
import io.tapline.state.StateService;
import io.tapline.state.json.PythonJson;
import io.tapline.state.mirror.StateMirror;
import io.tapline.state.model.MeltanoState;
import io.tapline.state.model.StateConflictException;
import io.tapline.state.store.Origin;
import io.tapline.state.store.Snapshot;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The database writes of a running run other than its end: acknowledged state (one transaction
 * with the heartbeat, only while this replica owns the run), the state it started from, and its
 * counts' JSON (its callers retry the state stores through {@code common.db.DatabaseRetry}).
 */
@ApplicationScoped
public class RunStateWriter {

    private static final Logger LOG = Logger.getLogger(RunStateWriter.class);

    private final RunRepository runs;
    private final StateService states;
    private final InstanceId instance;
    private final Clock clock;
    private final RunMetrics metrics;
    private final ActiveRuns active;
    private final TaplineConfig config;
    private final StateMirror mirror;

    public RunStateWriter(RunRepository runs, StateService states, InstanceId instance, Clock clock, RunMetrics metrics,
                          ActiveRuns active, TaplineConfig config, StateMirror mirror) {
        this.mirror = mirror;
        this.runs = runs;
        this.states = states;
        this.instance = instance;
        this.clock = clock;
        this.metrics = metrics;
        this.active = active;
        this.config = config;
    }

    /** The deadline of the writes at the end of a run: {@code tapline.runner.state-store-retry}, or the shutdown's. */
    long endDeadline() {
        return active.deadline(config.runner().stateStoreRetry());
    }

    /**
     * Reads the stored state of the run's state ID and records it as the run's {@code stateBefore};
     * an outside change of the shared Meltano state directory is imported first
     * ({@link StateMirror#reconcile}, a MELTANO history version), and a problem with the mirror
     * file becomes a warning on the run.
     */
    Snapshot stateBefore(RunPlan plan, ActiveRun ctx) {
        mirror.reconcile(plan.stateId()).ifPresent(w -> {
            ctx.warnings.add(w);
            ctx.log.line("service", w);
        });
        // One transaction reads the state and records it on the run.
        return QuarkusTransaction.requiringNew().call(() -> {
            Snapshot before = states.get(plan.stateId());
            runs.recordStateBefore(plan.runId(), merged(before.state()));
            return before;
        });
    }

    /**
     * Records that the run's extractor is not given the stored bookmarks ({@code --state}) because it
     * does not declare the {@code state} capability ({@code pipeline_run.state_not_passed}, read by
     * the {@code state.not_passed} warning and event at the end of the run).
     */
    void stateNotPassed(RunPlan plan) {
        QuarkusTransaction.requiringNew().run(() -> runs.recordStateNotPassed(plan.runId()));
    }

    /**
     * Stores the checkpointer's pending change in one transaction with the run's heartbeat.
     *
     * @return false when the database could not be reached (the change stays pending for a retry);
     *     true when it was stored, nothing was pending, or the run is no longer this replica's
     */
    boolean persist(RunPlan plan, ActiveRun ctx, StateCheckpointer checkpointer) {
        Optional<StateCheckpointer.Change> change = checkpointer.drain();
        if (change.isEmpty()) {
            return true;
        }
        StateCheckpointer.Change c = change.get();
        try {
            long size = states.runTransaction(plan.stateId(), () -> {
                if (!owned(plan.runId())) {
                    return -1L;
                }
                Snapshot s = states.applyFromRun(plan.stateId(), plan.runId(), c.wrapped(), c.complete());
                String after = merged(s.state());
                runs.recordStateAfter(plan.runId(), after, checkpointer.validLines(), checkpointer.invalidLines());
                return after == null ? 0L : (long) after.getBytes(StandardCharsets.UTF_8).length;
            });
            if (size < 0) {
                lost(ctx, "state not stored");
            } else {
                metrics.statePersisted(plan.pipeline());
                metrics.stateSize(plan.pipeline(), size);
                if (ctx.persistFailures > 0) {
                    ctx.log.line("service", "state stored again after " + ctx.persistFailures + " failed attempt(s)");
                    LOG.infof("Run %s: state stored again after %d failed attempt(s)", plan.runId(), ctx.persistFailures);
                    ctx.persistFailures = 0;
                }
            }
            return true;
        } catch (RuntimeException e) {
            if (e instanceof ConflictException x && x.reason() == ConflictException.Reason.STATE_CONFLICT) {
                // The state itself cannot be stored (a type conflict with the stored partial state):
                // keep the stored state, never retry the same change.
                ctx.log.line("service", "state from the loader not stored: " + e.getMessage());
                ctx.warnings.add("a state from the loader could not be merged with the stored state and was not"
                        + " stored: " + e.getMessage());
                return true;
            }
            checkpointer.restore(c);
            if (ctx.persistFailures++ == 0) {
                ctx.log.line("service", "storing state failed, will retry: " + RunThreads.rootMessage(e));
                LOG.warnf("Run %s: storing state failed, will retry: %s", plan.runId(), RunThreads.rootMessage(e));
            }
            return false;
        }
    }

    /**
     * Stores a state from outside the relay (what Meltano wrote) as a RUN change, with the heartbeat.
     *
     * @return false when this replica no longer owns the run (nothing stored)
     */
    boolean storeState(RunPlan plan, MeltanoState state, String action) {
        return states.runTransaction(plan.stateId(), () -> {
            if (!owned(plan.runId())) {
                return false;
            }
            Snapshot s = states.write(plan.stateId(), new Origin(Origin.Source.RUN,
                    action, "run", plan.runId()), ExpectedVersion.none(), false, current -> state);
            runs.recordStateAfter(plan.runId(), merged(s.state()), null, null);
            return true;
        });
    }

    /** Logs that the run was taken over by another replica, and stops it. */
    static void lost(ActiveRun ctx, String what) {
        ctx.log.line("service", "this replica no longer owns the run (heartbeat lost); " + what);
        ctx.requestStop(ActiveRun.StopReason.LOST, "the run was failed by another replica (heartbeat lost)");
    }

    private boolean owned(UUID runId) {
        return !runs.heartbeat(List.of(runId), instance.get(), OffsetDateTime.now(clock)).isEmpty();
    }

    /** {"streams": {name: {records, schemas, activateVersions, batches, bytes}}, "states": n, "lines": n}. */
    static ObjectNode countsJson(StreamCounts counts) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode streams = root.putObject("streams");
        counts.streams().forEach((name, c) -> {
            ObjectNode s = streams.putObject(name);
            s.put("records", c.records());
            s.put("schemas", c.schemas());
            s.put("activateVersions", c.activateVersions());
            s.put("batches", c.batches());
            s.put("bytes", c.bytes());
        });
        root.put("states", counts.total().states());
        root.put("lines", counts.lines());
        return root;
    }

    /** The merged state as compact JSON, or null when it cannot be merged. */
    static String merged(MeltanoState s) {
        try {
            return PythonJson.write(s.merged(), PythonJson.Layout.COMPACT);
        } catch (StateConflictException e) {
            return null;
        }
    }
}
