package io.tapline.run;

import java.util.UUID;

/**
 * Fired synchronously inside the transaction that gives a run its terminal status (SUCCEEDED,
 * FAILED or CANCELLED), by the one end path ({@link RunEndService#end}), whatever ended it: the
 * executor, the heartbeat reaper, a forced release, a cancel of a queued run, a service shutdown.
 * Never fired for SKIPPED schedule ticks (inserted terminal) nor twice for one run: it is fired only
 * when the guarded terminal UPDATE changed the row.
 *
 * <p>Observers ({@code @Observes RunEnded}) run on the ending thread, in that transaction: they may
 * write to the database (an outbox row, say), and a failure of theirs rolls the end back (the
 * caller then retries or leaves the run to the reaper), so they must not fail for reasons of their
 * own. They read the run with a fresh query ({@code RunRepository.findById} after the UPDATE sees
 * the new status, failure and counts). For work after the commit, observe {@link RunFinished}.
 *
 * @param runId the run that ended
 */
public record RunEnded(UUID runId) {
}
