package io.tapline.run.exec;

import io.smallrye.config.ConfigValidationException;
import io.tapline.common.config.TaplineConfig;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * When a replica that cannot store a run's heartbeat stops the run's processes, counted from the
 * last heartbeat it stored ({@code tapline.runner.*}; docs/operations.md, "Fencing"):
 * <ul>
 *   <li>{@link #fenceAfter}: two thirds of {@code heartbeat-timeout}; the run is asked to stop and
 *   its processes get SIGTERM;</li>
 *   <li>{@link #killAfter}: {@code heartbeat-timeout} minus {@code fence-kill-margin}; SIGKILL to
 *   every process of the run still alive, whatever {@code terminate-grace} is.</li>
 * </ul>
 * So no process of a fenced run is alive at {@code heartbeat-timeout}, when another replica's
 * reaper may fail the run and a retry may start a second writer of the same state ID.
 * {@link #problems} lists the settings that cannot keep that promise; start-up refuses them
 * ({@link #check}). A terminate grace longer than the time from the fence point to the kill is
 * cut short for fenced runs ({@link #fencedGrace}; start-up warns, {@link #graceWarning}).
 *
 * @param heartbeatTimeout  {@code tapline.runner.heartbeat-timeout}
 * @param heartbeatInterval {@code tapline.runner.heartbeat-interval}
 * @param killMargin        {@code tapline.runner.fence-kill-margin}
 * @param terminateGrace    {@code tapline.runner.terminate-grace}
 */
record FenceTimes(Duration heartbeatTimeout, Duration heartbeatInterval, Duration killMargin,
                  Duration terminateGrace) {

    /** The fence times of these settings. */
    static FenceTimes of(TaplineConfig.Runner runner) {
        return new FenceTimes(runner.heartbeatTimeout(), runner.heartbeatInterval(), runner.fenceKillMargin(),
                runner.terminateGrace());
    }

    /** Time after the last stored heartbeat at which the run is fenced (SIGTERM): two thirds of the timeout. */
    Duration fenceAfter() {
        return heartbeatTimeout.multipliedBy(2).dividedBy(3);
    }

    /** Time after the last stored heartbeat at which every process of a fenced run gets SIGKILL. */
    Duration killAfter() {
        return heartbeatTimeout.minus(killMargin);
    }

    /** The instant by which every process of a run whose heartbeat was last stored at {@code lastHeartbeat} is killed. */
    Instant killAt(Instant lastHeartbeat) {
        return lastHeartbeat.plus(killAfter());
    }

    /**
     * The SIGTERM grace a fenced run's processes get at {@code now}: the terminate grace, cut to
     * what is left until {@link #killAt}; never negative.
     */
    Duration fencedGrace(Instant lastHeartbeat, Instant now) {
        Duration left = Duration.between(now, killAt(lastHeartbeat));
        if (left.isNegative()) {
            return Duration.ZERO;
        }
        return left.compareTo(terminateGrace) < 0 ? left : terminateGrace;
    }

    /**
     * What keeps these settings from keeping the promise, one sentence each naming the settings
     * and their values; empty when they can. The rules: the timeout is positive and the margin not
     * negative; the heartbeat interval is at most a third of the timeout (at least two heartbeats
     * before the fence point); the kill comes after the fence point (fence point + margin below
     * the timeout).
     */
    List<String> problems() {
        List<String> out = new ArrayList<>();
        String timeout = "tapline.runner.heartbeat-timeout=" + human(heartbeatTimeout);
        if (killMargin.isNegative() || heartbeatTimeout.isNegative() || heartbeatTimeout.isZero()) {
            out.add(timeout + " must be positive and tapline.runner.fence-kill-margin=" + human(killMargin)
                    + " must not be negative.");
            return out;
        }
        if (heartbeatInterval.multipliedBy(3).compareTo(heartbeatTimeout) > 0) {
            out.add("tapline.runner.heartbeat-interval=" + human(heartbeatInterval) + " is too close to " + timeout
                    + ": runs are fenced " + human(fenceAfter()) + " after their last stored heartbeat, so the"
                    + " interval must be at most a third of the timeout (" + human(heartbeatTimeout.dividedBy(3)) + ").");
        }
        if (fenceAfter().plus(killMargin).compareTo(heartbeatTimeout) >= 0) {
            out.add("tapline.runner.fence-kill-margin=" + human(killMargin) + " does not fit " + timeout
                    + ": fenced runs are stopped " + human(fenceAfter()) + " after their last stored heartbeat (two"
                    + " thirds of the timeout) and killed " + human(killMargin) + " before the timeout, so the margin"
                    + " must be below a third of the timeout (" + human(heartbeatTimeout.dividedBy(3)) + ").");
        }
        return out;
    }

    /**
     * A warning when {@code terminate-grace} is longer than a fenced run can get (from the fence
     * point to the kill): such a run's processes get SIGKILL before their grace is over. Empty when
     * the grace fits.
     */
    Optional<String> graceWarning() {
        Duration window = killAfter().minus(fenceAfter());
        if (terminateGrace.compareTo(window) <= 0 || !problems().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("tapline.runner.terminate-grace=" + human(terminateGrace) + " is longer than a"
                + " fenced run can get with tapline.runner.heartbeat-timeout=" + human(heartbeatTimeout)
                + " and tapline.runner.fence-kill-margin=" + human(killMargin) + ": a run whose heartbeat cannot be"
                + " stored is stopped " + human(fenceAfter()) + " after its last stored heartbeat and its processes"
                + " get SIGKILL " + human(window) + " later. Lower the terminate grace (tapline.runner.shutdown-grace"
                + " sets the grace on service shutdown alone) or raise the timeout to "
                + human(terminateGrace.plus(killMargin).multipliedBy(3)) + ".");
    }

    /**
     * Refuses settings that cannot keep the promise.
     *
     * @throws ConfigValidationException with one problem per broken rule ({@link #problems})
     */
    void check() {
        List<String> problems = problems();
        if (!problems.isEmpty()) {
            throw new ConfigValidationException(problems.stream()
                    .map(ConfigValidationException.Problem::new).toArray(ConfigValidationException.Problem[]::new));
        }
    }

    /** {@code 60s}, {@code 1.5s}, {@code 250ms}. */
    static String human(Duration d) {
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() < 1000 ? d.toMillis() + "ms" : String.format(java.util.Locale.ROOT, "%.1fs",
                d.toMillis() / 1000.0);
    }
}
