package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.tapline.support.Connectors.pipeline;
import static io.tapline.support.Connectors.trigger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RunRepository#claimDue}: up to the free slots' worth of due runs in one statement, oldest
 * first, each run claimed once, rows another claim holds skipped. On an application that never
 * claims by itself ({@code max-concurrent-runs=0}), so that only this test claims.
 */
@QuarkusTest
@TestProfile(RunClaimTest.Profile.class)
class RunClaimTest {

    /** Runs are queued, never claimed by the dispatcher. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public String getConfigProfile() {
            return "test";
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.runner.max-concurrent-runs", "0");
        }
    }

    @Inject
    RunRepository runs;

    private List<UUID> claim(String owner, int limit) {
        return QuarkusTransaction.requiringNew().call(() -> runs.claimDue(owner, OffsetDateTime.now(), limit));
    }

    private static List<UUID> queue(int n) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(UUID.fromString(trigger(pipeline(Map.of("records", 1), Map.of(), Map.of()), Map.of())));
        }
        return ids;
    }

    @Test
    void claimsAtMostTheFreeSlotsOldestFirstAndEachRunOnce() {
        List<UUID> queued = queue(3);
        assertEquals(queued.subList(0, 2), claim("replica-a", 2));
        assertEquals(List.of(queued.get(2)), claim("replica-b", 5));
        assertEquals(List.of(), claim("replica-a", 5));
        for (UUID id : queued) {
            Run r = QuarkusTransaction.requiringNew().call(() -> runs.findById(id));
            assertEquals(RunStatus.RUNNING, r.status);
            assertEquals(id.equals(queued.get(2)) ? "replica-b" : "replica-a", r.ownerInstance);
        }
    }

    @Test
    void aRunQueuedAfterTheClaimersClockReadingNeverStartsBeforeItWasQueued() {
        UUID id = queue(1).get(0);
        OffsetDateTime before = OffsetDateTime.now().minusSeconds(5);
        assertEquals(List.of(id), QuarkusTransaction.requiringNew().call(() -> runs.claimDue("replica-a", before, 1)));
        Run r = QuarkusTransaction.requiringNew().call(() -> runs.findById(id));
        assertTrue(!r.startedAt.isBefore(r.queuedAt), "started " + r.startedAt + ", queued " + r.queuedAt);
    }

    @Test
    void aClaimSkipsTheRunsAnotherOpenClaimHolds() throws Exception {
        List<UUID> queued = queue(3);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<List<UUID>> first = CompletableFuture.supplyAsync(() ->
                QuarkusTransaction.requiringNew().call(() -> {
                    List<UUID> mine = runs.claimDue("replica-a", OffsetDateTime.now(), 1);
                    held.countDown();
                    // keep the claimed row locked (uncommitted) while the other replica claims
                    assertTrue(release.await(60, TimeUnit.SECONDS));
                    return mine;
                }));
        assertTrue(held.await(60, TimeUnit.SECONDS));
        List<UUID> second = claim("replica-b", 5);
        release.countDown();
        List<UUID> firstClaimed = first.get(60, TimeUnit.SECONDS);
        assertEquals(List.of(queued.get(0)), firstClaimed);
        assertEquals(queued.subList(1, 3), second);
        Set<UUID> all = new HashSet<>(firstClaimed);
        all.addAll(second);
        assertEquals(new HashSet<>(queued), all);
    }
}
