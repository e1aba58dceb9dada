package io.tapline.run;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.run.exec.RunExecutor;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Claims queued runs for this replica and hands them to {@link RunExecutor}, up to
 * {@code tapline.runner.max-concurrent-runs} at once. Claiming is a guarded
 * {@code FOR UPDATE SKIP LOCKED} update ({@link RunRepository#claimDue}) of up to as many due runs
 * as there are free slots, so each run is started by exactly one replica, and a claim that finds
 * fewer runs than free slots ends the round without another look. Polls every
 * {@code tapline.runner.poll-interval} and at once after this replica queued a run.
 *
 * <p>On service shutdown it stops claiming (waiting briefly for a claim in progress), then lets
 * {@link RunExecutor#shutdown()} stop the running runs, and waits for every claimed run, including
 * one handed over just before, to be recorded as ended.
 */
@ApplicationScoped
public class RunDispatcher {

    private static final Logger LOG = Logger.getLogger(RunDispatcher.class);
    private static final long SLOT_RELEASE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final RunRepository runs;
    private final RunExecutor executor;
    private final InstanceId instance;
    private final Clock clock;
    private final int maxSlots;
    private final Semaphore slots;
    private final ReentrantLock dispatchLock = new ReentrantLock();
    private volatile boolean claimFailing;
    private final ExecutorService pool;
    private final ExecutorService wakeups = Executors.newSingleThreadExecutor(r -> daemon(r, "run-dispatch"));
    /** False from the shutdown on, and always in runner mode ({@code tapline.runner.single-run}: one run only). */
    private final AtomicBoolean accepting;
    private final AtomicInteger threadNo = new AtomicInteger();
    private volatile boolean shuttingDown;

    public RunDispatcher(RunRepository runs, RunExecutor executor, InstanceId instance, Clock clock,
                         TaplineConfig config) {
        this.runs = runs;
        this.executor = executor;
        this.instance = instance;
        this.clock = clock;
        this.maxSlots = Math.max(0, config.runner().maxConcurrentRuns());
        this.slots = new Semaphore(maxSlots);
        this.accepting = new AtomicBoolean(!config.runner().singleRun());
        this.pool = Executors.newCachedThreadPool(r -> daemon(r, "run-" + threadNo.incrementAndGet()));
    }

    @Scheduled(every = "{tapline.runner.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            delayed = "1s")
    void poll() {
        dispatch();
    }

    void onQueued(@Observes(during = TransactionPhase.AFTER_SUCCESS) RunService.RunQueued event) {
        wakeups.execute(this::dispatch);
    }

    /** Claims and starts due runs while this replica has free slots. */
    public void dispatch() {
        dispatchLock.lock();
        try {
            claimWhileFree();
        } finally {
            dispatchLock.unlock();
        }
    }

    private void claimWhileFree() {
        while (accepting.get()) {
            int free = slots.drainPermits();
            if (free == 0) {
                return;
            }
            List<UUID> claimed;
            try {
                claimed = QuarkusTransaction.requiringNew().call(
                        () -> runs.claimDue(instance.get(), OffsetDateTime.now(clock), free));
            } catch (RuntimeException e) {
                slots.release(free);
                if (!claimFailing) {
                    claimFailing = true;
                    LOG.warnf("Claiming a queued run failed (repeats are logged at DEBUG until it works again): %s",
                            e.getMessage());
                } else {
                    LOG.debugf("Claiming a queued run failed: %s", e.getMessage());
                }
                return;
            }
            if (claimFailing) {
                claimFailing = false;
                LOG.info("Claiming queued runs works again");
            }
            // Each claimed run keeps one permit until it ended; the others are free again.
            slots.release(free - claimed.size());
            for (UUID id : claimed) {
                start(id);
            }
            if (claimed.size() < free) {
                return;
            }
        }
    }

    private void start(UUID id) {
        pool.execute(() -> {
            try {
                executor.execute(id);
            } catch (Throwable t) {
                if (!shuttingDown) {
                    LOG.errorf(t, "Run %s ended with an unexpected error", id);
                } else {
                    // during the shutdown: reported by RunExecutor#shutdown, no stack trace
                    LOG.debugf("Run %s ended during the shutdown: %s", id, t);
                }
            } finally {
                slots.release();
                if (accepting.get()) {
                    wakeups.execute(this::dispatch);
                }
            }
        });
    }

    /**
     * Stops claiming runs; running ones are stopped by {@link RunExecutor#shutdown}, and this waits
     * (until the executor's shutdown deadline) for every claimed run to be recorded as ended.
     */
    void onShutdown(@Observes @Priority(1) ShutdownEvent event) {
        shuttingDown = true;
        accepting.set(false);
        wakeups.shutdownNow();
        boolean locked = false;
        try {
            // A claim in progress hands its run over before the executor is told to stop.
            locked = dispatchLock.tryLock(5, TimeUnit.SECONDS);
            boolean recorded = executor.shutdown();
            // Runs handed to the pool but not yet executing end at once ("service shutdown"); a run
            // thread releases its slot just after it left the executor.
            long left = Math.max(executor.shutdownDeadline() - System.nanoTime(), 0) + SLOT_RELEASE_WAIT_NANOS;
            if (slots.tryAcquire(maxSlots, left, TimeUnit.NANOSECONDS)) {
                slots.release(maxSlots);
            } else if (recorded) {
                LOG.warnf("%d claimed run(s) did not end before the shutdown deadline",
                        maxSlots - slots.availablePermits());
            } else {
                // already reported in one line by RunExecutor#shutdown
                LOG.debugf("%d claimed run(s) did not end before the shutdown deadline",
                        maxSlots - slots.availablePermits());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (locked) {
                dispatchLock.unlock();
            }
            pool.shutdown();
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
