package io.tapline.schedule;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.TestDatabase;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.tapline.schedule.Fixtures.queryLong;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The set-based fire ({@link ScheduleStore#fireAll}, {@link ScheduleTickRepository}) with two tickers
 * on one database: racing over the same ticks in small batches, and one of them dying in the middle
 * of a batch's transaction.
 */
@QuarkusTest
@io.quarkus.test.junit.TestProfile(io.tapline.support.NoRunnerProfile.class)
class ScheduleBatchFireTest {

    private static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");

    @Inject
    ScheduleRepository repository;

    @Inject
    ScheduleTickRepository tickRepository;

    @Inject
    EntityManager em;

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private String prefix;

    @AfterEach
    void cleanUp() {
        pool.shutdownNow();
        if (prefix != null) {
            Fixtures.update("delete from pipeline where name like ?", prefix + "-%");
        }
    }

    /** Creates {@code n} pipelines on {@code * * * * *} with one SQL statement; returns their ids in id order. */
    private List<Long> pipelines(int n) {
        Fixtures.Plugins plugins = Fixtures.Plugins.create();
        prefix = "batch-" + System.nanoTime();
        Fixtures.update("""
                insert into pipeline (name, extractor_id, loader_id, environment, state_id, schedule_interval,
                    schedule_timezone, schedule_enabled, schedule_catch_up)
                select ? || '-' || g, (select id from plugin where type = 'extractors' and name = ?),
                    (select id from plugin where type = 'loaders' and name = ?), 'dev', ? || ':' || g,
                    '* * * * *', 'UTC', true, 'NONE'
                from generate_series(1, ?) g
                """, prefix, plugins.tap(), plugins.target(), prefix, n);
        List<Long> ids = new ArrayList<>();
        for (int g = 1; g <= n; g++) {
            ids.add(Fixtures.id(prefix + "-" + g));
        }
        return ids;
    }

    /** A store that reads schedules through {@code filtered}; how it records is the subclass's. */
    private abstract static class Reading implements ScheduleStore {
        private final ScheduleStore filtered;

        Reading(ScheduleStore filtered) {
            this.filtered = filtered;
        }

        @Override
        public List<ScheduledPipeline> loadAll() {
            return filtered.loadAll();
        }

        @Override
        public Optional<ScheduledPipeline> load(long pipelineId) {
            return filtered.load(pipelineId);
        }

        @Override
        public Optional<Instant> lastTick(long pipelineId) {
            return filtered.lastTick(pipelineId);
        }
    }

    /** A store that sees only {@code ids} and records with {@code fireAll} (set-based) or {@code fire}. */
    private static ScheduleStore only(ScheduleStore store, Set<Long> ids) {
        return only(store, ids, false);
    }

    /**
     * {@link #only(ScheduleStore, Set)}; with {@code claims}, batches are also claimed through
     * {@code fireAllUnlessClaimed} as the repository does (without, that call falls back to
     * {@code fireAll}, so no batch is ever found claimed).
     */
    private static ScheduleStore only(ScheduleStore store, Set<Long> ids, boolean claims) {
        return new Reading(Fixtures.only(store, ids)) {
            @Override
            public Fire fire(ScheduledPipeline pipeline, Instant tick) {
                return store.fire(pipeline, tick);
            }

            @Override
            public List<Fire> fireAll(List<Tick> ticks) {
                return store.fireAll(ticks);
            }

            @Override
            public Optional<List<Fire>> fireAllUnlessClaimed(List<Tick> ticks) {
                return claims ? store.fireAllUnlessClaimed(ticks) : Optional.of(store.fireAll(ticks));
            }
        };
    }

    private static long written(ScheduleTicker t) {
        return t.stats().queued.get() + t.stats().skipped.get();
    }

    @Test
    void twoTickersRacingInBatchesRecordEachTickOnceAndSkipBusyStateIds() throws Exception {
        race(false);
    }

    @Test
    void twoTickersClaimingBatchesRecordEachTickOnceAndSkipBusyStateIds() throws Exception {
        race(true);
    }

    /** Two tickers, batches of 7, three ticks; with {@code claims} they claim batches as the repository does. */
    private void race(boolean claims) throws Exception {
        int n = 60;
        List<Long> ids = pipelines(n);
        // Two state IDs are busy before the first tick: a RUNNING run holds each.
        Map<Long, UUID> busy = Map.of(ids.get(3), Fixtures.run(ids.get(3), "RUNNING", 1),
                ids.get(41), Fixtures.run(ids.get(41), "RUNNING", 1));
        ScheduleStore store = only(repository, Set.copyOf(ids), claims);
        // Batches of 7 (9 batches); b starts in the middle, so each writes its own batches first.
        ScheduleTicker a = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), "batch-a", 7, 0.0);
        ScheduleTicker b = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), "batch-b", 7, 0.5);
        assertEquals(n, a.load(T0));
        assertEquals(n, b.load(T0));
        int ticks = 3;
        for (int k = 1; k <= ticks; k++) {
            Instant tick = T0.plusSeconds(60L * k);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> both = new ArrayList<>();
            for (ScheduleTicker t : List.of(a, b)) {
                both.add(pool.submit(() -> {
                    go.await();
                    t.tick(tick);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : both) {
                f.get(60, TimeUnit.SECONDS);
            }
        }

        List<Fixtures.TickRow> rows = Fixtures.ticks(ids);
        assertEquals(n * ticks, rows.size(), "one row per pipeline and tick");
        assertEquals(n * ticks, rows.stream().map(r -> r.pipelineId() + "@" + r.scheduledFor()).distinct().count());
        Map<Long, UUID> queuedRun = new HashMap<>();
        for (long id : ids) {
            if (!busy.containsKey(id)) {
                queuedRun.put(id, UUID.fromString(Fixtures.queryString("select id::text from pipeline_run where"
                        + " pipeline_id = ? and scheduled_for = ? and status = 'QUEUED'", id, T0.plusSeconds(60)).orElseThrow()));
            }
        }
        for (Fixtures.TickRow r : rows) {
            boolean first = r.scheduledFor().equals(T0.plusSeconds(60));
            UUID holder = busy.containsKey(r.pipelineId()) ? busy.get(r.pipelineId()) : queuedRun.get(r.pipelineId());
            if (first && !busy.containsKey(r.pipelineId())) {
                assertEquals("QUEUED", r.status(), r.toString());
            } else {
                assertEquals("SKIPPED", r.status(), r.toString());
                String status = busy.containsKey(r.pipelineId()) ? "RUNNING" : "QUEUED";
                assertTrue(r.errorSummary().startsWith("Skipped: run " + holder + " of state ID '" + prefix + ":")
                        && r.errorSummary().contains("was " + status + " at this tick"), r.errorSummary());
            }
        }
        assertEquals(n * ticks, written(a) + written(b));
        assertEquals(n - busy.size(), a.stats().queued.get() + b.stats().queued.get());
        assertTrue(written(a) > 0 && written(b) > 0, "both tickers wrote some batches: " + written(a) + "/" + written(b));
        for (ScheduleTicker t : List.of(a, b)) {
            assertEquals(n * ticks, written(t) + t.stats().alreadyFired.get(), "each ticker handled every tick");
            assertTrue(t.nextFireTime(ids.get(0)).orElseThrow().equals(T0.plusSeconds(60L * (ticks + 1))));
        }
    }

    @Test
    void aBatchClaimedByAnotherReplicaIsRecordedAfterTheOthersAndOnce() throws Exception {
        int n = 15;
        List<Long> ids = pipelines(n);
        ScheduleStore store = only(repository, Set.copyOf(ids), true);
        Instant tick = T0.plusSeconds(60);
        List<ScheduleStore.Tick> firstBatch = store.loadAll().stream()
                .sorted(java.util.Comparator.comparingLong(ScheduledPipeline::id)).limit(5)
                .map(p -> new ScheduleStore.Tick(p, tick)).toList();
        // Batches of 5, starting at the first; another "replica" holds the first batch's claim.
        ScheduleTicker t = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), "claims", 5, 0.0);
        assertEquals(n, t.load(T0));
        try (java.sql.Connection other = TestDatabase.connect()) {
            other.setAutoCommit(false);
            try (java.sql.PreparedStatement s = other.prepareStatement("select pg_advisory_xact_lock(?, ?)")) {
                s.setInt(1, ScheduleTickRepository.BATCH_LOCK_CLASS);
                s.setInt(2, ScheduleTickRepository.batchKey(firstBatch));
                s.execute();
            }
            t.tick(tick);
            other.rollback();
        }

        List<Fixtures.TickRow> rows = Fixtures.ticks(ids);
        assertEquals(n, rows.size(), "every tick recorded once");
        assertTrue(rows.stream().allMatch(r -> r.status().equals("QUEUED")), rows.toString());
        assertEquals(n, t.stats().queued.get());
        // Run ids grow with creation time in this JVM: the claimed batch was written last.
        List<Long> order = new ArrayList<>();
        try (java.sql.Connection c = TestDatabase.connect();
             java.sql.PreparedStatement s = c.prepareStatement("select pipeline_id from pipeline_run"
                     + " where pipeline_id = any(?) order by id")) {
            s.setArray(1, c.createArrayOf("int8", ids.toArray(Long[]::new)));
            try (java.sql.ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    order.add(rs.getLong(1));
                }
            }
        }
        assertEquals(Set.copyOf(ids.subList(0, 5)), Set.copyOf(order.subList(10, 15)), "claimed batch last: " + order);
    }

    @Test
    void whenAReplicaDiesInTheMiddleOfABatchTheOtherRecordsEveryTickOnce() throws Exception {
        int n = 30;
        List<Long> ids = pipelines(n);
        Set<Long> idSet = Set.copyOf(ids);
        Instant tick = T0.plusSeconds(60);
        CompletableFuture<Integer> dyingBackend = new CompletableFuture<>();
        CountDownLatch killed = new CountDownLatch(1);
        // Replica a writes its first batch in a transaction, then its connection is killed before the
        // commit; from then on it is dead: every write fails.
        ScheduleStore dying = new Reading(Fixtures.only(repository, idSet)) {
            volatile boolean dead;

            @Override
            public Fire fire(ScheduledPipeline pipeline, Instant at) {
                throw new IllegalStateException("replica a is dead");
            }

            @Override
            public List<Fire> fireAll(List<Tick> batch) {
                if (dead) {
                    throw new IllegalStateException("replica a is dead");
                }
                dead = true;
                return QuarkusTransaction.requiringNew().call(() -> {
                    List<Fire> fired = tickRepository.record(batch);
                    dyingBackend.complete(((Number) em.createNativeQuery("select pg_backend_pid()").getSingleResult()).intValue());
                    killed.await(60, TimeUnit.SECONDS);
                    return fired;
                });
            }
        };
        ScheduleTicker a = new ScheduleTicker(dying, Clock.systemUTC(), Duration.ofSeconds(60), "dying-a", 1000, 0.0);
        ScheduleTicker b = new ScheduleTicker(only(repository, idSet), Clock.systemUTC(), Duration.ofSeconds(60),
                "survivor-b", 1000, 0.0);
        assertEquals(n, a.load(T0));
        assertEquals(n, b.load(T0));

        Future<?> aTick = pool.submit(() -> a.tick(tick));
        int pid = dyingBackend.get(60, TimeUnit.SECONDS);
        assertEquals(0, Fixtures.ticks(ids).size(), "a's rows are not committed yet");
        Future<?> bTick = pool.submit(() -> b.tick(tick));
        // b's insert waits for a's uncommitted rows of the same ticks.
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("select count(*) from pg_stat_activity"
                + " where datname = current_database() and wait_event_type = 'Lock'"
                + " and query like '%insert into pipeline_run%'") > 0);
        assertEquals(1, queryLong("select count(*) from (select pg_terminate_backend(?)) t", pid));
        killed.countDown();
        aTick.get(60, TimeUnit.SECONDS);
        bTick.get(60, TimeUnit.SECONDS);

        List<Fixtures.TickRow> rows = Fixtures.ticks(ids);
        assertEquals(n, rows.size(), "every tick recorded once");
        assertTrue(rows.stream().allMatch(r -> r.scheduledFor().equals(tick) && r.status().equals("QUEUED")), rows.toString());
        assertEquals(n, b.stats().queued.get());
        assertEquals(0, written(a));
        assertTrue(a.stats().failed.get() > 0);
    }
}
