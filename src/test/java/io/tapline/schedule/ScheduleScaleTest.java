package io.tapline.schedule;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** 10,000 scheduled pipelines load with one query and are planned quickly. */
@QuarkusTest
class ScheduleScaleTest {

    private static final Logger LOG = Logger.getLogger(ScheduleScaleTest.class);
    private static final int PIPELINES = 10_000;

    @Inject
    ScheduleRepository repository;

    @Test
    void tenThousandScheduledPipelinesLoadAndOnlyEnabledOnesGetAFireTime() {
        Fixtures.Plugins plugins = Fixtures.Plugins.create();
        String prefix = "scale-" + System.nanoTime();
        Fixtures.update("""
                insert into pipeline (name, extractor_id, loader_id, environment, state_id, schedule_interval,
                    schedule_timezone, schedule_enabled, schedule_catch_up)
                select ? || '-' || g,
                    (select id from plugin where type = 'extractors' and name = ?),
                    (select id from plugin where type = 'loaders' and name = ?),
                    'dev', ? || ':' || g,
                    (array['*/5 * * * *', '0 * * * *', '30 2 * * *', 'PT30S', '0 6 * * mon-fri', '@daily'])[g % 6 + 1],
                    (array['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])[g % 4 + 1],
                    g % 10 <> 0, 'NONE'
                from generate_series(1, ?) g
                """, prefix, plugins.tap(), plugins.target(), prefix, PIPELINES);
        try {
            long queryBegan = System.nanoTime();
            Set<Long> ids = repository.loadAll().stream().filter(p -> p.name().startsWith(prefix))
                    .map(ScheduledPipeline::id).collect(Collectors.toSet());
            LOG.infof("The load query alone took %d ms (first run in this JVM)", (System.nanoTime() - queryBegan) / 1_000_000);

            assertEquals(PIPELINES, ids.size());

            ScheduleTicker ticker = new ScheduleTicker(Fixtures.only(repository, ids), java.time.Clock.systemUTC(),
                    Duration.ofSeconds(60), "scale");
            long began = System.nanoTime();
            assertEquals(PIPELINES, ticker.load(Instant.now()));
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            LOG.infof("Loaded and planned %d scheduled pipelines in %d ms", PIPELINES, took.toMillis());
            // Timing is measured in bench/ (scheduler.sh), not asserted here.
            long planned = ids.stream().filter(id -> ticker.nextFireTime(id).isPresent()).count();
            assertEquals(PIPELINES * 9 / 10, planned, "paused ones have no next fire time");
        } finally {
            Fixtures.update("delete from pipeline where name like ?", prefix + "-%");
        }
    }
}
