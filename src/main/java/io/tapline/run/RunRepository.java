package io.tapline.run;

import io.quarkus.hibernate.orm.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;
import io.tapline.common.json.Jsons;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;

import io.tapline.catalog.RunCatalogSources;
import org.hibernate.Session;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Queries and guarded status changes of {@link Run}: every insert and update of {@code pipeline_run}
 * is here, whoever needs it (the trigger and the schedule ticker's batches insert through
 * {@link #insertAll}; the catalog stage records a run's catalog source through the
 * {@link RunCatalogSources} port; the events outbox stores a run's state warnings).
 * Every transition is a compare-and-set on the current status (and, for running runs, on the owner
 * instance) whose {@code status in (:from)} guard comes from {@link RunStatus}'s transition table
 * ({@link RunStatus#allowedFrom}), so an illegal transition matches no row; a result of 0 rows means
 * another replica or request won the race, and the caller must treat it so. The terminal write is
 * {@link #end}, reached only through {@link RunEndService}.
 */
@ApplicationScoped
public class RunRepository implements PanacheRepositoryBase<Run, UUID>, RunCatalogSources {

    /**
     * The one insert of runs: a row per run built by {@link Run#queued}, in the given order, each
     * skipped when it conflicts with a unique index (V3's partial indexes: one QUEUED or RUNNING
     * run per state ID, one run per pipeline and schedule tick), so two replicas inserting at once
     * cannot both succeed. Timestamps are sent as ISO-8601 text, which PostgreSQL rounds to
     * microseconds. Plain JDBC (arrays bound with {@code unnest}) on the ORM session's connection,
     * in the caller's transaction.
     */
    private static final String INSERT = """
            insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, scheduled_for, status,
                attempt, retry_of, not_before, full_refresh, full_refresh_streams, state_strategy,
                state_commit_policy, queued_at, created_by, error_summary, ended_at)
            select t.id, t.pipeline_id, t.name, t.state_id, t.trigger, t.scheduled_for, t.status, t.attempt,
                t.retry_of, t.not_before, t.full_refresh, t.fr_streams, t.strategy, t.policy, t.queued_at,
                t.created_by, t.error, t.ended_at
            from unnest(?::uuid[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::text[],
                    ?::integer[], ?::uuid[], ?::timestamptz[], ?::boolean[], ?::text[], ?::text[], ?::text[],
                    ?::timestamptz[], ?::text[], ?::text[], ?::timestamptz[])
                with ordinality as t(id, pipeline_id, name, state_id, trigger, scheduled_for, status, attempt,
                    retry_of, not_before, full_refresh, fr_streams, strategy, policy, queued_at, created_by, error,
                    ended_at, ord)
            order by t.ord
            on conflict do nothing
            returning id
            """;

    /**
     * Inserts a run unless its state ID already has an active run, or (for scheduled runs) its
     * tick already has a run ({@link #insertAll} of one run, after flushing the session).
     *
     * @return true when inserted
     */
    public boolean insertIfSlotFree(Run r) {
        getEntityManager().flush();
        return insertAll(List.of(r)).contains(r.id);
    }

    /**
     * Inserts new runs (built by {@link Run#queued}) in the given order, skipping each that
     * conflicts with a unique index: another active run of its state ID, or a run of its schedule
     * tick. Callers insert in a fixed order (the ticker: pipeline id, then tick), so two replicas
     * inserting the same runs wait for each other instead of deadlocking.
     *
     * @return the ids of the rows written
     */
    public Set<UUID> insertAll(List<Run> runs) {
        if (runs.isEmpty()) {
            return Set.of();
        }
        return getEntityManager().unwrap(Session.class).doReturningWork(c -> {
            Set<UUID> out = new HashSet<>();
            try (PreparedStatement s = c.prepareStatement(INSERT)) {
                int i = 0;
                s.setArray(++i, array(c, "uuid", runs, r -> r.id));
                s.setArray(++i, array(c, "int8", runs, r -> r.pipelineId));
                s.setArray(++i, array(c, "text", runs, r -> r.pipelineName));
                s.setArray(++i, array(c, "text", runs, r -> r.stateId));
                s.setArray(++i, array(c, "text", runs, r -> r.trigger.name()));
                s.setArray(++i, array(c, "text", runs, r -> text(r.scheduledFor)));
                s.setArray(++i, array(c, "text", runs, r -> r.status.name()));
                s.setArray(++i, array(c, "int4", runs, r -> r.attempt));
                s.setArray(++i, array(c, "uuid", runs, r -> r.retryOf));
                s.setArray(++i, array(c, "text", runs, r -> text(r.notBefore)));
                s.setArray(++i, array(c, "bool", runs, r -> r.fullRefresh));
                s.setArray(++i, array(c, "text", runs, r -> r.fullRefreshStreams));
                s.setArray(++i, array(c, "text", runs, r -> r.stateStrategy));
                s.setArray(++i, array(c, "text", runs, r -> r.stateCommitPolicy));
                s.setArray(++i, array(c, "text", runs, r -> text(r.queuedAt)));
                s.setArray(++i, array(c, "text", runs, r -> r.createdBy));
                s.setArray(++i, array(c, "text", runs, r -> r.errorSummary));
                s.setArray(++i, array(c, "text", runs, r -> text(r.endedAt)));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getObject(1, UUID.class));
                    }
                }
            }
            return out;
        });
    }

    private static Array array(Connection c, String type, List<Run> runs, Function<Run, Object> column)
            throws SQLException {
        return c.createArrayOf(type, runs.stream().map(column).toArray());
    }

    /** ISO-8601 text of a time, which PostgreSQL reads as {@code timestamptz}; null stays null. */
    private static String text(OffsetDateTime t) {
        return t == null ? null : t.toInstant().toString();
    }

    /** Marks a run just inserted as asking for a fresh catalog discovery ({@code refreshCatalog: true}). */
    public void requestCatalogRefresh(UUID id) {
        getEntityManager().createNativeQuery("update pipeline_run set refresh_catalog = true where id = :id")
                .setParameter("id", id).executeUpdate();
    }

    /** The QUEUED or RUNNING run of a state ID, if any. */
    public Optional<Run> findActive(String stateId) {
        return find("stateId = ?1 and status in ?2", stateId, RunStatus.ACTIVE).firstResultOptional();
    }

    /**
     * Claims up to {@code limit} due QUEUED runs for {@code instance} (QUEUED → RUNNING), oldest
     * first, in one statement, skipping rows another replica is claiming at the same moment
     * ({@code FOR UPDATE SKIP LOCKED}); each run is claimed by exactly one replica.
     *
     * @param limit how many runs this replica can start now (its free slots), at least 1
     * {@code started_at} is {@code now}, or the run's {@code queued_at} when that is later (a tick
     * recorded by another thread or replica a few milliseconds after this claimer read its clock).
     *
     * @return the claimed runs' ids, oldest first; fewer than {@code limit} when no more were due
     */
    public List<UUID> claimDue(String instance, OffsetDateTime now, int limit) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                with due as materialized (
                    select id from pipeline_run
                    where status in (:from) and (not_before is null or not_before <= :now)
                    order by queued_at limit :limit for update skip locked),
                claimed as (
                    update pipeline_run r set status = :running, owner_instance = :owner, started_at = greatest(:now, r.queued_at),
                        last_heartbeat_at = :now, version = r.version + 1
                    from due where r.id = due.id and r.status in (:from)
                    returning r.id, r.queued_at)
                select id from claimed order by queued_at
                """, UUID.class)
                .setParameter("running", RunStatus.RUNNING.name())
                .setParameter("from", RunStatus.allowedFrom(RunStatus.RUNNING))
                .setParameter("owner", instance)
                .setParameter("now", now)
                .setParameter("limit", limit)
                .getResultList();
        return ids;
    }

    /**
     * Claims one run by id for {@code instance} (QUEUED → RUNNING), as {@link #claimDue} does,
     * when it is QUEUED and due; used by runner mode ({@code run <run-id>}).
     *
     * @return true when this call claimed it
     */
    public boolean claim(UUID id, String instance, OffsetDateTime now) {
        return getEntityManager().createNativeQuery("""
                update pipeline_run set status = :running, owner_instance = :owner,
                    started_at = greatest(:now, queued_at),
                    last_heartbeat_at = :now, version = version + 1
                where id = :id and status in (:from) and (not_before is null or not_before <= :now)
                """)
                .setParameter("running", RunStatus.RUNNING.name())
                .setParameter("from", RunStatus.allowedFrom(RunStatus.RUNNING))
                .setParameter("owner", instance).setParameter("now", now).setParameter("id", id)
                .executeUpdate() == 1;
    }

    /**
     * Hands a RUNNING run from owner {@code from} to owner {@code to} (compare-and-set on both), and
     * refreshes its heartbeat: the claiming replica hands a run to its Job ({@code job:<name>}),
     * and the runner in the Job's pod takes it from there.
     *
     * @return true when this call moved it
     */
    public boolean handOver(UUID id, String from, String to, OffsetDateTime now) {
        return getEntityManager().createNativeQuery("""
                update pipeline_run set owner_instance = :to, last_heartbeat_at = :now, version = version + 1
                where id = :id and status = :running and owner_instance = :previous
                """)
                .setParameter("running", RunStatus.RUNNING.name()).setParameter("previous", from).setParameter("to", to)
                .setParameter("now", now).setParameter("id", id)
                .executeUpdate() == 1;
    }

    /** The RUNNING runs whose owner starts with {@code prefix} (runs handed to Jobs: {@code job:}). */
    public List<Run> runningOwnedLike(String prefix) {
        return find("status = ?1 and ownerInstance like ?2", RunStatus.RUNNING, prefix + "%").list();
    }

    /**
     * Refreshes the heartbeat of the given RUNNING runs owned by {@code instance}.
     *
     * @return the ids still RUNNING and owned (a missing id was reaped or finished elsewhere)
     */
    public List<UUID> heartbeat(Collection<UUID> ids, String instance, OffsetDateTime now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<UUID> alive = getEntityManager().createNativeQuery("""
                update pipeline_run set last_heartbeat_at = :now
                where id in (:ids) and status = :running and owner_instance = :owner
                returning id
                """, UUID.class)
                .setParameter("running", RunStatus.RUNNING.name()).setParameter("now", now).setParameter("ids", ids).setParameter("owner", instance)
                .getResultList();
        return new ArrayList<>(alive);
    }

    /** Ids among {@code ids} whose cancellation was requested. */
    public List<UUID> cancelRequested(Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return getEntityManager().createQuery(
                        "select r.id from Run r where r.id in :ids and r.cancelRequestedAt is not null", UUID.class)
                .setParameter("ids", ids).getResultList();
    }

    /**
     * The RUNNING runs whose heartbeat is older than {@code deadline}, whatever their owner, except
     * {@code excluded} (this replica's own runs, which it is still finishing); the reaper ends each
     * through {@link RunEndService#end} with a guard on the same deadline.
     */
    public List<UUID> staleRunning(OffsetDateTime deadline, Collection<UUID> excluded) {
        return getEntityManager().createQuery("select r.id from Run r where r.status = :running"
                        + " and r.lastHeartbeatAt < :deadline order by r.lastHeartbeatAt", UUID.class)
                .setParameter("running", RunStatus.RUNNING).setParameter("deadline", deadline)
                .getResultList().stream().filter(id -> !excluded.contains(id)).toList();
    }

    /**
     * The one terminal write of a run: moves it from {@code guard.from()} to {@code end.status()}
     * (checked against {@link RunStatus#canMoveTo}), with its end time, failure and, when given, exit
     * codes, warnings, log tail and stages. A compare-and-set on the status and, when the guard
     * says so, on the owner instance and a stale heartbeat. Called only by {@link RunEndService},
     * which fires the run-ended events.
     *
     * @return true when this call ended the run (false: another replica or request won the race)
     * @throws IllegalArgumentException when the transition is not allowed
     */
    boolean end(UUID id, RunEnd.Guard guard, RunEnd end, OffsetDateTime now) {
        List<String> from = RunStatus.allowedFrom(end.status(), Set.of(guard.from()));
        RunEnd.Counts c = end.counts();
        return getEntityManager().createNativeQuery("""
                update pipeline_run set status = :to, ended_at = :now,
                    failed_component = :component, error_summary = coalesce(cast(:reason as text), error_summary),
                    failure_type = :type, failure_retryable = :retryable,
                    exit_codes = coalesce(cast(:codes as text), exit_codes),
                    warnings = coalesce(cast(:warnings as text), warnings),
                    log_tail = coalesce(cast(:tail as text), log_tail),
                    log_bytes = coalesce(cast(:bytes as bigint), log_bytes),
                    stages = coalesce(cast(:stages as text), stages),
                    stream_counts = coalesce(cast(:counts as text), stream_counts),
                    records_total = coalesce(cast(:records as bigint), records_total),
                    bytes_total = coalesce(cast(:relayed as bigint), bytes_total),
                    state_lines = coalesce(cast(:lines as integer), state_lines),
                    invalid_state_lines = coalesce(cast(:invalid as integer), invalid_state_lines),
                    last_heartbeat_at = case when status = :running and cast(:owner as text) is not null
                        then :now else last_heartbeat_at end,
                    version = version + 1
                where id = :id and status in (:from)
                  and (cast(:owner as text) is null or owner_instance = cast(:owner as text))
                  and (cast(:before as timestamptz) is null or last_heartbeat_at < cast(:before as timestamptz))
                """)
                .setParameter("to", end.status().name()).setParameter("now", now)
                .setParameter("component", end.component() == null ? null : end.component().id())
                .setParameter("reason", end.reason())
                .setParameter("type", end.type() == null ? null : end.type().id())
                .setParameter("retryable", end.type() == null ? null : end.retryable())
                .setParameter("codes", end.exitCodes() == null ? null : Jsons.write(end.exitCodes()))
                .setParameter("warnings", end.warnings() == null ? null : Jsons.write(end.warnings()))
                .setParameter("tail", end.logTail()).setParameter("bytes", end.logBytes())
                .setParameter("stages", end.stages())
                .setParameter("counts", c == null ? null : c.streams())
                .setParameter("records", c == null ? null : c.records())
                .setParameter("relayed", c == null ? null : c.bytes())
                .setParameter("lines", c == null ? null : c.stateLines())
                .setParameter("invalid", c == null ? null : c.invalidStateLines())
                .setParameter("running", RunStatus.RUNNING.name())
                .setParameter("owner", guard.owner()).setParameter("before", guard.heartbeatBefore())
                .setParameter("id", id).setParameter("from", from)
                .executeUpdate() == 1;
    }

    /**
     * Writes the true outcome onto a run of {@code owner} that another replica's reaper already
     * failed as {@code reapedReason} while its owner could not reach the database (the status, and
     * so the retry decision, stay as they are): the owner's reason (unless the owner only learnt
     * that it was reaped), exit codes, warnings, log tail, stages and counts.
     *
     * @return true when the row was such a reaped run and now carries the outcome
     */
    public boolean amendReaped(UUID id, String owner, String reapedReason, RunEnd end) {
        return getEntityManager().createNativeQuery("""
                update pipeline_run set failed_component = :component,
                    error_summary = coalesce(cast(:reason as text) || ' (recorded by its owner after the run had'
                        || ' been reaped: ' || error_summary || ')', error_summary),
                    exit_codes = coalesce(cast(:codes as text), exit_codes),
                    warnings = coalesce(cast(:warnings as text), warnings),
                    log_tail = coalesce(cast(:tail as text), log_tail),
                    stages = coalesce(cast(:stages as text), stages),
                    stream_counts = coalesce(cast(:counts as text), stream_counts),
                    records_total = coalesce(cast(:records as bigint), records_total),
                    bytes_total = coalesce(cast(:relayed as bigint), bytes_total), version = version + 1
                where id = :id and status = :failed and owner_instance = :owner and error_summary = :reaped
                """)
                .setParameter("component", end.component() == null ? FailedComponent.SERVICE.id() : end.component().id())
                .setParameter("reason", end.type() == FailureType.LOST_INSTANCE ? null : end.reason() == null
                        ? "the run itself " + end.status().name().toLowerCase(java.util.Locale.ROOT) : end.reason())
                .setParameter("codes", end.exitCodes() == null ? null : Jsons.write(end.exitCodes()))
                .setParameter("warnings", end.warnings() == null ? null : Jsons.write(end.warnings()))
                .setParameter("tail", end.logTail()).setParameter("stages", end.stages())
                .setParameter("counts", end.counts() == null ? null : end.counts().streams())
                .setParameter("records", end.counts() == null ? null : end.counts().records())
                .setParameter("relayed", end.counts() == null ? null : end.counts().bytes())
                .setParameter("id", id).setParameter("failed", RunStatus.FAILED.name()).setParameter("owner", owner)
                .setParameter("reaped", reapedReason).executeUpdate() == 1;
    }

    /**
     * Marks a run whose extractor was not given the stored bookmarks because it lacks the
     * {@code state} capability ({@code state_not_passed}).
     */
    public void recordStateNotPassed(UUID id) {
        getEntityManager().createNativeQuery("update pipeline_run set state_not_passed = true where id = :id")
                .setParameter("id", id).executeUpdate();
    }

    /** Records which catalog a run used ({@code user}, {@code cache} or {@code discovered}), in the caller's transaction. */
    @Override
    public void recordCatalogSource(UUID runId, String source) {
        getEntityManager().createNativeQuery("update pipeline_run set catalog_source = :s where id = :id")
                .setParameter("s", source).setParameter("id", runId).executeUpdate();
    }

    /** Stores the state warnings of an ended run (JSON array of {@code {"type", "message"}}) in {@code state_warnings}. */
    public void recordStateWarnings(UUID runId, String json) {
        getEntityManager().createNativeQuery("update pipeline_run set state_warnings = :w where id = :id")
                .setParameter("w", json).setParameter("id", runId).executeUpdate();
    }

    /** Records the merged state a run started from (wrapped, compact), or null for none. */
    public void recordStateBefore(UUID id, String stateBefore) {
        getEntityManager().createNativeQuery("update pipeline_run set state_before = :s where id = :id")
                .setParameter("s", stateBefore).setParameter("id", id).executeUpdate();
    }

    /**
     * Records the merged state after a run's last stored checkpoint, and (when not null) its count of
     * valid and invalid state lines.
     */
    public void recordStateAfter(UUID id, String stateAfter, Integer stateLines, Integer invalidStateLines) {
        getEntityManager().createNativeQuery("""
                update pipeline_run set state_after = :s, state_lines = coalesce(cast(:n as integer), state_lines),
                    invalid_state_lines = coalesce(cast(:i as integer), invalid_state_lines)
                where id = :id
                """).setParameter("s", stateAfter).setParameter("n", stateLines)
                .setParameter("i", invalidStateLines).setParameter("id", id).executeUpdate();
    }

    /** Records the live view of a running run (heartbeat): log tail and size, and the counts so far. */
    public void recordProgress(UUID id, String logTail, long logBytes, String streamCounts, long records, long bytes) {
        getEntityManager().createNativeQuery("""
                update pipeline_run set log_tail = :t, log_bytes = :lb, records_total = :r, bytes_total = :b,
                    stream_counts = :c
                where id = :id and status = :running
                """).setParameter("t", logTail).setParameter("lb", logBytes).setParameter("r", records)
                .setParameter("b", bytes).setParameter("c", streamCounts).setParameter("id", id)
                .setParameter("running", RunStatus.RUNNING.name()).executeUpdate();
    }

    /** Records who cancelled a run (the first canceller is kept). */
    public void recordCanceller(UUID id, String actor) {
        getEntityManager().createNativeQuery("update pipeline_run set cancelled_by = coalesce(cancelled_by, :actor)"
                + " where id = :id").setParameter("actor", actor).setParameter("id", id).executeUpdate();
    }

    /** Records a cancel request on an active run; true when the run was active. */
    public boolean requestCancel(UUID id, OffsetDateTime now, String reason) {
        return getEntityManager().createNativeQuery("""
                update pipeline_run set cancel_requested_at = coalesce(cancel_requested_at, :now),
                    cancel_reason = coalesce(cancel_reason, :reason), version = version + 1
                where id = :id and status in (:active)
                """).setParameter("active", RunStatus.ACTIVE.stream().map(Enum::name).toList()).setParameter("now", now).setParameter("reason", reason).setParameter("id", id)
                .executeUpdate() == 1;
    }

    /** Names of the pipelines that have runs (including deleted pipelines, whose runs keep the name). */
    public List<String> pipelineNamesWithRuns() {
        return getEntityManager().createNativeQuery("select distinct pipeline_name from pipeline_run", String.class)
                .getResultList();
    }

    /**
     * The id of the {@code n}-th newest run of a pipeline (n >= 1), or empty when it has fewer
     * than {@code n} runs. Runs older than it are beyond the newest {@code n}.
     */
    public Optional<UUID> nthNewestId(String pipelineName, int n) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                select id from pipeline_run where pipeline_name = :name order by id desc offset :skip limit 1
                """, UUID.class)
                .setParameter("name", pipelineName).setParameter("skip", n - 1).getResultList();
        return ids.stream().findFirst();
    }

    /**
     * Deletes up to {@code limit} terminal runs of a pipeline whose ids are below both bounds,
     * oldest first, skipping rows another transaction holds ({@code FOR UPDATE SKIP LOCKED}), so a
     * run being finished or cancelled meanwhile is left for the next sweep and nobody waits.
     *
     * @return the ids deleted
     */
    public List<UUID> deleteTerminalBefore(String pipelineName, UUID createdBefore, UUID olderThan, int limit) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = getEntityManager().createNativeQuery("""
                delete from pipeline_run where id in (
                    select id from pipeline_run
                    where pipeline_name = :name and id < :createdBefore and id < :olderThan
                      and status in (:terminal)
                    order by id limit :limit
                    for update skip locked)
                returning id
                """, UUID.class)
                .setParameter("terminal", RunStatus.TERMINAL.stream().map(Enum::name).toList())
                .setParameter("name", pipelineName).setParameter("createdBefore", createdBefore)
                .setParameter("olderThan", olderThan).setParameter("limit", limit).getResultList();
        return ids;
    }
}
