package io.tapline.run;

import java.util.UUID;

/**
 * Fired by the one end path ({@link RunEndService#end}) after a run reached a terminal status, to
 * observers of the transaction's success ({@code @Observes(during = TransactionPhase.AFTER_SUCCESS)}):
 * retries and {@code pauseAfterFailures} act on it, for runs the executor ended and for reaped and
 * released ones alike. Observers run after the commit, on the ending thread, and open their own
 * transactions.
 *
 * @param runId the run
 * @param status its terminal status
 */
public record RunFinished(UUID runId, RunStatus status) {
}
