package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.schedule.ScheduleStore.Outcome;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.tapline.schedule.Fixtures.queryLong;
import static io.tapline.schedule.Fixtures.queryString;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Firing ticks against PostgreSQL: one row per (pipeline, tick), SKIPPED while busy, STALE after changes. */
@QuarkusTest
@io.quarkus.test.junit.TestProfile(io.tapline.support.NoRunnerProfile.class)
class ScheduleRepositoryTest {

    @Inject
    ScheduleRepository repository;

    Fixtures.Plugins plugins;

    @BeforeEach
    void plugins() {
        plugins = Fixtures.Plugins.create();
    }

    @Test
    void aTickIsRecordedOnceThenSkippedWhileTheStateIdIsBusy() {
        String name = unique("tick");
        long id = plugins.pipeline(name, "\"interval\":\"PT5S\"");
        ScheduledPipeline p = repository.load(id).orElseThrow();
        Instant t1 = Instant.parse("2026-05-01T10:00:05Z");
        Instant t2 = t1.plusSeconds(5);

        ScheduleStore.Fire first = repository.fire(p, t1);
        assertEquals(Outcome.QUEUED, first.outcome());
        assertEquals(Outcome.ALREADY_FIRED, repository.fire(p, t1).outcome());
        assertEquals("SCHEDULE", queryString("select trigger from pipeline_run where id = ?", first.runId()).orElseThrow());
        assertEquals("scheduler", queryString("select created_by from pipeline_run where id = ?", first.runId()).orElseThrow());

        ScheduleStore.Fire skipped = repository.fire(p, t2);
        assertEquals(Outcome.SKIPPED, skipped.outcome());
        String reason = queryString("select error_summary from pipeline_run where id = ?", skipped.runId()).orElseThrow();
        assertTrue(reason.contains(first.runId().toString()) && reason.contains("QUEUED"), reason);
        assertEquals(1, queryLong("select count(*) from pipeline_run where id = ? and status = 'SKIPPED'"
                + " and ended_at is not null", skipped.runId()));
        assertEquals(Outcome.ALREADY_FIRED, repository.fire(p, t2).outcome());

        Fixtures.update("update pipeline_run set status = 'SUCCEEDED', ended_at = now() where id = ?", first.runId());
        assertEquals(Outcome.QUEUED, repository.fire(p, t2.plusSeconds(5)).outcome());
        assertEquals(3, queryLong("select count(*) from pipeline_run where pipeline_id = ?", id));
        assertEquals(t2.plusSeconds(5), repository.lastTick(id).orElseThrow());
    }

    @Test
    void nothingIsWrittenForAPipelineThatChangedWasPausedOrDeleted() {
        String name = unique("stale");
        long id = plugins.pipeline(name, "\"interval\":\"PT5S\"");
        ScheduledPipeline v0 = repository.load(id).orElseThrow();
        json().post("/api/v1/pipelines/" + name + "/pause").then().statusCode(200);
        ScheduledPipeline paused = repository.load(id).orElseThrow();
        assertFalse(paused.enabled());
        assertEquals(Outcome.STALE, repository.fire(v0, Instant.parse("2026-05-01T10:00:00Z")).outcome());
        assertEquals(Outcome.STALE, repository.fire(paused, Instant.parse("2026-05-01T10:00:00Z")).outcome());
        json().header("If-Match", "\"" + paused.version() + "\"").delete("/api/v1/pipelines/" + name).then().statusCode(204);
        assertTrue(repository.load(id).isEmpty());
        assertEquals(0, queryLong("select count(*) from pipeline_run where pipeline_name = ?", name));
    }

    @Test
    void concurrentFiresOfOneTickWriteOneRow() throws Exception {
        long id = plugins.pipeline(unique("race"), "\"interval\":\"* * * * *\"");
        ScheduledPipeline p = repository.load(id).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 5; round++) {
                Instant tick = Instant.parse("2026-05-01T10:00:00Z").plusSeconds(60L * round);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<ScheduleStore.Fire>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(pool.submit(() -> {
                        go.await();
                        return repository.fire(p, tick);
                    }));
                }
                go.countDown();
                int written = 0;
                for (Future<ScheduleStore.Fire> f : results) {
                    Outcome o = f.get().outcome();
                    written += o == Outcome.QUEUED || o == Outcome.SKIPPED ? 1 : 0;
                }
                assertEquals(1, written, "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(5, queryLong("select count(*) from pipeline_run where pipeline_id = ?", id));
        assertEquals(5, queryLong("select count(distinct scheduled_for) from pipeline_run where pipeline_id = ?", id));
    }

    @Test
    void loadAllHasScheduledPipelinesOnly() {
        long cron = plugins.pipeline(unique("cron"), "\"interval\":\"0 6 * * mon-fri\",\"timezone\":\"Europe/Berlin\","
                + "\"catchUp\":\"ONE\"");
        long manual = plugins.pipeline(unique("manual"), "\"interval\":\"@manual\"");
        long paused = plugins.pipeline(unique("paused"), "\"interval\":\"@daily\",\"enabled\":false");
        List<ScheduledPipeline> all = repository.loadAll();
        Set<Long> ids = all.stream().map(ScheduledPipeline::id).collect(java.util.stream.Collectors.toSet());
        assertTrue(ids.contains(cron) && ids.contains(paused) && !ids.contains(manual));
        ScheduledPipeline p = all.stream().filter(x -> x.id() == cron).findFirst().orElseThrow();
        assertEquals("0 6 * * mon-fri", p.interval());
        assertEquals("Europe/Berlin", p.timezone());
        assertEquals(CatchUp.ONE, p.catchUp());
        assertTrue(p.enabled());
    }
}
