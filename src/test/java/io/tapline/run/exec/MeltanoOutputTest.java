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
        assertEquals(new MeltanoOutput.RecordCount("items", 3), MeltanoOutput.recordCount(tap, "tap-x", PLUGINS.keySet()));
        assertNull(MeltanoOutput.recordCount(tap.replace("producer=True", "producer=False").replace("name=tap-x",
                "name=target-y"), "tap-x", PLUGINS.keySet()));
        assertNull(MeltanoOutput.recordCount(tap.replace("record_count", "http_request_duration"), "tap-x",
                PLUGINS.keySet()));
        assertNull(MeltanoOutput.recordCount("METRIC: {not json", "tap-x", PLUGINS.keySet()));
        assertNull(MeltanoOutput.recordCount("no metric here", "tap-x", PLUGINS.keySet()));
    }

    /** Lines as Meltano 4.2.2 wrote them (/work/shared/fixtures/singer/meltano-run5.log, -run6.log, -run3.log). */
    private static final String TAP_METRIC = "2026-11-29T15:15:57.808760Z [info     ] tap-sqlite   METRIC:"
            + " {\"type\":\"counter\",\"metric\":\"record_count\",\"value\":27,\"tags\":{\"stream\":\"main-orders\","
            + "\"pid\":27224,\"context\":{}}}";
    private static final String TARGET_METRIC = "2026-11-29T15:15:57.908901Z [info     ] target-sqlite METRIC:"
            + " {\"type\":\"counter\",\"metric\":\"record_count\",\"value\":27,\"tags\":{\"stream\":\"main-orders\","
            + "\"pid\":27225}}";
    private static final Map<String, FailedComponent> SQLITE = Map.of("tap-sqlite", FailedComponent.EXTRACTOR,
            "target-sqlite", FailedComponent.LOADER, "meltano-map-transformer", FailedComponent.MAPPER);

    @Test
    void meltano422RecordCountsAreTheExtractorsOnlyByItsNameColumn() {
        // Meltano 4.2.2 with the SDK in use: no producer marker, the loader counts the same 27 records
        assertEquals(new MeltanoOutput.RecordCount("main-orders", 27),
                MeltanoOutput.recordCount(TAP_METRIC, "tap-sqlite", SQLITE.keySet()));
        assertNull(MeltanoOutput.recordCount(TARGET_METRIC, "tap-sqlite", SQLITE.keySet()));
        assertNull(MeltanoOutput.recordCount(TAP_METRIC.replace("tap-sqlite  ", "meltano-map-transformer"),
                "tap-sqlite", SQLITE.keySet()), "a mapper's count is not the extractor's");
    }

    @Test
    void meltano422ErrorsAreStoredWithoutTimeLevelAndNameColumn() {
        MeltanoOutput.Classified loader = MeltanoOutput.classify(
                "2026-11-29T15:16:02.200814Z [error    ] meltano      Loader failed", SQLITE);
        assertEquals("Loader failed", loader.error().line());
        assertEquals(FailedComponent.LOADER, loader.error().component());
        assertEquals("Extractor failed", MeltanoOutput.classify(
                "2026-11-29T15:12:17.369819Z [error    ] meltano      Extractor failed", SQLITE).error().line());
        assertNull(MeltanoOutput.classify("2026-11-29T15:16:02.201149Z [error    ] meltano      Block run completed",
                SQLITE));
        assertNull(MeltanoOutput.classify("2026-11-29T15:16:02.058446Z [info     ] target-sqlite sqlite3.IntegrityError:"
                + " UNIQUE constraint failed: orders.id", SQLITE));
        assertEquals("target-sqlite: sqlite3.IntegrityError: boom", MeltanoOutput.undecorated(
                "2026-11-29T15:16:02.058446Z [info     ] target-sqlite sqlite3.IntegrityError: boom", SQLITE.keySet()));
        assertEquals("No state was found, complete import.", MeltanoOutput.undecorated(
                "2026-11-29T15:12:15.661724Z [warning  ] meltano      No state was found, complete import.",
                SQLITE.keySet()));
    }

    @Test
    void aMapperFailureNamesTheMapper() {
        // what Meltano 4.2.2 raises when a mapper ends before the tap and target (core/block/extract_load.py)
        MeltanoOutput.Classified c = MeltanoOutput.classify("2026-11-29T15:20:01.100000Z [error    ] meltano      "
                + "Unexpected completion sequence in ExtractLoadBlock set. Intermediate block (likely a mapper) failed.",
                SQLITE);
        assertTrue(c.specific());
        assertEquals(FailedComponent.MAPPER, c.error().component());
        assertEquals("Unexpected completion sequence in ExtractLoadBlock set. Intermediate block (likely a mapper)"
                + " failed.", c.error().line());
        MeltanoOutput.Classified own = MeltanoOutput.classify("2026-11-29T15:20:01.000000Z [error    ]"
                + " meltano-map-transformer Traceback (most recent call last):", SQLITE);
        assertFalse(own.specific());
        assertEquals(FailedComponent.MAPPER, own.error().component(), "an error line in a plugin's name column");
        assertEquals(FailedComponent.EXTRACTOR, MeltanoOutput.classify("2026-11-29T15:20:01.000000Z [error    ] meltano"
                + "      Extractor and loader failed", SQLITE).error().component());
    }
}
