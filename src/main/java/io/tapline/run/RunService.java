package io.tapline.run;

import io.tapline.audit.AuditService;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.ConflictException.Reason;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.pipeline.StateStrategy;
import io.tapline.run.api.RunRequest;
import io.tapline.run.api.RunResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Run administration: trigger (claiming the state ID's single active slot in the database),
 * read, list and cancel. Execution itself is done by {@link RunDispatcher} and
 * {@link io.tapline.run.exec.RunExecutor}; every end goes through {@link RunEndService}.
 */
@ApplicationScoped
@Transactional
public class RunService {

    private final RunRepository runs;
    private final PipelineRepository pipelines;
    private final Clock clock;
    private final Event<RunQueued> queued;
    private final Event<CancelRequested> cancels;
    private final TaplineConfig config;
    private final AuditService audit;
    private final RunEndService ends;
    private final RunListQuery lists;

    public RunService(RunRepository runs, PipelineRepository pipelines, Clock clock, Event<RunQueued> queued,
                      Event<CancelRequested> cancels, TaplineConfig config, AuditService audit, RunEndService ends,
                      RunListQuery lists) {
        this.lists = lists;
        this.audit = audit;
        this.ends = ends;
        this.runs = runs;
        this.pipelines = pipelines;
        this.clock = clock;
        this.queued = queued;
        this.cancels = cancels;
        this.config = config;
    }

    /** Fired (after commit) when a run was queued, so the local dispatcher claims it at once. */
    public record RunQueued(UUID id) {
    }

    /** Fired (after commit) when a cancel of a running run was requested, so a local run stops at once. */
    public record CancelRequested(UUID id, String reason) {
    }

    /**
     * Queues a run of a pipeline.
     *
     * @param actor who asked (token subject, or "scheduler")
     * @throws DomainException 404 unknown pipeline, 400 invalid request, 409 naming the active run
     */
    public RunResponse trigger(String pipelineName, RunRequest req, RunTrigger trigger, String actor) {
        Pipeline p = pipelines.findByName(pipelineName)
                .orElseThrow(() -> new NotFoundException("Pipeline", pipelineName));
        RunRequest r = req == null ? new RunRequest(null, null, null, null, null) : req;
        List<String> frStreams = r.fullRefreshStreams() == null ? List.of() : r.fullRefreshStreams();
        for (int i = 0; i < frStreams.size(); i++) {
            String s = frStreams.get(i);
            if (s == null || s.isEmpty() || s.length() > 1000 || s.indexOf('\0') >= 0) {
                throw InvalidInputException.field("fullRefreshStreams[" + i + "]", "must be a stream name");
            }
        }
        StateStrategy strategy = r.stateStrategy() == null ? p.stateStrategy : StateStrategy.parse(r.stateStrategy());
        Run run = newRun(p, trigger, actor);
        run.fullRefresh = Boolean.TRUE.equals(r.fullRefresh());
        run.fullRefreshStreams = Jsons.write(frStreams);
        run.stateStrategy = strategy.id();
        if (!runs.insertIfSlotFree(run)) {
            Optional<Run> active = runs.findActive(p.stateId);
            if (active.isPresent() && Boolean.TRUE.equals(r.force()) && release(active.get(), run.id)) {
                if (!runs.insertIfSlotFree(run)) {
                    throw busy(p, runs.findActive(p.stateId).orElse(null));
                }
            } else {
                throw busy(p, active.orElse(null));
            }
        }
        if (Boolean.TRUE.equals(r.refreshCatalog())) {
            runs.requestCatalogRefresh(run.id);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("runId", run.id.toString());
        details.put("trigger", trigger.name());
        details.put("stateId", p.stateId);
        details.put("fullRefresh", run.fullRefresh);
        if (!frStreams.isEmpty()) {
            details.put("fullRefreshStreams", frStreams);
        }
        details.put("stateStrategy", run.stateStrategy);
        if (Boolean.TRUE.equals(r.refreshCatalog())) {
            details.put("refreshCatalog", true);
        }
        if (Boolean.TRUE.equals(r.force())) {
            details.put("force", true);
        }
        audit.record(actor, "run.trigger", "pipeline", p.name, details);
        queued.fire(new RunQueued(run.id));
        return RunMapper.toResponse(runs.findById(run.id));
    }

    /**
     * Queues a retry of a failed run, due after {@code delay}.
     *
     * @return the new run's id, or empty when the state ID is busy
     */
    public Optional<UUID> queueRetry(Run failed, Pipeline p, Duration delay) {
        Run run = newRun(p, RunTrigger.RETRY, "retry");
        run.attempt = failed.attempt + 1;
        run.retryOf = failed.id;
        run.notBefore = OffsetDateTime.now(clock).plus(delay);
        run.fullRefresh = failed.fullRefresh;
        run.fullRefreshStreams = failed.fullRefreshStreams;
        run.stateStrategy = failed.stateStrategy;
        if (!runs.insertIfSlotFree(run)) {
            return Optional.empty();
        }
        queued.fire(new RunQueued(run.id));
        return Optional.of(run.id);
    }

    /** The run, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public RunResponse get(UUID id) {
        return RunMapper.toResponse(find(id));
    }

    /** The entity, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Run find(UUID id) {
        Run r = runs.findById(id);
        if (r == null) {
            throw new NotFoundException("Run", id.toString());
        }
        return r;
    }

    /** One page of runs, newest first. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<RunResponse> list(RunListQuery.RunFilter filter, String cursor, int limit) {
        String key = Cursors.decode(cursor);
        UUID before;
        try {
            before = key == null ? null : UUID.fromString(key);
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.field("cursor", "is not a cursor returned by this API");
        }
        return Page.of(lists.page(filter, before, limit + 1), limit, r -> r.id.toString(), RunMapper::toResponse);
    }

    /**
     * Cancels a run: a QUEUED run at once, a RUNNING run by asking its owner to stop its processes
     * (SIGTERM, then SIGKILL after the grace period); the owner marks it CANCELLED.
     *
     * @throws DomainException 404, or 409 when the run already ended
     */
    public RunResponse cancel(UUID id, String actor) {
        Run r = find(id);
        OffsetDateTime now = OffsetDateTime.now(clock);
        String reason = "cancelled by " + actor;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("pipeline", r.pipelineName);
        details.put("statusBefore", r.status.name());
        if (r.status == RunStatus.QUEUED && ends.end(id, RunEnd.Guard.from(RunStatus.QUEUED),
                RunEnd.of(RunStatus.CANCELLED, null, FailureType.CANCELLED, reason))) {
            runs.recordCanceller(id, actor);
            audit.record(actor, "run.cancel", "run", id.toString(), details);
            runs.getEntityManager().refresh(r);
            return RunMapper.toResponse(r);
        }
        if (!runs.requestCancel(id, now, reason)) {
            runs.getEntityManager().refresh(r);
            throw new ConflictException(Reason.INVALID_TRANSITION, "Run " + id + " already ended with status "
                    + r.status + "; only QUEUED and RUNNING runs can be cancelled.").with("runStatus", r.status.name());
        }
        runs.recordCanceller(id, actor);
        audit.record(actor, "run.cancel", "run", id.toString(), details);
        cancels.fire(new CancelRequested(id, reason));
        runs.getEntityManager().refresh(r);
        return RunMapper.toResponse(r);
    }

    private Run newRun(Pipeline p, RunTrigger trigger, String actor) {
        return Run.queued(p.id, p.name, p.stateId, p.stateStrategy.id(), p.stateCommitPolicy.name(), trigger, actor,
                OffsetDateTime.now(clock));
    }

    /** With force: frees the slot held by a queued run or by a run whose heartbeat is lost. */
    private boolean release(Run active, UUID by) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        if (active.status == RunStatus.QUEUED) {
            return ends.end(active.id, RunEnd.Guard.from(RunStatus.QUEUED), RunEnd.of(RunStatus.CANCELLED, null,
                    FailureType.CANCELLED, "superseded by forced run " + by));
        }
        OffsetDateTime deadline = now.minus(config.runner().heartbeatTimeout());
        if (active.lastHeartbeatAt != null && active.lastHeartbeatAt.isBefore(deadline)) {
            return ends.end(active.id, new RunEnd.Guard(RunStatus.RUNNING, null, deadline), RunEnd.of(RunStatus.FAILED,
                    FailedComponent.SERVICE, FailureType.LOST_INSTANCE, "heartbeat lost; superseded by forced run " + by));
        }
        return false;
    }

    private static DomainException busy(Pipeline p, Run active) {
        if (active == null) {
            return new ConflictException(Reason.RUN_ACTIVE, "Another run of state ID '" + p.stateId
                    + "' was just queued; retry.");
        }
        return new ConflictException(Reason.RUN_ACTIVE, "Run " + active.id + " of state ID '" + p.stateId
                + "' is " + active.status + " (pipeline '" + active.pipelineName + "'); a state ID never runs twice at"
                + " once. Wait for it, or cancel it with POST /api/v1/runs/" + active.id + "/cancel.")
                .with("activeRunId", active.id.toString()).with("activeRunStatus", active.status.name());
    }
}
