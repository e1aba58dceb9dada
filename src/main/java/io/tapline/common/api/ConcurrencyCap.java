package io.tapline.common.api;

import io.tapline.common.error.LimitExceededException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cap on how many of one kind of work (large reads, connector probes) run at once on this
 * replica: at most {@code perCaller} for one caller and {@code total} in all. Beyond either,
 * {@link #enter} refuses at once with a {@link LimitExceededException} naming the setting (429
 * problem+json {@code too-many-requests} at the edge); nothing waits. Plain Java, thread-safe.
 */
public final class ConcurrencyCap {

    /** A place taken by {@link #enter}; {@link #close()} gives it back (once, whoever calls it). */
    public final class Permit implements AutoCloseable {
        private final String caller;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Permit(String caller) {
            this.caller = caller;
        }

        /** Gives the place back; later calls do nothing. */
        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                inUse.decrementAndGet();
                release(caller);
            }
        }
    }

    private final String what;
    private final int perCaller;
    private final int total;
    private final String perCallerSetting;
    private final String totalSetting;
    private final AtomicInteger inUse = new AtomicInteger();
    private final Map<String, Integer> byCaller = new ConcurrentHashMap<>();

    /**
     * @param what what is counted, plural, for the refusal ("large reads", "connector probes")
     * @param perCaller most at once for one caller (at least 1)
     * @param total most at once in all (at least 1)
     * @param perCallerSetting the setting that sets {@code perCaller}, named in the refusal
     * @param totalSetting the setting that sets {@code total}, named in the refusal
     */
    public ConcurrencyCap(String what, int perCaller, int total, String perCallerSetting, String totalSetting) {
        this.what = what;
        this.perCaller = Math.max(1, perCaller);
        this.total = Math.max(1, total);
        this.perCallerSetting = perCallerSetting;
        this.totalSetting = totalSetting;
    }

    /**
     * Takes a place for {@code caller}.
     *
     * @param caller who asks ({@link io.tapline.common.security.CurrentActor#key()})
     * @return the permit, to be closed when the work is done
     * @throws LimitExceededException (concurrency; 429 at the edge) when the caller or the replica is at its cap
     */
    public Permit enter(String caller) {
        boolean[] admitted = new boolean[1];
        byCaller.compute(caller, (k, n) -> {
            int mine = n == null ? 0 : n;
            admitted[0] = mine < perCaller;
            return admitted[0] ? Integer.valueOf(mine + 1) : n;
        });
        if (!admitted[0]) {
            throw new LimitExceededException(LimitExceededException.Limit.CONCURRENCY, "You already have " + perCaller + " " + what
                    + " running (" + perCallerSetting + "); wait for one to finish and retry.");
        }
        if (inUse.incrementAndGet() > total) {
            inUse.decrementAndGet();
            release(caller);
            throw new LimitExceededException(LimitExceededException.Limit.CONCURRENCY, "The service already runs " + total + " " + what
                    + " (" + totalSetting + "); retry in a moment.");
        }
        return new Permit(caller);
    }

    /** Places taken now, in all (for tests and metrics). */
    public int inUse() {
        return inUse.get();
    }

    private void release(String caller) {
        byCaller.computeIfPresent(caller, (k, n) -> n <= 1 ? null : n - 1);
    }
}
