package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The status-changing writes of {@link RunRepository} refuse what {@link RunStatus}'s transition
 * table refuses: a claim of an ended run matches no row (its {@code status in (:from)} guard comes
 * from the table), and an end from a status the table does not allow is rejected before any SQL.
 * On the application of {@link RunClaimTest} (nothing claims runs by itself).
 */
@QuarkusTest
@TestProfile(RunClaimTest.Profile.class)
class RunTransitionsTest {

    @Inject
    RunRepository runs;

    /** Inserts a run of no pipeline (as a deleted pipeline's runs are) with {@code status}. */
    private UUID insert(RunStatus status) {
        OffsetDateTime now = OffsetDateTime.now();
        Run r = Run.queued(null, "transitions", "transitions-" + UUID.randomUUID(), "auto", "CHECKPOINT",
                RunTrigger.API, "test", now);
        r.status = status;
        r.endedAt = status.isTerminal() ? now : null;
        assertEquals(Set.of(r.id), QuarkusTransaction.requiringNew().call(() -> runs.insertAll(List.of(r))));
        return r.id;
    }

    private RunStatus status(UUID id) {
        return QuarkusTransaction.requiringNew().call(() -> runs.findById(id)).status;
    }

    @Test
    void aClaimNeverMovesAnEndedRunBackToRunning() {
        for (RunStatus ended : RunStatus.TERMINAL) {
            UUID id = insert(ended);
            assertFalse(QuarkusTransaction.requiringNew().call(() -> runs.claim(id, "replica-a", OffsetDateTime.now())),
                    ended + " -> RUNNING");
            assertFalse(QuarkusTransaction.requiringNew().call(() -> runs.claimDue("replica-a",
                    OffsetDateTime.now(), 1000)).contains(id), ended + " -> RUNNING (claimDue)");
            assertEquals(ended, status(id));
        }
    }

    @Test
    void aClaimMovesAQueuedRunToRunning() {
        UUID id = insert(RunStatus.QUEUED);
        assertTrue(QuarkusTransaction.requiringNew().call(() -> runs.claim(id, "replica-a", OffsetDateTime.now())));
        assertEquals(RunStatus.RUNNING, status(id));
    }

    @Test
    void anEndTheTableRefusesIsRejectedAndLeavesTheRowAsItWas() {
        UUID succeeded = insert(RunStatus.SUCCEEDED);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                QuarkusTransaction.requiringNew().call(() -> runs.end(succeeded, RunEnd.Guard.from(RunStatus.SUCCEEDED),
                        RunEnd.of(RunStatus.FAILED, FailedComponent.SERVICE, FailureType.INTERNAL, "late"),
                        OffsetDateTime.now())));
        assertEquals("transition SUCCEEDED -> FAILED is not allowed", e.getMessage());
        assertEquals(RunStatus.SUCCEEDED, status(succeeded));

        UUID queued = insert(RunStatus.QUEUED);
        assertThrows(IllegalArgumentException.class, () -> QuarkusTransaction.requiringNew().call(() ->
                runs.end(queued, RunEnd.Guard.from(RunStatus.QUEUED), RunEnd.of(RunStatus.SUCCEEDED, null, null, null),
                        OffsetDateTime.now())));
        assertEquals(RunStatus.QUEUED, status(queued));
    }
}
