package io.tapline.schedule;

import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The wake-up thread of a {@link ScheduleTicker}: one daemon thread ({@code tapline-schedule-<name>})
 * that calls the ticker back when its earliest fire time is due, so the lag from a scheduled instant
 * to its run row is milliseconds, not a polling interval; after a failed database write it waits
 * out a back-off first. The ticker decides what is due, this class only when to look.
 * Thread-safe: guarded by this object's monitor (taken after the ticker's, never before).
 */
final class TickerWakeup implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TickerWakeup.class);

    private final Clock clock;
    private final String name;
    private final Runnable tick;

    // Guarded by `this`.
    private ScheduledThreadPoolExecutor timer;
    private ScheduledFuture<?> wakeup;
    private Instant wakeAt;
    private Instant backoffUntil;

    /**
     * @param clock the ticker's time source
     * @param name the ticker's name (thread name and logs)
     * @param tick what a wake-up runs: the ticker's tick at the clock's time (a failure is logged)
     */
    TickerWakeup(Clock clock, String name, Runnable tick) {
        this.clock = clock;
        this.name = name;
        this.tick = tick;
    }

    /**
     * Starts the thread. Call once.
     *
     * @throws IllegalStateException when already started
     */
    synchronized void start() {
        if (timer != null) {
            throw new IllegalStateException("ticker " + name + " already started");
        }
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Executors.defaultThreadFactory().newThread(r);
            t.setName("tapline-schedule-" + name);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** True between {@link #start} and {@link #close}. */
    synchronized boolean running() {
        return timer != null;
    }

    /** Stops the thread, letting a tick in progress finish (up to 10 s); later wake-ups are not armed. */
    @Override
    public void close() {
        ScheduledThreadPoolExecutor t;
        synchronized (this) {
            t = timer;
            timer = null;
            wakeup = null;
            wakeAt = null;
        }
        if (t != null) {
            t.shutdown();
            try {
                if (!t.awaitTermination(10, TimeUnit.SECONDS)) {
                    t.shutdownNow();
                }
            } catch (InterruptedException e) {
                t.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** No wake-up before {@code backoff} from now (after a failed database write); cleared by the next wake-up. */
    synchronized void backOff(Duration backoff) {
        backoffUntil = clock.instant().plus(backoff);
    }

    /**
     * Sets the wake-up for {@code at} (or the end of a back-off, when later), unless one is set
     * already that is not later; does nothing when not running.
     */
    synchronized void armAt(Instant at) {
        if (timer == null) {
            return;
        }
        if (backoffUntil != null && at.isBefore(backoffUntil)) {
            at = backoffUntil;
        }
        if (wakeup != null && !wakeup.isDone() && !at.isBefore(wakeAt)) {
            return;
        }
        if (wakeup != null) {
            wakeup.cancel(false);
        }
        long delayMs = Math.max(0, Duration.between(clock.instant(), at).toMillis() + 1);
        wakeAt = at;
        wakeup = timer.schedule(this::wake, delayMs, TimeUnit.MILLISECONDS);
    }

    private void wake() {
        synchronized (this) {
            wakeup = null;
            wakeAt = null;
            backoffUntil = null;
        }
        try {
            tick.run();
        } catch (RuntimeException e) {
            LOG.errorf(e, "Schedule ticker %s: tick failed", name);
        }
    }
}
