package io.tapline.run;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The one end path of every run: the executor's outcome, the reaper's "heartbeat lost", a forced
 * release, a cancel of a queued run and a service shutdown all end a run here. The guarded terminal
 * write ({@link RunRepository#end}) and, when it changed the row, {@link RunEnded} (synchronously,
 * in the same transaction) and {@link RunFinished} (to after-success observers: retries and
 * {@code pauseAfterFailures}).
 */
@ApplicationScoped
public class RunEndService {

    private static final Logger LOG = Logger.getLogger(RunEndService.class);

    private final RunRepository runs;
    private final Clock clock;
    private final Event<RunEnded> ended;
    private final Event<RunFinished> finished;

    public RunEndService(RunRepository runs, Clock clock, Event<RunEnded> ended, Event<RunFinished> finished) {
        this.runs = runs;
        this.clock = clock;
        this.ended = ended;
        this.finished = finished;
    }

    /**
     * Ends a run, in the caller's transaction or a new one.
     *
     * @param id the run
     * @param guard the status (and owner, stale heartbeat) the row must have
     * @param end what to record
     * @return true when this call ended the run; false when it had already left {@code guard.from()}
     *     (or the owner / heartbeat guard did not hold)
     * @throws IllegalArgumentException when {@code guard.from()} cannot move to {@code end.status()}
     */
    @Transactional
    public boolean end(UUID id, RunEnd.Guard guard, RunEnd end) {
        if (!runs.end(id, guard, end, OffsetDateTime.now(clock))) {
            return false;
        }
        LOG.debugf("Run %s ended %s%s", id, end.status(), end.type() == null ? "" : " (" + end.type().id() + ")");
        ended.fire(new RunEnded(id));
        finished.fire(new RunFinished(id, end.status()));
        return true;
    }
}
