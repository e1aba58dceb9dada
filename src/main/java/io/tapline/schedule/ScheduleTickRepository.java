package io.tapline.schedule;

import io.tapline.common.api.UuidV7;
import io.tapline.run.RunService;
import io.tapline.run.RunStatus;
import io.tapline.run.RunTrigger;
import io.tapline.schedule.ScheduleStore.Fire;
import io.tapline.schedule.ScheduleStore.Outcome;
import io.tapline.schedule.ScheduleStore.Tick;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.hibernate.Session;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Records many schedule ticks with a few set-based statements in the caller's transaction (plain
 * JDBC on the ORM session's connection, arrays bound with {@code unnest}):
 * <ol>
 *   <li>the pipelines' rows, {@code FOR SHARE} (an edit commits before or after the tick, never in
 *   between): a tick whose pipeline is gone, paused or of another version is {@link Outcome#STALE};</li>
 *   <li>one multi-row {@code INSERT ... ON CONFLICT DO NOTHING RETURNING} of QUEUED runs against the
 *   unique indexes {@code uq_run_schedule_tick} (one run per pipeline and tick, across replicas) and
 *   {@code uq_run_active_state_id} (one QUEUED or RUNNING run per state ID);</li>
 *   <li>for the conflicts: the active runs of their state IDs, and one insert of SKIPPED runs naming
 *   them; a SKIPPED insert that conflicts on the tick, or a tick already taken, is
 *   {@link Outcome#ALREADY_FIRED};</li>
 *   <li>a conflict whose active run ended meanwhile is tried again (three rounds, as one tick was).</li>
 * </ol>
 * Rows are inserted in (pipeline id, tick) order, so two replicas recording the same ticks wait for
 * each other instead of deadlocking; the database, not this class, keeps each tick to one row.
 * Fires {@link RunService.RunQueued} (observed after commit) for each queued run.
 */
@ApplicationScoped
public class ScheduleTickRepository {

    /** The statuses holding a state ID's slot, as SQL literals (so the partial index applies). */
    private static final String ACTIVE = RunStatus.ACTIVE.stream().map(s -> "'" + s.name() + "'")
            .collect(Collectors.joining(", "));

    private static final String LOCK_PIPELINES = """
            select id, version, schedule_enabled, name, state_id, state_strategy, state_commit_policy
            from pipeline where id = any(?) order by id for share
            """;

    private static final String INSERT_RUNS = """
            insert into pipeline_run (id, pipeline_id, pipeline_name, state_id, trigger, scheduled_for, status,
                state_strategy, state_commit_policy, queued_at, created_by, error_summary, ended_at)
            select t.id, t.pipeline_id, t.name, t.state_id, ?::text, t.scheduled_for, ?::text, t.strategy, t.policy,
                ?::timestamptz, ?::text, t.error, ?::timestamptz
            from unnest(?::uuid[], ?::bigint[], ?::text[], ?::text[], ?::timestamptz[], ?::text[], ?::text[], ?::text[])
                with ordinality as t(id, pipeline_id, name, state_id, scheduled_for, strategy, policy, error, ord)
            order by t.ord
            on conflict do nothing
            returning id
            """;

    /** The advisory-lock class of schedule batches (catalog discoveries use 160,016). */
    static final int BATCH_LOCK_CLASS = 160_017;

    private static final String ACTIVE_RUNS = "select state_id, id, pipeline_name, status from pipeline_run"
            + " where state_id = any(?) and status in (" + ACTIVE + ")";

    private static final String TAKEN_TICKS = """
            select r.pipeline_id, r.scheduled_for from pipeline_run r
            join unnest(?::bigint[], ?::timestamptz[]) as t(pipeline_id, scheduled_for)
              on r.pipeline_id = t.pipeline_id and r.scheduled_for = t.scheduled_for
            where r.scheduled_for is not null
            """;

    private final EntityManager em;
    private final Event<RunService.RunQueued> queued;
    private final Clock clock;

    public ScheduleTickRepository(EntityManager em, Event<RunService.RunQueued> queued, Clock clock) {
        this.em = em;
        this.queued = queued;
        this.clock = clock;
    }

    /** A tick being recorded: the pipeline's stored row (from the lock query) and the run to write. */
    private static final class Pending {
        final int index;
        final Tick tick;
        String name;
        String stateId;
        String strategy;
        String policy;
        UUID runId;
        String error;

        Pending(int index, Tick tick) {
            this.index = index;
            this.tick = tick;
        }
    }

    /**
     * Claims a batch of ticks for the caller's transaction: {@code pg_try_advisory_xact_lock(}{@value
     * #BATCH_LOCK_CLASS}{@code , key)}, the key a hash of the ticks, so two replicas holding the same
     * due pipelines do not record the same batch at once; released at commit or rollback. The
     * two-int key space never meets the state IDs' bigint locks.
     *
     * @return false when another transaction holds the claim (nothing is locked then)
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public boolean claim(List<Tick> ticks) {
        if (ticks.isEmpty()) {
            return true;
        }
        Object claimed = em.createNativeQuery("select pg_try_advisory_xact_lock(:class, :key)")
                .setParameter("class", BATCH_LOCK_CLASS).setParameter("key", batchKey(ticks)).getSingleResult();
        return Boolean.TRUE.equals(claimed);
    }

    /** The advisory-lock object of a batch: a hash of its ticks (a collision only makes a replica record one batch later). */
    static int batchKey(List<Tick> ticks) {
        long h = ticks.size();
        for (Tick t : ticks) {
            h = 31 * h + t.pipeline().id();
            h = 31 * h + t.at().getEpochSecond();
            h = 31 * h + t.at().getNano();
        }
        return Long.hashCode(h);
    }

    /**
     * Records {@code ticks} in the caller's transaction, with {@link ScheduleStore#fire}'s contract
     * for each.
     *
     * @param ticks at most one tick per pipeline is usual; several of one pipeline are recorded in
     *              time order
     * @return one {@link Fire} per tick, in the order given
     * @throws IllegalStateException when a state ID's slot kept changing during three rounds
     *                               (nothing of the transaction should then be committed)
     * @throws RuntimeException on database errors
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public List<Fire> record(List<Tick> ticks) {
        Fire[] out = new Fire[ticks.size()];
        if (ticks.isEmpty()) {
            return List.of();
        }
        em.unwrap(Session.class).doWork(c -> recordOn(c, ticks, out));
        return Arrays.asList(out);
    }

    private void recordOn(Connection c, List<Tick> ticks, Fire[] out) throws SQLException {
        List<Pending> pending = new ArrayList<>();
        for (int i = 0; i < ticks.size(); i++) {
            pending.add(new Pending(i, ticks.get(i)));
        }
        pending.sort(Comparator.comparingLong((Pending p) -> p.tick.pipeline().id()).thenComparing(p -> p.tick.at()));
        pending = lockFresh(c, pending, out);
        pending = notTaken(c, pending, out);
        for (int round = 0; round < 3 && !pending.isEmpty(); round++) {
            pending.forEach(p -> {
                p.runId = UuidV7.next();
                p.error = null;
            });
            Set<UUID> inserted = insert(c, RunStatus.QUEUED, pending);
            List<Pending> conflicts = new ArrayList<>();
            for (Pending p : pending) {
                if (inserted.contains(p.runId)) {
                    out[p.index] = new Fire(Outcome.QUEUED, p.runId);
                    queued.fire(new RunService.RunQueued(p.runId));
                } else {
                    conflicts.add(p);
                }
            }
            pending = skipBusy(c, conflicts, out);
        }
        if (!pending.isEmpty()) {
            Pending p = pending.get(0);
            throw new IllegalStateException("the run slot of state ID '" + p.stateId + "' kept changing while firing"
                    + " tick " + p.tick.at() + " of pipeline '" + p.name + "'");
        }
    }

    /** Locks the pipelines' rows; marks STALE the ticks of gone, paused or changed ones and returns the rest. */
    private List<Pending> lockFresh(Connection c, List<Pending> pending, Fire[] out) throws SQLException {
        Map<Long, Object[]> rows = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(LOCK_PIPELINES)) {
            s.setArray(1, c.createArrayOf("int8",
                    pending.stream().map(p -> p.tick.pipeline().id()).distinct().toArray(Long[]::new)));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getLong(1), new Object[]{rs.getLong(2), rs.getBoolean(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getString(7)});
                }
            }
        }
        List<Pending> fresh = new ArrayList<>();
        for (Pending p : pending) {
            Object[] row = rows.get(p.tick.pipeline().id());
            if (row == null || (long) row[0] != p.tick.pipeline().version() || !(boolean) row[1]) {
                out[p.index] = new Fire(Outcome.STALE, null);
                continue;
            }
            p.name = (String) row[2];
            p.stateId = (String) row[3];
            p.strategy = (String) row[4];
            p.policy = (String) row[5];
            fresh.add(p);
        }
        return fresh;
    }

    /**
     * Marks ALREADY_FIRED the ticks that have their row already (another replica recorded them and
     * committed) and returns the rest: one indexed look-up instead of inserts that would all
     * conflict. A tick recorded elsewhere after this look-up still conflicts in the insert.
     */
    private List<Pending> notTaken(Connection c, List<Pending> pending, Fire[] out) throws SQLException {
        Set<String> taken = takenTicks(c, pending);
        if (taken.isEmpty()) {
            return pending;
        }
        List<Pending> rest = new ArrayList<>();
        for (Pending p : pending) {
            if (taken.contains(tickKey(p))) {
                out[p.index] = new Fire(Outcome.ALREADY_FIRED, null);
            } else {
                rest.add(p);
            }
        }
        return rest;
    }

    /**
     * For ticks whose QUEUED insert conflicted: a SKIPPED run naming the state ID's active run, or
     * ALREADY_FIRED when the tick has its row already.
     *
     * @return the ticks to try again (no active run any more and the tick still free)
     */
    private List<Pending> skipBusy(Connection c, List<Pending> conflicts, Fire[] out) throws SQLException {
        if (conflicts.isEmpty()) {
            return conflicts;
        }
        Map<String, String> activeRun = activeRuns(c, conflicts);
        List<Pending> busy = new ArrayList<>();
        List<Pending> free = new ArrayList<>();
        for (Pending p : conflicts) {
            String reason = activeRun.get(p.stateId);
            if (reason == null) {
                free.add(p);
            } else {
                p.runId = UuidV7.next();
                p.error = reason;
                busy.add(p);
            }
        }
        Set<UUID> skipped = insert(c, RunStatus.SKIPPED, busy);
        for (Pending p : busy) {
            out[p.index] = skipped.contains(p.runId) ? new Fire(Outcome.SKIPPED, p.runId)
                    : new Fire(Outcome.ALREADY_FIRED, null);
        }
        Set<String> taken = takenTicks(c, free);
        List<Pending> again = new ArrayList<>();
        for (Pending p : free) {
            if (taken.contains(tickKey(p))) {
                out[p.index] = new Fire(Outcome.ALREADY_FIRED, null);
            } else {
                again.add(p); // the active run ended between the insert and the look-up
            }
        }
        return again;
    }

    /** State ID → the SKIPPED reason naming its QUEUED or RUNNING run, for the ticks' state IDs. */
    private Map<String, String> activeRuns(Connection c, List<Pending> ticks) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(ACTIVE_RUNS)) {
            s.setArray(1, c.createArrayOf("text", ticks.stream().map(p -> p.stateId).distinct().toArray(String[]::new)));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String stateId = rs.getString(1);
                    out.put(stateId, "Skipped: run " + rs.getObject(2, UUID.class) + " of state ID '" + stateId
                            + "' (pipeline '" + rs.getString(3) + "') was " + rs.getString(4)
                            + " at this tick; a state ID never runs twice at once.");
                }
            }
        }
        return out;
    }

    /** The ticks among {@code ticks} that have a run row, as {@code pipelineId@instant}. */
    private Set<String> takenTicks(Connection c, List<Pending> ticks) throws SQLException {
        Set<String> out = new HashSet<>();
        if (ticks.isEmpty()) {
            return out;
        }
        try (PreparedStatement s = c.prepareStatement(TAKEN_TICKS)) {
            s.setArray(1, c.createArrayOf("int8", ticks.stream().map(p -> p.tick.pipeline().id()).toArray(Long[]::new)));
            s.setArray(2, c.createArrayOf("text", ticks.stream().map(p -> instantText(p.tick.at())).toArray(String[]::new)));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1) + "@" + instantText(rs.getTimestamp(2).toInstant()));
                }
            }
        }
        return out;
    }

    /**
     * The one insert of scheduled runs: a row per tick with {@code status} ({@link RunStatus#QUEUED},
     * or {@link RunStatus#SKIPPED} with its reason and ended at once), trigger SCHEDULE, queued now,
     * skipping rows that conflict with a unique index.
     *
     * @return the ids of the rows written
     */
    private Set<UUID> insert(Connection c, RunStatus status, List<Pending> ticks) throws SQLException {
        Set<UUID> out = new HashSet<>();
        if (ticks.isEmpty()) {
            return out;
        }
        Timestamp now = Timestamp.from(clock.instant());
        try (PreparedStatement s = c.prepareStatement(INSERT_RUNS)) {
            s.setString(1, RunTrigger.SCHEDULE.name());
            s.setString(2, status.name());
            s.setTimestamp(3, now);
            s.setString(4, ScheduleRepository.ACTOR);
            s.setTimestamp(5, status.isTerminal() ? now : null);
            s.setArray(6, c.createArrayOf("uuid", ticks.stream().map(p -> p.runId).toArray(UUID[]::new)));
            s.setArray(7, c.createArrayOf("int8", ticks.stream().map(p -> p.tick.pipeline().id()).toArray(Long[]::new)));
            s.setArray(8, texts(c, ticks, p -> p.name));
            s.setArray(9, texts(c, ticks, p -> p.stateId));
            s.setArray(10, texts(c, ticks, p -> instantText(p.tick.at())));
            s.setArray(11, texts(c, ticks, p -> p.strategy));
            s.setArray(12, texts(c, ticks, p -> p.policy));
            s.setArray(13, texts(c, ticks, p -> p.error));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return out;
    }

    private static Array texts(Connection c, List<Pending> ticks, java.util.function.Function<Pending, String> f)
            throws SQLException {
        return c.createArrayOf("text", ticks.stream().map(f).toArray(String[]::new));
    }

    /** A tick as {@code pipelineId@instant}, the form {@link #takenTicks} returns. */
    private static String tickKey(Pending p) {
        return p.tick.pipeline().id() + "@" + instantText(p.tick.at());
    }

    /** ISO-8601 UTC text of an instant, which PostgreSQL reads as {@code timestamptz}. */
    private static String instantText(Instant t) {
        return t.truncatedTo(ChronoUnit.MICROS).toString();
    }
}
