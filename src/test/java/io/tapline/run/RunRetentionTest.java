package io.tapline.run;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.common.api.UuidV7;
import io.tapline.support.TestDatabase;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Run retention on a real database: keeps the newest runs of each pipeline and those newer than
 * the cutoff, deletes the rest in batches, and leaves active runs, rows locked by others, and all
 * Singer state untouched. Each test uses its own pipeline names; runs of other tests are recent
 * and therefore never pruned.
 */
@QuarkusTest
class RunRetentionTest {

    /** Keep 30 days and the 5 newest runs per pipeline; delete 4 per transaction. */
    private static final RunRetention.Policy POLICY = new RunRetention.Policy(30, 5, 4);
    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

    private static final java.util.concurrent.atomic.AtomicLong SEQUENCE = new java.util.concurrent.atomic.AtomicLong();

    @Inject
    RunRetention retention;

    @Inject
    RunLogs logs;

    @Test
    void keepsTheNewestRunsAndRecentOnesDeletesTheRestInBatchesAndLeavesStateAlone() throws Exception {
        String a = "retention-a-" + System.nanoTime();
        String b = "retention-b-" + System.nanoTime();
        String c = "retention-c-" + System.nanoTime();
        List<UUID> oldA = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String status = List.of("SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED").get(i % 4);
            oldA.add(insert(a, status, NOW.minus(Duration.ofDays(200 - i)), a + ":" + i));
        }
        // Active runs far older than the cutoff: a RUNNING one with a fresh heartbeat (the reaper
        // leaves it) and a QUEUED retry not due yet (no runner claims it). Both outlive pruning.
        UUID running = insert(a, "RUNNING", NOW.minus(Duration.ofDays(150)), a + ":running");
        UUID queued = insert(a, "QUEUED", NOW.minus(Duration.ofDays(149)), a + ":queued");
        List<UUID> recentA = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            recentA.add(insert(a, "SUCCEEDED", NOW.minus(Duration.ofDays(1)).plusSeconds(i), a + ":recent"));
        }
        List<UUID> fewB = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            fewB.add(insert(b, "FAILED", NOW.minus(Duration.ofDays(300 - i)), b));
        }
        List<UUID> newC = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            newC.add(insert(c, "SUCCEEDED", NOW.minus(Duration.ofDays(29)).plusSeconds(i), c));
        }
        String stateId = "dev:" + a;
        try (Connection conn = TestDatabase.connect(); Statement st = conn.createStatement()) {
            st.executeUpdate("insert into singer_state (state_id, completed, partial, version) values ('" + stateId
                    + "', '{\"singer_state\": {\"bookmarks\": {}}}', '{}', 1)");
            st.executeUpdate("insert into singer_state_version (state_id, version, source, action, actor, run_id,"
                    + " completed_after) values ('" + stateId + "', 1, 'RUN', 'checkpoint', 'test', '" + oldA.get(0)
                    + "', '{}')");
        }
        Path log = logs.path(oldA.get(0));
        Files.createDirectories(log.getParent());
        Files.writeString(log, "a pruned run's log\n");

        RunRetention.Result result = retention.prune(NOW, POLICY);

        // Pipeline a: its 5 newest are the 3 recent runs, the two active runs; all 8 old
        // terminal runs go, in two batches of 4.
        assertEquals(List.of(), existing(oldA));
        assertEquals(List.of(running, queued), existing(List.of(running, queued)));
        assertEquals(recentA, existing(recentA));
        // Pipeline b has fewer runs than the minimum; pipeline c's are newer than the cutoff.
        assertEquals(fewB, existing(fewB));
        assertEquals(newC, existing(newC));
        assertTrue(result.deleted() >= 8 && result.batches() >= 2, result.toString());
        assertTrue(Files.notExists(log), "the pruned run's log file is deleted");
        try (Connection conn = TestDatabase.connect(); Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("select (select count(*) from singer_state where state_id = '" + stateId
                     + "'), (select count(*) from singer_state_version where state_id = '" + stateId + "')")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "state is never touched");
            assertEquals(1, rs.getInt(2), "state history is never touched");
        }
        // Idempotent: nothing more to do.
        retention.prune(NOW, POLICY);
        assertEquals(recentA, existing(recentA));
        cleanUp(running, queued);
    }

    @Test
    void skipsRowsAnotherTransactionHoldsInsteadOfWaiting() throws Exception {
        String p = "retention-locked-" + System.nanoTime();
        List<UUID> old = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            old.add(insert(p, "SUCCEEDED", NOW.minus(Duration.ofDays(100 - i)), p));
        }
        // old has 10 runs: the 5 newest stay, so old[0..4] are due; old[1] is locked by another transaction.
        try (Connection other = TestDatabase.connect()) {
            other.setAutoCommit(false);
            try (PreparedStatement ps = other.prepareStatement("select id from pipeline_run where id = ? for update")) {
                ps.setObject(1, old.get(1));
                ps.executeQuery().close();
            }
            // Were the locked row waited for, this would never complete while `other` holds it.
            CompletableFuture.supplyAsync(() -> retention.prune(NOW, POLICY)).get(2, TimeUnit.MINUTES);
            assertEquals(List.of(old.get(1)), existing(old.subList(0, 5)));
            other.commit();
        }
        retention.prune(NOW, POLICY);
        assertEquals(List.of(), existing(old.subList(0, 5)));
        assertEquals(old.subList(5, 10), existing(old.subList(5, 10)));
    }

    private static UUID insert(String pipeline, String status, Instant created, String stateId) throws Exception {
        UUID id = uuidV7(created.toEpochMilli());
        OffsetDateTime at = created.atOffset(ZoneOffset.UTC);
        boolean active = status.equals("QUEUED") || status.equals("RUNNING");
        try (Connection c = TestDatabase.connect(); PreparedStatement ps = c.prepareStatement("""
                insert into pipeline_run (id, pipeline_name, state_id, trigger, status, queued_at, started_at, ended_at,
                    owner_instance, last_heartbeat_at, not_before)
                values (?, ?, ?, 'API', ?, ?, ?, ?, ?, ?, ?)
                """)) {
            ps.setObject(1, id);
            ps.setString(2, pipeline);
            ps.setString(3, stateId);
            ps.setString(4, status);
            ps.setObject(5, at);
            ps.setObject(6, status.equals("QUEUED") ? null : at);
            ps.setObject(7, active ? null : at.plusMinutes(1));
            ps.setString(8, status.equals("RUNNING") ? "elsewhere" : null);
            ps.setObject(9, status.equals("RUNNING") ? OffsetDateTime.now().plusHours(1) : null);
            ps.setObject(10, status.equals("QUEUED") ? OffsetDateTime.now().plusYears(1) : null);
            ps.executeUpdate();
        }
        return id;
    }

    /**
     * A UUIDv7 of a past instant ({@link UuidV7#at} never goes back behind ids this JVM already
     * made, so it cannot date a run in the past).
     */
    private static UUID uuidV7(long epochMillis) {
        long msb = (epochMillis << 16) | 0x7000L | (SEQUENCE.incrementAndGet() & 0xFFFL);
        return new UUID(msb, 0x8000000000000000L | (System.nanoTime() & 0x3FFFFFFFFFFFFFFFL));
    }

    /** The ids among {@code ids} that still exist, in the given order. */
    private static List<UUID> existing(List<UUID> ids) throws Exception {
        List<UUID> out = new ArrayList<>();
        try (Connection c = TestDatabase.connect();
             PreparedStatement ps = c.prepareStatement("select 1 from pipeline_run where id = ?")) {
            for (UUID id : ids) {
                ps.setObject(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        out.add(id);
                    }
                }
            }
        }
        return out;
    }

    /** Ends the active runs so that no other test sees them. */
    private static void cleanUp(UUID... ids) throws Exception {
        try (Connection c = TestDatabase.connect();
             PreparedStatement ps = c.prepareStatement("update pipeline_run set status = 'CANCELLED' where id = ?")) {
            for (UUID id : ids) {
                ps.setObject(1, id);
                ps.executeUpdate();
            }
        }
    }
}
