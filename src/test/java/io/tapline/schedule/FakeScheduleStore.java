package io.tapline.schedule;

import io.tapline.pipeline.schedule.CatchUp;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * An in-memory {@link ScheduleStore} with the same once-per-tick rule as the database: a second
 * fire of a (pipeline, tick) is ALREADY_FIRED, and a pipeline whose state is "busy" gets SKIPPED.
 */
final class FakeScheduleStore implements ScheduleStore {

    /** One recorded tick. */
    record Fired(long pipelineId, Instant tick, Outcome outcome) {
    }

    final Map<Long, ScheduledPipeline> rows = Collections.synchronizedMap(new LinkedHashMap<>());
    final List<Fired> fired = Collections.synchronizedList(new ArrayList<>());
    final Set<Long> busy = Collections.synchronizedSet(new HashSet<>());
    private final Set<String> slots = Collections.synchronizedSet(new HashSet<>());
    volatile int loadAllCalls;

    ScheduledPipeline add(long id, String interval, String zone) {
        return put(new ScheduledPipeline(id, "p" + id, 0, interval, zone, true, CatchUp.NONE,
                OffsetDateTime.parse("2026-01-01T00:00:00Z")));
    }

    ScheduledPipeline put(ScheduledPipeline p) {
        rows.put(p.id(), p);
        return p;
    }

    /** Changes a row the way an update does: new version. */
    ScheduledPipeline update(long id, java.util.function.UnaryOperator<ScheduledPipeline> change) {
        ScheduledPipeline old = rows.get(id);
        ScheduledPipeline changed = change.apply(old);
        return put(new ScheduledPipeline(id, changed.name(), old.version() + 1, changed.interval(), changed.timezone(),
                changed.enabled(), changed.catchUp(), changed.createdAt()));
    }

    static ScheduledPipeline with(ScheduledPipeline p, boolean enabled) {
        return new ScheduledPipeline(p.id(), p.name(), p.version(), p.interval(), p.timezone(), enabled, p.catchUp(),
                p.createdAt());
    }

    static ScheduledPipeline with(ScheduledPipeline p, CatchUp catchUp) {
        return new ScheduledPipeline(p.id(), p.name(), p.version(), p.interval(), p.timezone(), p.enabled(), catchUp,
                p.createdAt());
    }

    static ScheduledPipeline with(ScheduledPipeline p, String interval) {
        return new ScheduledPipeline(p.id(), p.name(), p.version(), interval, p.timezone(), p.enabled(), p.catchUp(),
                p.createdAt());
    }

    /** Ticks of one pipeline that produced a row (QUEUED or SKIPPED), as UTC strings. */
    List<String> ticks(long id) {
        synchronized (fired) {
            return fired.stream().filter(f -> f.pipelineId() == id)
                    .filter(f -> f.outcome() == Outcome.QUEUED || f.outcome() == Outcome.SKIPPED)
                    .map(f -> f.tick().toString()).toList();
        }
    }

    @Override
    public List<ScheduledPipeline> loadAll() {
        loadAllCalls++;
        synchronized (rows) {
            return rows.values().stream().filter(p -> !p.interval().equals("@manual") && !p.interval().equals("@none"))
                    .toList();
        }
    }

    @Override
    public Optional<ScheduledPipeline> load(long pipelineId) {
        return Optional.ofNullable(rows.get(pipelineId));
    }

    @Override
    public Optional<Instant> lastTick(long pipelineId) {
        synchronized (fired) {
            return fired.stream().filter(f -> f.pipelineId() == pipelineId && f.outcome() != Outcome.STALE
                            && f.outcome() != Outcome.ALREADY_FIRED)
                    .map(Fired::tick).max(Instant::compareTo);
        }
    }

    @Override
    public Fire fire(ScheduledPipeline p, Instant tick) {
        ScheduledPipeline row = rows.get(p.id());
        Outcome outcome;
        if (row == null || row.version() != p.version() || !row.enabled()) {
            outcome = Outcome.STALE;
        } else if (!slots.add(p.id() + "@" + tick)) {
            outcome = Outcome.ALREADY_FIRED;
        } else {
            outcome = busy.contains(p.id()) ? Outcome.SKIPPED : Outcome.QUEUED;
        }
        fired.add(new Fired(p.id(), tick, outcome));
        return new Fire(outcome, outcome == Outcome.QUEUED || outcome == Outcome.SKIPPED ? UUID.randomUUID() : null);
    }

    static Instant utc(String s) {
        return OffsetDateTime.parse(s).withOffsetSameInstant(ZoneOffset.UTC).toInstant();
    }
}
