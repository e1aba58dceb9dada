package io.tapline.schedule;

import io.tapline.common.error.InvalidInputException;
import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.pipeline.schedule.Interval;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fires scheduled runs on one replica. Plain Java: the time comes in as an argument, so tests drive
 * it with fixed clocks; {@link ScheduleTickerJob} wires it into Quarkus.
 * <p>Every replica runs one ticker over the same pipelines. Each keeps, in memory, every scheduled
 * pipeline's next fire time in a priority queue (loaded with one query at {@link #start}), and
 * when a time is due asks {@link ScheduleStore#fireAll} to record the ticks of every pipeline due,
 * in batches of {@value #BATCH_SIZE} per transaction ({@link TickFirer}); the unique index on
 * {@code (pipeline_id, scheduled_for)} turns the other replicas' attempts into no-ops, so each
 * (pipeline, tick) yields exactly one run row: QUEUED, or SKIPPED while the state ID is busy.
 * <p>Rules (product.md §5):
 * <ul>
 *   <li>Next fire times count from "now" when a pipeline is loaded, edited or resumed; missed ticks
 *   are never replayed. A tick noticed more than {@code misfireGrace} late (a stalled process) is
 *   dropped.</li>
 *   <li>{@link CatchUp#ONE}: when the ticker starts, or sees a paused pipeline resumed, and the
 *   latest tick at or before now is later than the pipeline's last scheduled run (or its creation),
 *   that one tick is fired.</li>
 *   <li>{@code @once} fires one run with {@code scheduled_for} = the pipeline's creation time, so
 *   it runs once per pipeline across the cluster, whenever a ticker first sees it enabled.</li>
 * </ul>
 * Changes reach the ticker through {@link #refresh} (this replica's edits, at once) and
 * {@link #resync} (every replica's, by comparing row versions). Thread-safe; the in-memory state
 * is guarded by this object's monitor and database work happens outside it.
 */
public final class ScheduleTicker implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ScheduleTicker.class);

    /** After a failed database write, the ticker waits this long before trying due ticks again. */
    private static final Duration FAILURE_BACKOFF = Duration.ofSeconds(1);

    /** Ticks recorded per transaction when many pipelines are due at one instant. */
    static final int BATCH_SIZE = 1000;

    private final ScheduleStore store;
    private final Clock clock;
    private final Duration misfireGrace;
    private final String name;
    private final Stats stats = new Stats();
    private final TickFirer firer;
    private final Map<String, Optional<Interval>> intervals = new ConcurrentHashMap<>();
    private final ReentrantLock ticking = new ReentrantLock();

    // Guarded by `this`.
    private final Map<Long, Entry> entries = new HashMap<>();
    private final PriorityQueue<Entry> queue = new PriorityQueue<>(Comparator.comparing(Entry::next));
    private long sequence;
    private boolean loaded;
    private ScheduledThreadPoolExecutor timer;
    private ScheduledFuture<?> wakeup;
    private Instant wakeAt;
    private Instant backoffUntil;
    private volatile boolean tickRequested;

    /**
     * One pipeline's schedule in memory.
     *
     * @param pipeline the row it was planned from
     * @param interval parsed interval, null when the stored one no longer parses
     * @param zone parsed zone
     * @param next next fire time, null when none (paused, manual, {@code @once})
     * @param seq when it was planned (resync keeps entries planned after its snapshot)
     */
    record Entry(ScheduledPipeline pipeline, Interval interval, ZoneId zone, Instant next, long seq) {
    }

    /** Counters of what this ticker did since it started (exported as metrics). */
    public static final class Stats {
        /** Runs queued for ticks. */
        public final AtomicLong queued = new AtomicLong();
        /** Ticks recorded as SKIPPED because the state ID was busy. */
        public final AtomicLong skipped = new AtomicLong();
        /** Ticks another replica (or an earlier attempt) had already fired. */
        public final AtomicLong alreadyFired = new AtomicLong();
        /** Ticks not fired because they were noticed more than the misfire grace late. */
        public final AtomicLong missed = new AtomicLong();
        /** Catch-up runs attempted. */
        public final AtomicLong catchUps = new AtomicLong();
        /** Attempts that failed with an error (database unavailable and the like). */
        public final AtomicLong failed = new AtomicLong();
    }

    /**
     * @param store database access
     * @param clock time source for wake-ups and for follow-up work (tests pass a fixed clock)
     * @param misfireGrace how late a tick may still be fired
     * @param name name of the ticker in logs and in its thread's name
     */
    public ScheduleTicker(ScheduleStore store, Clock clock, Duration misfireGrace, String name) {
        this(store, clock, misfireGrace, name, BATCH_SIZE, ThreadLocalRandom.current().nextDouble());
    }

    /**
     * @param batchSize ticks recorded per transaction when many pipelines are due at once
     * @param phase where in the pipeline-id-ordered batches this ticker starts, in [0, 1) (random
     *              by default, so two replicas mostly write different batches first)
     */
    ScheduleTicker(ScheduleStore store, Clock clock, Duration misfireGrace, String name, int batchSize, double phase) {
        this.store = store;
        this.clock = clock;
        this.misfireGrace = misfireGrace;
        this.name = name;
        this.firer = new TickFirer(store, stats, batchSize, phase, this::backOff);
    }

    /**
     * Loads every schedule and starts the wake-up thread, which ticks exactly when the next fire
     * time is due (so the lag from the scheduled instant to the run row is milliseconds, not the
     * tick interval). Call once.
     *
     * @return the number of scheduled pipelines loaded
     */
    public int start() {
        synchronized (this) {
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
        return load(clock.instant());
    }

    /**
     * Stops the wake-up thread, letting a tick in progress finish (up to 10 s); later ticks still
     * work when called directly.
     */
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

    /**
     * Loads every scheduled pipeline with one query and plans its next fire time after
     * {@code now}; then fires the catch-up runs ({@link CatchUp#ONE}) and pending {@code @once}
     * runs. Replaces whatever was in memory.
     *
     * @return the number of pipelines loaded
     */
    public int load(Instant now) {
        long began = System.nanoTime();
        List<ScheduledPipeline> rows = store.loadAll();
        List<Entry> catchUps = new ArrayList<>();
        List<Entry> onces = new ArrayList<>();
        // Pipelines sharing an interval and a time zone share their next fire time after `now`:
        // computed once (100,000 pipelines mostly share a few such pairs).
        Map<String, Optional<Instant>> nextFires = new HashMap<>();
        synchronized (this) {
            entries.clear();
            queue.clear();
            for (ScheduledPipeline row : rows) {
                Entry e = plan(row, now, nextFires);
                put(e);
                if (row.enabled() && e.interval() != null) {
                    if (e.interval().isRecurring() && row.catchUp() == CatchUp.ONE) {
                        catchUps.add(e);
                    } else if (e.interval().kind() == Interval.Kind.ONCE) {
                        onces.add(e);
                    }
                }
            }
            loaded = true;
        }
        LOG.infof("Schedule ticker %s loaded %d scheduled pipelines in %d ms", name, rows.size(),
                (System.nanoTime() - began) / 1_000_000);
        catchUps.forEach(e -> catchUp(e, now));
        onces.forEach(this::fireOnce);
        arm();
        return rows.size();
    }

    /**
     * Fires every tick due at {@code now}: each pipeline whose next fire time is not after
     * {@code now} gets its tick recorded (in batches of set-based statements; a failed batch is
     * retried one tick per transaction, so one bad pipeline does not stop the others), then its
     * next fire time after that tick is planned.
     * A call while another tick is running makes that one look again instead of waiting.
     */
    public void tick(Instant now) {
        if (!isLoaded()) {
            return;
        }
        if (!ticking.tryLock()) {
            tickRequested = true;
            return;
        }
        try {
            runDue(now);
            while (tickRequested) {
                tickRequested = false;
                runDue(clock.instant());
            }
        } finally {
            ticking.unlock();
        }
        arm();
    }

    /**
     * Re-reads one pipeline (after this replica changed it) and re-plans it from {@code now}.
     * A paused pipeline seen resumed gets its catch-up run under {@link CatchUp#ONE}.
     */
    public void refresh(long pipelineId, Instant now) {
        if (!isLoaded()) {
            return;
        }
        apply(pipelineId, store.load(pipelineId), now);
        arm();
    }

    /**
     * Compares the in-memory schedules with the database (one query): pipelines added, changed
     * (another {@code version}), paused, resumed or deleted through any replica are re-planned
     * from {@code now} or dropped.
     */
    public void resync(Instant now) {
        if (!isLoaded()) {
            return;
        }
        long snapshot;
        synchronized (this) {
            snapshot = ++sequence;
        }
        List<ScheduledPipeline> rows = store.loadAll();
        Set<Long> present = new HashSet<>();
        for (ScheduledPipeline row : rows) {
            present.add(row.id());
            apply(row.id(), Optional.of(row), now);
        }
        synchronized (this) {
            // Entries planned after the snapshot come from newer events; keep them.
            entries.values().removeIf(e -> e.seq() < snapshot && !present.contains(e.pipeline().id()));
            compact();
        }
        arm();
    }

    /** The next fire time this ticker holds for a pipeline, if any. */
    public synchronized Optional<Instant> nextFireTime(long pipelineId) {
        Entry e = entries.get(pipelineId);
        return e == null ? Optional.empty() : Optional.ofNullable(e.next());
    }

    /** The number of pipelines with a schedule held in memory (paused ones included). */
    public synchronized int size() {
        return entries.size();
    }

    /** What this ticker did so far. */
    public Stats stats() {
        return stats;
    }

    // ---- internals ---------------------------------------------------------------------------

    private synchronized boolean isLoaded() {
        return loaded;
    }

    /**
     * Fires every due entry's ticks up to {@code now}: one round per tick instant an entry is
     * behind (usually one), each round's ticks recorded in batches ({@link TickFirer}); then plans
     * each entry's next fire time.
     */
    private void runDue(Instant now) {
        List<Due> round = new ArrayList<>();
        for (Entry e : pollDue(now)) {
            Instant t = firstDue(e, now);
            if (t != null && !t.isAfter(now)) {
                round.add(new Due(e, t));
            } else {
                reschedule(e, t);
            }
        }
        while (!round.isEmpty()) {
            List<ScheduleStore.Fire> fired = firer.fireAll(
                    round.stream().map(d -> new ScheduleStore.Tick(d.entry().pipeline(), d.tick())).toList(), "tick");
            List<Due> next = new ArrayList<>();
            for (int i = 0; i < round.size(); i++) {
                Entry e = round.get(i).entry();
                Instant t = round.get(i).tick();
                ScheduleStore.Fire fire = fired.get(i);
                if (fire == null) {
                    reschedule(e, t); // the database failed: try this tick again shortly
                } else if (fire.outcome() == ScheduleStore.Outcome.STALE) {
                    replan(e, t, now);
                } else {
                    Instant after = e.interval().nextAfter(t, e.zone()).orElse(null);
                    if (after != null && !after.isAfter(now)) {
                        next.add(new Due(e, after));
                    } else {
                        reschedule(e, after);
                    }
                }
            }
            round = next;
        }
    }

    /** A due tick of an entry. */
    private record Due(Entry entry, Instant tick) {
    }

    private synchronized List<Entry> pollDue(Instant now) {
        List<Entry> due = new ArrayList<>();
        while (!queue.isEmpty() && !queue.peek().next().isAfter(now)) {
            Entry e = queue.poll();
            if (entries.get(e.pipeline().id()) == e) {
                due.add(e);
            }
        }
        return due;
    }

    /** The entry's first tick to fire: its next fire time, or the first within the misfire grace. */
    private Instant firstDue(Entry e, Instant now) {
        Instant t = e.next();
        Instant earliest = now.minus(misfireGrace);
        if (t.isBefore(earliest)) {
            stats.missed.incrementAndGet();
            LOG.warnf("Pipeline '%s': tick %s noticed more than %s late; not replayed", e.pipeline().name(), t,
                    misfireGrace);
            t = e.interval().nextAfter(earliest.minusNanos(1), e.zone()).orElse(null);
        }
        return t;
    }

    /**
     * The pipeline changed under a due tick: re-plan it from the stored row, and still fire the
     * tick if the new schedule has it too.
     */
    private void replan(Entry stale, Instant tick, Instant now) {
        long id = stale.pipeline().id();
        Optional<ScheduledPipeline> row;
        try {
            row = store.load(id);
        } catch (RuntimeException ex) {
            stats.failed.incrementAndGet();
            LOG.errorf(ex, "Pipeline '%s': re-reading its schedule failed", stale.pipeline().name());
            reschedule(stale, tick);
            return;
        }
        Entry fresh = apply(id, row, now);
        if (fresh == stale) {
            // The stored row is not newer than the one held: keep the entry and go on with the next tick.
            reschedule(stale, stale.interval().nextAfter(tick, stale.zone()).orElse(null));
            return;
        }
        if (fresh != null && fresh.pipeline().enabled() && fresh.interval() != null && fresh.interval().isRecurring()
                && fresh.interval().nextAfter(tick.minusMillis(1), fresh.zone()).filter(tick::equals).isPresent()) {
            fire(fresh.pipeline(), tick, "tick");
        }
    }

    /**
     * Replaces a pipeline's entry with one planned from {@code row} (or drops it when the row is
     * gone), unless the row is not newer than what is held. Fires the catch-up run of a resumed
     * pipeline and a pending {@code @once} run.
     *
     * @return the entry now held, or null when none
     */
    private Entry apply(long id, Optional<ScheduledPipeline> row, Instant now) {
        Entry old;
        Entry created;
        synchronized (this) {
            old = entries.get(id);
            if (row.isEmpty()) {
                entries.remove(id);
                return null;
            }
            if (old != null && row.get().version() <= old.pipeline().version()) {
                return old;
            }
            created = plan(row.get(), now);
            put(created);
        }
        ScheduledPipeline p = created.pipeline();
        boolean usable = p.enabled() && created.interval() != null;
        boolean wasRunning = old != null && old.pipeline().enabled();
        if (usable && old != null && !wasRunning && created.interval().isRecurring() && p.catchUp() == CatchUp.ONE) {
            catchUp(created, now);
        }
        if (usable && created.interval().kind() == Interval.Kind.ONCE
                && (!wasRunning || old.interval() == null || old.interval().kind() != Interval.Kind.ONCE)) {
            fireOnce(created);
        }
        return created;
    }

    private Entry plan(ScheduledPipeline p, Instant now) {
        return plan(p, now, null);
    }

    /**
     * The entry of {@code p} with its next fire time after {@code now}; {@code nextFires} (when not
     * null) remembers those times by interval and zone for calls with the same {@code now}.
     */
    private Entry plan(ScheduledPipeline p, Instant now, Map<String, Optional<Instant>> nextFires) {
        Interval interval = intervals.computeIfAbsent(p.interval(), ScheduleTicker::parseOrEmpty).orElse(null);
        ZoneId zone;
        try {
            zone = Interval.zone(p.timezone());
        } catch (InvalidInputException e) {
            LOG.warnf("Pipeline '%s' has an unusable time zone '%s'; it is not scheduled", p.name(), p.timezone());
            interval = null;
            zone = null;
        }
        Instant next = null;
        if (p.enabled() && interval != null) {
            Interval i = interval;
            ZoneId z = zone;
            next = (nextFires == null ? i.nextAfter(now, z)
                    : nextFires.computeIfAbsent(p.interval() + "\n" + z.getId(), k -> i.nextAfter(now, z))).orElse(null);
        }
        synchronized (this) {
            return new Entry(p, interval, zone, next, ++sequence);
        }
    }

    private static Optional<Interval> parseOrEmpty(String text) {
        try {
            return Optional.of(Interval.parse(text));
        } catch (InvalidInputException e) {
            LOG.warnf("Schedule interval '%s' no longer parses (%s); pipelines using it are not scheduled", text,
                    e.getMessage());
            return Optional.empty();
        }
    }

    /** Holds {@code e}; queues it when it has a fire time. Caller holds the monitor. */
    private void put(Entry e) {
        entries.put(e.pipeline().id(), e);
        if (e.next() != null) {
            queue.add(e);
        }
    }

    /** Plans {@code next} for the pipeline of {@code e}, unless a newer entry replaced it meanwhile. */
    private synchronized void reschedule(Entry e, Instant next) {
        if (entries.get(e.pipeline().id()) == e) {
            put(new Entry(e.pipeline(), e.interval(), e.zone(), next, e.seq()));
        }
        compact();
    }

    /** Drops superseded queue entries once they outnumber the live ones. Caller holds the monitor. */
    private void compact() {
        if (queue.size() > 2 * entries.size() + 64) {
            queue.clear();
            entries.values().stream().filter(x -> x.next() != null).forEach(queue::add);
        }
    }

    private void catchUp(Entry e, Instant now) {
        Optional<Instant> missed = e.interval().lastAtOrBefore(now, e.zone());
        if (missed.isEmpty()) {
            return;
        }
        try {
            Instant since = store.lastTick(e.pipeline().id()).orElse(e.pipeline().createdAt().toInstant());
            if (!missed.get().isAfter(since)) {
                return;
            }
        } catch (RuntimeException ex) {
            stats.failed.incrementAndGet();
            LOG.errorf(ex, "Pipeline '%s': reading its last tick for a catch-up run failed", e.pipeline().name());
            return;
        }
        stats.catchUps.incrementAndGet();
        fire(e.pipeline(), missed.get(), "catch-up");
    }

    private void fireOnce(Entry e) {
        fire(e.pipeline(), e.pipeline().createdAt().toInstant(), "@once");
    }

    /** Records one tick; null when it failed with an error (logged and counted). */
    private ScheduleStore.Fire fire(ScheduledPipeline p, Instant tick, String why) {
        return firer.fire(p, tick, why);
    }

    private synchronized void backOff() {
        backoffUntil = clock.instant().plus(FAILURE_BACKOFF);
    }

    /** Sets the wake-up for the earliest fire time, when it is earlier than the one already set. */
    private synchronized void arm() {
        if (timer == null) {
            return;
        }
        while (!queue.isEmpty() && entries.get(queue.peek().pipeline().id()) != queue.peek()) {
            queue.poll();
        }
        if (queue.isEmpty()) {
            return;
        }
        Instant at = queue.peek().next();
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
            tick(clock.instant());
        } catch (RuntimeException e) {
            LOG.errorf(e, "Schedule ticker %s: tick failed", name);
        }
    }
}
