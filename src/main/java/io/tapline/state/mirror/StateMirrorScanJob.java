package io.tapline.state.mirror;

import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Scans the shared Meltano state directory every {@code tapline.state.mirror-scan-interval} on
 * every replica ({@link StateMirror#scan}); safe to run everywhere at once, because each import
 * holds the state ID's lock file and advisory lock and re-checks the recorded fingerprint.
 */
@ApplicationScoped
public class StateMirrorScanJob {

    private static final Logger LOG = Logger.getLogger(StateMirrorScanJob.class);

    private final StateMirror mirror;
    private final Clock clock;

    public StateMirrorScanJob(StateMirror mirror, Clock clock) {
        this.mirror = mirror;
        this.clock = clock;
    }

    @Scheduled(every = "{tapline.state.mirror-scan-interval}", delayed = "{tapline.state.mirror-scan-interval}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        try {
            scan(clock.instant());
        } catch (RuntimeException e) {
            // the database is unreachable; the next tick retries
            LOG.warnf("State mirror scan failed: %s", e.getMessage());
        }
    }

    /** One scan started at {@code now}; logs what it imported. */
    StateMirror.Scan scan(Instant now) {
        StateMirror.Scan s = mirror.scan();
        if (s.imported() > 0 || s.failed() > 0) {
            LOG.infof("State mirror scan at %s: %d state ID(s) checked, %d outside change(s) imported, %d failed"
                    + " (took %d ms)", now, s.checked(), s.imported(), s.failed(),
                    Duration.between(now, clock.instant()).toMillis());
        }
        return s;
    }
}
