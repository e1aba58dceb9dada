package io.tapline.schedule;

import io.tapline.run.Run;
import io.tapline.run.RunRepository;
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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
 *   <li>one multi-row insert of QUEUED runs ({@link RunRepository#insertAll}, the owner of every write
 *   of run rows; rows built by {@link Run#queued}) against the unique indexes {@code uq_run_schedule_tick} (one run per pipeline and tick, across replicas) and
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
    private final RunRepository runs;
    private final Event<RunService.RunQueued> queued;
    private final Clock clock;

    public ScheduleTickRepository(EntityManager em, RunRepository runs, Event<RunService.RunQueued> queued,
                                  Clock clock) {
        this.em = em;
        this.runs = runs;
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
        /** The run this round writes for the tick (a new one, with a new id, each round). */
        Run run;

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
            OffsetDateTime now = OffsetDateTime.now(clock);
            pending.forEach(p -> p.run = scheduled(p, now));
            Set<UUID> inserted = insert(pending);
            List<Pending> conflicts = new ArrayList<>();
            for (Pending p : pending) {
                if (inserted.contains(p.run.id)) {
                    out[p.index] = new Fire(Outcome.QUEUED, p.run.id);
                    queued.fire(new RunService.RunQueued(p.run.id));
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
        OffsetDateTime now = OffsetDateTime.now(clock);
        for (Pending p : conflicts) {
            String reason = activeRun.get(p.stateId);
            if (reason == null) {
                free.add(p);
            } else {
                p.run = scheduled(p, now).skipped(reason);
                busy.add(p);
            }
        }
        Set<UUID> skipped = insert(busy);
        for (Pending p : busy) {
            out[p.index] = skipped.contains(p.run.id) ? new Fire(Outcome.SKIPPED, p.run.id)
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
     * The run of a tick: QUEUED, trigger SCHEDULE, queued {@code now}, {@code scheduled_for} the
     * tick (to the microsecond, as {@link #takenTicks} compares it), with the pipeline's stored
     * state ID and policies.
     */
    private static Run scheduled(Pending p, OffsetDateTime now) {
        Run run = Run.queued(p.tick.pipeline().id(), p.name, p.stateId, p.strategy, p.policy, RunTrigger.SCHEDULE,
                ScheduleRepository.ACTOR, now);
        run.scheduledFor = OffsetDateTime.ofInstant(p.tick.at().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
        return run;
    }

    /** Inserts the ticks' runs ({@link RunRepository#insertAll}), skipping those that conflict; returns the ids written. */
    private Set<UUID> insert(List<Pending> ticks) {
        return runs.insertAll(ticks.stream().map(p -> p.run).toList());
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
