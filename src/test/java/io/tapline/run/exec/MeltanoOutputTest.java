package io.tapline.run.exec;

import io.tapline.invocation.FailedComponent;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What Meltano 4.2.2 prints, as the run reads it. */
class MeltanoOutputTest {

    private static final Map<String, FailedComponent> PLUGINS = Map.of("tap-x", FailedComponent.EXTRACTOR,
            "target-y", FailedComponent.LOADER, "map-z", FailedComponent.MAPPER);

    @Test
    void escapeSequencesAreRemoved() {
        String coloured = "\u001B[2m2026-01-01T00:00:00.000000Z\u001B[0m [\u001B[31m\u001B[1merror    \u001B[0m]"
                + " \u001B[1mBlock run completed.\u001B[0m \u001B[36merr\u001B[0m=\u001B[35mRunnerError('Loader failed')"
                + "\u001B[0m \u001B]8;;http://melta.no\u0007link\u001B]8;;\u0007";
        assertEquals("2026-01-01T00:00:00.000000Z [error    ] Block run completed. err=RunnerError('Loader failed')"
                + " link", MeltanoOutput.strip(coloured));
        assertEquals("plain", MeltanoOutput.strip("plain"));
    }

    @Test
    void theBlockRunSummaryIsNeverTheError() {
        assertNull(MeltanoOutput.classify("2026-01-01T00:00:00Z [error    ] Block run completed. block_type="
                + "ExtractLoadBlocks err=RunnerError('Loader failed') success=False", PLUGINS));
        MeltanoOutput.Classified c = MeltanoOutput.classify("Run invocation could not be completed as block failed:"
                + " Loader failed", PLUGINS);
        assertTrue(c.specific());
        assertEquals(FailedComponent.LOADER, c.error().component());
        assertEquals(FailedComponent.EXTRACTOR, MeltanoOutput.classify("[error    ] Extractor failed", PLUGINS)
                .error().component());
        assertEquals(FailedComponent.MAPPER, MeltanoOutput.classify("Mappers failed", PLUGINS).error().component());
        MeltanoOutput.Classified start = MeltanoOutput.classify("Cannot start plugin map-z: Executable 'map-z' could"
                + " not be found.", PLUGINS);
        assertEquals(FailedComponent.MAPPER, start.error().component());
        assertTrue(start.error().configuration());
        MeltanoOutput.Classified generic = MeltanoOutput.classify("2026 [error    ] something else broke", PLUGINS);
        assertFalse(generic.specific());
        assertNull(generic.error().component());
        assertNull(MeltanoOutput.classify("2026 [info     ] Extract load completed", PLUGINS));
    }

    @Test
    void recordCountsOfTheExtractorFromPassedThroughMetricLines() {
        String tap = "2026 [info     ] 2026-01-01 | INFO | singer_sdk.metrics | METRIC: {\"type\": \"counter\","
                + " \"metric\": \"record_count\", \"value\": 3, \"tags\": {\"stream\": \"items\"}} cmd_type=elb"
                + " consumer=False name=tap-x producer=True stdio=stderr";
        assertEquals(new MeltanoOutput.RecordCount("items", 3), MeltanoOutput.recordCount(tap));
        assertNull(MeltanoOutput.recordCount(tap.replace("producer=True", "producer=False")));
        assertNull(MeltanoOutput.recordCount(tap.replace("record_count", "http_request_duration")));
        assertNull(MeltanoOutput.recordCount("METRIC: {not json"));
        assertNull(MeltanoOutput.recordCount("no metric here"));
    }
}
