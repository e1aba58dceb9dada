package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.tapline.support.Api.unique;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two tickers with separate in-memory state, each on its own thread and the real clock, against one
 * database: every (pipeline, tick) in the window has exactly one run row, none twice, none missing.
 * (The separate-process version is {@code ScheduleTwoProcessIT}.)
 */
@QuarkusTest
@io.quarkus.test.junit.TestProfile(io.tapline.support.NoRunnerProfile.class)
class ScheduleClusterTest {

    private static final Logger LOG = Logger.getLogger(ScheduleClusterTest.class);
    private static final int PIPELINES = 20;
    private static final Duration PERIOD = Duration.ofSeconds(2);
    private static final int TICKS = 6;

    @Inject
    ScheduleRepository repository;

    @Test
    void twoTickersProduceExactlyOneRunPerPipelinePerTick() {
        Fixtures.Plugins plugins = Fixtures.Plugins.create();
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < PIPELINES; i++) {
            ids.add(plugins.pipeline(unique("cluster"), "\"interval\":\"PT2S\""));
        }
        ScheduleStore store = Fixtures.only(repository, ids);
        ScheduleTicker a = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), "cluster-a");
        ScheduleTicker b = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), "cluster-b");
        Instant windowStart;
        Instant windowEnd;
        try {
            assertEquals(PIPELINES, a.start());
            assertEquals(PIPELINES, b.start());
            // The window: ticks after both tickers were loaded.
            Instant loaded = Instant.now();
            windowStart = Instant.ofEpochMilli((loaded.toEpochMilli() / PERIOD.toMillis() + 1) * PERIOD.toMillis());
            windowEnd = windowStart.plus(PERIOD.multipliedBy(TICKS - 1));
            Instant last = windowEnd;
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() ->
                    Fixtures.ticks(ids).stream().filter(r -> r.scheduledFor().equals(last)).count() == PIPELINES);
        } finally {
            a.close();
            b.close();
        }

        List<Fixtures.TickRow> rows = Fixtures.ticks(ids);
        Map<String, Integer> perTick = new HashMap<>();
        List<Long> lagsMs = new ArrayList<>();
        for (Fixtures.TickRow r : rows) {
            assertEquals(0, r.scheduledFor().toEpochMilli() % PERIOD.toMillis(), "on the PT2S grid: " + r);
            perTick.merge(r.pipelineId() + "@" + r.scheduledFor(), 1, Integer::sum);
            if (!r.scheduledFor().isBefore(windowStart) && !r.scheduledFor().isAfter(windowEnd)) {
                lagsMs.add(Duration.between(r.scheduledFor(), r.queuedAt()).toMillis());
            }
        }
        perTick.forEach((k, n) -> assertEquals(1, n, "rows for " + k));
        for (long id : ids) {
            for (Instant t = windowStart; !t.isAfter(windowEnd); t = t.plus(PERIOD)) {
                assertTrue(perTick.containsKey(id + "@" + t), "missing tick " + t + " of pipeline " + id);
            }
        }
        assertEquals(PIPELINES * TICKS, lagsMs.size());
        assertTrue(rows.stream().anyMatch(r -> r.status().equals("SKIPPED") && r.errorSummary().contains("QUEUED")),
                "queued runs are never executed here, so later ticks are SKIPPED");
        lagsMs.sort(Long::compare);
        long median = lagsMs.get(lagsMs.size() / 2);
        long p90 = lagsMs.get(lagsMs.size() * 9 / 10);
        LOG.infof("Fire lag over %d ticks: median %d ms, p90 %d ms, max %d ms; fired by a %d/%d, already fired %d/%d",
                lagsMs.size(), median, p90, lagsMs.get(lagsMs.size() - 1), a.stats().queued.get() + a.stats().skipped.get(),
                b.stats().queued.get() + b.stats().skipped.get(), a.stats().alreadyFired.get(), b.stats().alreadyFired.get());
        assertTrue(p90 < 1000, "lag p90 " + p90 + " ms");
        assertTrue(a.stats().alreadyFired.get() + b.stats().alreadyFired.get() >= PIPELINES * TICKS,
                "both tickers tried every tick; the loser of each found it already fired");
    }
}
