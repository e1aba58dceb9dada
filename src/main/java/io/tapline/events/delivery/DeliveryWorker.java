package io.tapline.events.delivery;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.tapline.common.config.TaplineConfig;
import io.tapline.events.EventMetrics;
import io.tapline.events.EventRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Delivers the outbox: every replica polls ({@code tapline.events.poll-interval}), claims due
 * deliveries with {@code SKIP LOCKED} (so each attempt is made by one replica), sends each
 * outside any transaction, and settles it: DELIVERED on 2xx, else retried after
 * {@code backoff-initial * 2^(attempt-1)} capped at {@code backoff-max}, and given up (FAILED)
 * when the next try would fall after {@code give-up-after} from the event. Attempts run on delivery
 * threads, bounded in all and per receiver ({@link DeliverySlots}), so a receiver that never
 * answers holds up only its own deliveries. Each delivery is handled in its own try/catch, so one
 * bad row never stops the sweep. While the database is
 * unreachable, the first failed claim is logged (WARN) and repeats at DEBUG; on shutdown it stops
 * polling before the application goes away ({@link #onShutdown}).
 */
@ApplicationScoped
public class DeliveryWorker {

    private static final Logger LOG = Logger.getLogger(DeliveryWorker.class);
    static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final DeliveryRepository deliveries;
    private final EventRepository events;
    private final DeliverySender sender;
    private final TaplineConfig config;
    private final EventMetrics metrics;
    private final Clock clock;
    /** One permit per scheduled job (poll, prune) in progress; the shutdown takes both. */
    private final Semaphore busy = new Semaphore(2);
    private volatile boolean stopped;
    private volatile boolean claimFailing;
    private final DeliverySlots slots;
    private final ExecutorService pool;

    public DeliveryWorker(DeliveryRepository deliveries, EventRepository events, DeliverySender sender,
                          TaplineConfig config, EventMetrics metrics, Clock clock) {
        this.deliveries = deliveries;
        this.events = events;
        this.sender = sender;
        this.config = config;
        this.metrics = metrics;
        this.clock = clock;
        this.slots = new DeliverySlots(config.events().maxConcurrent(), config.events().maxConcurrentPerEndpoint());
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(Math.max(1, config.events().maxConcurrent()), r -> {
            Thread t = new Thread(r, "event-delivery-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Scheduled(every = "{tapline.events.poll-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void tick() {
        if (!config.events().deliver() || !busy.tryAcquire()) {
            return;
        }
        try {
            if (!stopped) {
                deliverDue();
            }
        } finally {
            busy.release();
        }
    }

    @Scheduled(every = "1h", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void pruneTick() {
        if (!busy.tryAcquire()) {
            return;
        }
        try {
            if (!stopped) {
                prune(clock.instant());
            }
        } finally {
            busy.release();
        }
    }

    /**
     * On service shutdown, before the application's beans and the datasource go away: no poll
     * starts from now on, and a poll in progress gets up to {@link #STOP_WAIT} to finish (an
     * unfinished attempt is retried after its lease by any replica).
     */
    void onShutdown(@Observes ShutdownEvent event) {
        stopped = true;
        try {
            if (busy.tryAcquire(2, STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                busy.release(2);
            } else {
                LOG.debugf("A delivery poll was still running at shutdown; its attempts are retried after their lease");
            }
            pool.shutdown();
            if (!pool.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
                LOG.debugf("Delivery attempts were still running at shutdown; they are retried after their lease");
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Claims a batch of due deliveries (at most {@code batch-size}, and no more than places are free)
     * and starts each attempt on a delivery thread, at most {@code max-concurrent-per-endpoint} per
     * receiver (OpenLineage: one, so its events stay in order): a claimed delivery whose receiver has
     * no free place is handed back, due again after {@code tapline.events.timeout} (OpenLineage:
     * after {@code poll-interval}), its attempt not counted, so it never holds the batch of other
     * receivers.
     *
     * @return the number of attempts started
     */
    public int deliverDue() {
        int free = slots.free();
        if (free <= 0) {
            return 0;
        }
        List<Claimed> batch;
        OffsetDateTime now = OffsetDateTime.now(clock);
        try {
            batch = QuarkusTransaction.requiringNew().call(() ->
                    deliveries.claim(now, now.plus(config.events().lease()), Math.min(free, config.events().batchSize())));
        } catch (RuntimeException e) {
            if (stopped) {
                LOG.debugf("Claiming due event deliveries failed during the shutdown: %s", rootMessage(e));
            } else if (!claimFailing) {
                claimFailing = true;
                LOG.warnf("Claiming due event deliveries failed (repeats are logged at DEBUG until it works again): %s",
                        rootMessage(e));
            } else {
                LOG.debugf("Claiming due event deliveries failed: %s", rootMessage(e));
            }
            return 0;
        }
        if (claimFailing) {
            claimFailing = false;
            LOG.info("Claiming due event deliveries works again");
        }
        int started = 0;
        for (Claimed d : batch) {
            String endpoint = DeliverySlots.endpoint(d);
            if (!place(endpoint)) {
                // OpenLineage waits for its one place only as long as the attempt before it lasts
                handBack(d, now.plus(DeliverySlots.OPENLINEAGE.equals(endpoint) ? config.events().pollInterval()
                        : config.events().timeout()));
                continue;
            }
            try {
                pool.execute(() -> {
                    try {
                        attempt(d);
                    } catch (RuntimeException e) {
                        LOG.warnf("Delivery %s (attempt %d) could not be settled: %s; it is retried after its lease",
                                d.id(), d.attempt(), e.getMessage());
                    } finally {
                        slots.release(endpoint);
                    }
                });
                started++;
            } catch (RejectedExecutionException e) {
                slots.release(endpoint);
                return started; // shutting down: the lease hands the rest to another replica
            }
        }
        return started;
    }

    /**
     * A place for an attempt to {@code endpoint}: at once or not at all for a webhook; for
     * OpenLineage, whose events must keep their order, after the attempt in flight (at most
     * {@code tapline.events.timeout} and a second), so a claimed event is never overtaken.
     */
    private boolean place(String endpoint) {
        if (!DeliverySlots.OPENLINEAGE.equals(endpoint)) {
            return slots.tryAcquire(endpoint);
        }
        try {
            return slots.acquire(endpoint, config.events().timeout().toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void handBack(Claimed d, OffsetDateTime due) {
        try {
            QuarkusTransaction.requiringNew().run(() -> deliveries.handBack(d.id(), d.attempt(), due));
        } catch (RuntimeException e) {
            LOG.warnf("Delivery %s could not be handed back: %s; it is retried after its lease", d.id(), e.getMessage());
        }
    }

    private void attempt(Claimed d) {
        DeliverySender.Result r = sender.send(d);
        OffsetDateTime at = OffsetDateTime.now(clock);
        OffsetDateTime next = r.delivered() ? null : at.plus(backoff(d.attempt()));
        boolean giveUp = !r.delivered() && next.isAfter(d.giveUpAt());
        boolean settled = QuarkusTransaction.requiringNew().call(() -> deliveries.settle(d.id(), d.attempt(), at,
                r.statusCode(), r.error(), r.delivered(), giveUp ? null : next, r.durationMs()));
        if (!settled) {
            return;
        }
        metrics.delivery(d.sink(), r.delivered() ? "delivered" : giveUp ? "given_up" : "retry");
        if (r.delivered()) {
            LOG.debugf("Delivery %s (%s %s) delivered on attempt %d", d.id(), d.sink(), d.eventType(), d.attempt());
        } else if (giveUp) {
            LOG.warnf("Delivery %s (%s %s) given up after %d attempts: %s", d.id(), d.sink(), d.eventType(),
                    d.attempt(), r.error());
        } else {
            LOG.infof("Delivery %s (%s %s) attempt %d failed (%s); next try at %s", d.id(), d.sink(), d.eventType(),
                    d.attempt(), r.error(), next);
        }
    }

    /** The innermost message of an exception, never null. */
    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    /** Wait after the {@code attempt}-th failed attempt: initial * 2^(attempt-1), capped. */
    Duration backoff(int attempt) {
        Duration initial = config.events().backoffInitial();
        Duration max = config.events().backoffMax();
        int shift = Math.min(Math.max(attempt - 1, 0), 30);
        Duration d = initial.multipliedBy(1L << shift);
        return d.compareTo(max) > 0 || d.isNegative() ? max : d;
    }

    /** Deletes events older than {@code tapline.events.keep-days} with their deliveries, in batches. */
    public int prune(Instant now) {
        OffsetDateTime cutoff = now.atOffset(ZoneOffset.UTC).minusDays(config.events().keepDays());
        int total = 0;
        try {
            int n;
            do {
                n = QuarkusTransaction.requiringNew().call(() -> events.deleteOlderThan(cutoff, 1000));
                total += n;
            } while (n > 0);
        } catch (RuntimeException e) {
            LOG.warnf("Pruning old events failed: %s", e.getMessage());
        }
        return total;
    }
}
