package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static io.tapline.schedule.Fixtures.queryLong;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica re-plans a pipeline as soon as its own change commits (the after-commit
 * {@code PipelineChanged} observer reads the database): {@code @once} fires on creation, an edit
 * moves the next fire time, and a resume under catch-up ONE fires one run for the missed ticks.
 */
@QuarkusTest
class ScheduleEventsTest {

    @Inject
    ScheduleRepository repository;

    @Inject
    TickerEventForwarder forwarder;

    @AfterEach
    void detach() {
        forwarder.set(null);
    }

    /** A ticker that sees only pipelines whose name starts with {@code prefix}. */
    private ScheduleTicker ticker(String prefix) {
        ScheduleStore store = new ScheduleStore() {
            @Override
            public List<ScheduledPipeline> loadAll() {
                return repository.loadAll().stream().filter(p -> p.name().startsWith(prefix)).toList();
            }

            @Override
            public Optional<ScheduledPipeline> load(long id) {
                return repository.load(id).filter(p -> p.name().startsWith(prefix));
            }

            @Override
            public Optional<Instant> lastTick(long id) {
                return repository.lastTick(id);
            }

            @Override
            public Fire fire(ScheduledPipeline p, Instant tick) {
                return repository.fire(p, tick);
            }
        };
        ScheduleTicker t = new ScheduleTicker(store, Clock.systemUTC(), Duration.ofSeconds(60), prefix);
        t.load(Instant.now());
        forwarder.set(t);
        return t;
    }

    @Test
    void changesThroughThisReplicaTakeEffectAtOnce() {
        String prefix = unique("ev");
        ScheduleTicker ticker = ticker(prefix);
        Fixtures.Plugins plugins = Fixtures.Plugins.create();

        long once = plugins.pipeline(prefix + "-once", "\"interval\":\"@once\"");
        assertEquals(1, queryLong("select count(*) from pipeline_run r join pipeline p on p.id = r.pipeline_id"
                + " where p.id = ? and r.scheduled_for = p.created_at and r.trigger = 'SCHEDULE'", once));

        String name = prefix + "-edit";
        long edited = plugins.pipeline(name, "\"interval\":\"PT1S\"");
        assertTrue(ticker.nextFireTime(edited).isPresent());
        json().post("/api/v1/pipelines/" + name + "/pause").then().statusCode(200);
        assertTrue(ticker.nextFireTime(edited).isEmpty());
        json().header("If-Match", "\"1\"").body("{\"extractor\":\"%s\",\"loader\":\"%s\",\"stateIdSuffix\":\"%s\",\"schedule\":{\"interval\":\"PT1H\"}}"
                .formatted(plugins.tap(), plugins.target(), name)).put("/api/v1/pipelines/" + name).then().statusCode(200);
        Instant next = ticker.nextFireTime(edited).orElseThrow();
        assertEquals(0, next.getEpochSecond() % 3600);
        json().header("If-Match", "\"2\"").delete("/api/v1/pipelines/" + name).then().statusCode(204);
        assertTrue(ticker.nextFireTime(edited).isEmpty());
        assertEquals(0, queryLong("select count(*) from pipeline_run where pipeline_id = ?", edited));
    }

    @Test
    void resumingUnderCatchUpOneFiresOneRunForTheMissedTicks() {
        String prefix = unique("cu");
        ScheduleTicker ticker = ticker(prefix);
        Fixtures.Plugins plugins = Fixtures.Plugins.create();
        String name = prefix + "-p";
        long id = plugins.pipeline(name, "\"interval\":\"PT1S\",\"catchUp\":\"ONE\",\"enabled\":false");
        Instant created = Instant.now();
        await().until(() -> Instant.now().isAfter(created.plusSeconds(3))); // let ticks pass while paused
        json().post("/api/v1/pipelines/" + name + "/resume").then().statusCode(200);
        assertEquals(1, queryLong("select count(*) from pipeline_run where pipeline_id = ?", id), "one catch-up run");
        Instant tick = Instant.parse(Fixtures.queryString("select to_char(scheduled_for at time zone 'UTC',"
                + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') from pipeline_run where pipeline_id = ?", id).orElseThrow());
        assertTrue(tick.isAfter(created.plusSeconds(1)) && !tick.isAfter(Instant.now()), tick.toString());
        assertTrue(ticker.nextFireTime(id).orElseThrow().isAfter(tick));
    }
}
