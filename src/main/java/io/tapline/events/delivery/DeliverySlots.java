package io.tapline.events.delivery;

import java.net.URI;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Bounds the delivery attempts one replica has in flight: at most {@code total}
 * ({@code tapline.events.max-concurrent}) in all and {@code perEndpoint}
 * ({@code tapline.events.max-concurrent-per-endpoint}) per receiver (scheme-less host and port of a
 * webhook URL; OpenLineage is one receiver with one place, so its events keep their order), so
 * that receivers that accept and never answer hold
 * only their own places, never those of the others. Thread-safe.
 */
final class DeliverySlots {

    /** The receiver key of OpenLineage deliveries. */
    static final String OPENLINEAGE = "openlineage";

    private final int total;
    private final int perEndpoint;
    private final Map<String, Integer> busy = new HashMap<>();
    private int inFlight;

    DeliverySlots(int total, int perEndpoint) {
        this.total = Math.max(1, total);
        this.perEndpoint = Math.max(1, perEndpoint);
    }

    /** Places free in all (not per receiver). */
    synchronized int free() {
        return total - inFlight;
    }

    /**
     * Takes a place for an attempt to {@code endpoint}; false when the total or the receiver's is full.
     * OpenLineage has one place: its events go one at a time, in order (a run's START before its end).
     */
    synchronized boolean tryAcquire(String endpoint) {
        int limit = OPENLINEAGE.equals(endpoint) ? 1 : perEndpoint;
        if (inFlight >= total || busy.getOrDefault(endpoint, 0) >= limit) {
            return false;
        }
        inFlight++;
        busy.merge(endpoint, 1, Integer::sum);
        return true;
    }

    /**
     * {@link #tryAcquire}, waiting up to {@code timeoutMillis} for a place: what OpenLineage uses, so
     * that an event claimed while the one before it is in flight goes after it instead of being
     * handed back and overtaken by a later one (a run's ABORT before its START).
     *
     * @return false when no place came free in time
     */
    synchronized boolean acquire(String endpoint, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!tryAcquire(endpoint)) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Gives back a place taken by {@link #tryAcquire} or {@link #acquire}. */
    synchronized void release(String endpoint) {
        inFlight--;
        busy.computeIfPresent(endpoint, (k, n) -> n > 1 ? n - 1 : null);
        notifyAll();
    }

    /** The receiver of a delivery: {@code host:port} of its webhook URL (default port by scheme), or {@link #OPENLINEAGE}. */
    static String endpoint(Claimed d) {
        if (d.url() == null) {
            return OPENLINEAGE;
        }
        try {
            URI u = URI.create(d.url());
            if (u.getHost() == null) {
                return d.url();
            }
            int port = u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
            return u.getHost().toLowerCase(Locale.ROOT) + ":" + port;
        } catch (IllegalArgumentException e) {
            return d.url();
        }
    }
}
