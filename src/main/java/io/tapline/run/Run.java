package io.tapline.run;

import io.tapline.common.api.UuidV7;
import io.tapline.invocation.FailureType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One execution of a pipeline ({@code pipeline_run}). Status changes go through the guarded
 * updates of {@link RunRepository}, never through setters on a loaded entity; JSON-valued
 * columns hold text (see the V3 migration).
 */
@Entity
@Table(name = "pipeline_run")
public class Run {

    /** UUIDv7: time-ordered, so the primary key is also the "newest first" order. */
    @Id
    public UUID id;

    @Column(name = "pipeline_id")
    public Long pipelineId;

    @Column(name = "pipeline_name", nullable = false, length = 100)
    public String pipelineName;

    @Column(name = "state_id", nullable = false, length = 900)
    public String stateId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 16)
    public RunTrigger trigger;

    @Column(name = "scheduled_for")
    public OffsetDateTime scheduledFor;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 16)
    public RunStatus status;

    @Column(nullable = false)
    public int attempt = 1;

    @Column(name = "retry_of")
    public UUID retryOf;

    /** A queued run is not started before this time (retry backoff). */
    @Column(name = "not_before")
    public OffsetDateTime notBefore;

    @Column(name = "full_refresh", nullable = false)
    public boolean fullRefresh;

    /** JSON array of stream names whose bookmarks are dropped for this run. */
    @Column(name = "full_refresh_streams", nullable = false)
    public String fullRefreshStreams = "[]";

    @Column(name = "state_strategy", nullable = false, length = 16)
    public String stateStrategy = "auto";

    @Column(name = "state_commit_policy", nullable = false, length = 16)
    public String stateCommitPolicy = "CHECKPOINT";

    @Column(name = "queued_at", nullable = false)
    public OffsetDateTime queuedAt;

    @Column(name = "started_at")
    public OffsetDateTime startedAt;

    @Column(name = "ended_at")
    public OffsetDateTime endedAt;

    @Column(name = "last_heartbeat_at")
    public OffsetDateTime lastHeartbeatAt;

    @Column(name = "owner_instance", length = 200)
    public String ownerInstance;

    @Column(name = "cancel_requested_at")
    public OffsetDateTime cancelRequestedAt;

    @Column(name = "cancel_reason", length = 200)
    public String cancelReason;

    @Column(name = "failed_component", length = 16)
    public String failedComponent;

    /** JSON object: component name → exit code. */
    @Column(name = "exit_codes", nullable = false)
    public String exitCodes = "{}";

    @Column(name = "error_summary")
    public String errorSummary;

    /** {@link FailureType#id()} of a FAILED or CANCELLED run; null otherwise and for older runs. */
    @Column(name = "failure_type", length = 32)
    public String failureType;

    /** Whether a retry of the failed run may help ({@link FailureType}); null when {@link #failureType} is. */
    @Column(name = "failure_retryable")
    public Boolean failureRetryable;

    /** JSON array of warning strings. */
    @Column(nullable = false)
    public String warnings = "[]";

    /**
     * JSON array of {@code {"type", "message"}}: state warnings (state.not_advancing, state.large)
     * written when the run ends by the events outbox through
     * {@link RunRepository#recordStateWarnings} (V72); never written through the entity.
     */
    @Column(name = "state_warnings", nullable = false, insertable = false, updatable = false)
    public String stateWarnings = "[]";

    /** JSON object: stream → counts. */
    @Column(name = "stream_counts", nullable = false)
    public String streamCounts = "{}";

    @Column(name = "records_total", nullable = false)
    public long recordsTotal;

    @Column(name = "bytes_total", nullable = false)
    public long bytesTotal;

    @Column(name = "state_lines", nullable = false)
    public int stateLines;

    @Column(name = "invalid_state_lines", nullable = false)
    public int invalidStateLines;

    /** Merged state (wrapped) when the run started. */
    @Column(name = "state_before")
    public String stateBefore;

    /** Merged state (wrapped) after the last persisted checkpoint. */
    @Column(name = "state_after")
    public String stateAfter;


    /** JSON array of stages: {name, status, startedAt, endedAt, exitCode}. */
    @Column(nullable = false)
    public String stages = "[]";

    @Column(name = "log_tail", nullable = false)
    public String logTail = "";

    @Column(name = "log_bytes", nullable = false)
    public long logBytes;

    @Column(name = "created_by", length = 200)
    public String createdBy;

    /** Who asked to cancel the run (the first one, if several did), or null. */
    @Column(name = "cancelled_by", length = 200)
    public String cancelledBy;

    /**
     * Where the run's catalog came from: {@code user}, {@code cache} or {@code discovered}; null when
     * the extractor takes none (or the run has not reached the catalog stage). Written by the catalog
     * stage only, through the {@code catalog.RunCatalogSources} port (V90), never through the entity.
     */
    @Column(name = "catalog_source", insertable = false, updatable = false, length = 16)
    public String catalogSource;

    /**
     * The run request asked for a fresh catalog discovery ({@code refreshCatalog: true}). Set by
     * {@link RunRepository#requestCatalogRefresh} in the trigger's transaction (V90), never through
     * the entity; read into the run's plan when it starts.
     */
    @Column(name = "refresh_catalog", insertable = false, updatable = false)
    public boolean refreshCatalog;

    @Version
    @Column(nullable = false)
    public long version;

    /**
     * A new QUEUED run of a pipeline, the one factory of run rows (manual, API, retry and schedule
     * triggers alike), written by {@link RunRepository#insertAll}: a fresh UUIDv7 id, queued at
     * {@code now}; attempt 1, no full refresh and the other columns at their defaults, which
     * callers change before the insert (a retry's attempt, a request's full refresh, a tick's
     * {@link #scheduledFor}).
     *
     * @param pipelineId the pipeline's id
     * @param pipelineName its name (kept on the run after the pipeline is deleted)
     * @param stateId its state ID, whose single active slot the run takes
     * @param stateStrategy {@code StateStrategy.id()} of the pipeline
     * @param stateCommitPolicy {@code StateCommitPolicy.name()} of the pipeline
     * @param createdBy the actor who asked (token subject, {@code scheduler}, {@code retry})
     */
    public static Run queued(Long pipelineId, String pipelineName, String stateId, String stateStrategy,
                             String stateCommitPolicy, RunTrigger trigger, String createdBy, OffsetDateTime now) {
        Run run = new Run();
        run.id = UuidV7.next();
        run.pipelineId = pipelineId;
        run.pipelineName = pipelineName;
        run.stateId = stateId;
        run.trigger = trigger;
        run.status = RunStatus.QUEUED;
        run.queuedAt = now;
        run.stateStrategy = stateStrategy;
        run.stateCommitPolicy = stateCommitPolicy;
        run.createdBy = createdBy;
        return run;
    }

    /**
     * Makes this new run a tick that was not executed: SKIPPED with {@code reason} as its error
     * summary, ended when it was queued.
     *
     * @return this run
     */
    public Run skipped(String reason) {
        status = RunStatus.SKIPPED;
        errorSummary = reason;
        endedAt = queuedAt;
        return this;
    }
}
