package io.tapline.common.config;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The defaults of the typed configuration, with no configuration source at all (Quarkus' duration syntax). */
class TaplineConfigTest {

    @Test
    void schedulerDefaults() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(TaplineConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()).build();
        TaplineConfig.Scheduler s = config.getConfigMapping(TaplineConfig.class).scheduler();
        assertTrue(s.enabled());
        assertEquals(Duration.ofSeconds(1), s.tickInterval());
        assertEquals(Duration.ofSeconds(30), s.resyncInterval());
        assertEquals(Duration.ofSeconds(60), s.misfireGrace());
    }

    @Test
    void projectsAndMeltanoDefaults() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(TaplineConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()).build();
        TaplineConfig c = config.getConfigMapping(TaplineConfig.class);
        assertTrue(c.projects().baseDir().isEmpty());
        assertEquals(1048576, c.projects().maxDocumentChars());
        assertEquals(50, c.projects().maxAliases());
        assertEquals(50, c.projects().maxDepth());
        assertEquals(200000, c.projects().maxNodes());
        assertEquals("meltano", c.meltano().executable());
        assertTrue(c.meltano().stateBackendDir().isEmpty());
    }

    @Test
    void retentionDefaults() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(TaplineConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter()).build();
        TaplineConfig.Retention r = config.getConfigMapping(TaplineConfig.class).retention();
        assertEquals(90, r.keepDays());
        assertEquals(100, r.keepMinRunsPerPipeline());
        assertEquals(5000, r.batchSize());
        assertEquals(Duration.ofHours(1), r.interval());
    }
}
