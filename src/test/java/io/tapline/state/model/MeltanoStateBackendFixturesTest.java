package io.tapline.state.model;

import io.tapline.state.json.PythonJson.Layout;
import io.tapline.state.json.PythonJson;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code state.json} files that Meltano 4.2.2's local filesystem backend wrote (see the README
 * next to them) read and write back byte for byte.
 */
class MeltanoStateBackendFixturesTest {

    private static final List<String> STATE_IDS = List.of(
            "dev:tap-csv-to-target-csv-bench",
            "dev:tap-spreadsheets-anywhere-to-target-jsonl",
            "dev:tap-sqlite-to-target-csv",
            "dev:tap-sqlite-to-target-sqlite",
            "dev:tap-ssa-jsonl-to-target-csv",
            "moved-id");

    private static Path root() throws URISyntaxException {
        URL readme = MeltanoStateBackendFixturesTest.class.getResource("/meltano-state-backend/README.md");
        assertNotNull(readme, "fixtures on the test classpath");
        return Path.of(readme.toURI()).getParent();
    }

    private static byte[] bytes(String stateId) throws IOException, URISyntaxException {
        return Files.readAllBytes(root().resolve(stateId).resolve("state.json"));
    }

    @Test
    void allFixturesArePresent() throws IOException, URISyntaxException {
        try (Stream<Path> dirs = Files.list(root())) {
            List<String> found = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(STATE_IDS, found);
        }
    }

    @TestFactory
    Stream<DynamicTest> parseAndWriteBackIdentically() {
        return STATE_IDS.stream().map(id -> DynamicTest.dynamicTest(id, () -> {
            byte[] original = bytes(id);
            String text = new String(original, StandardCharsets.US_ASCII);
            assertFalse(text.endsWith("\n"), "Meltano writes no trailing newline");
            assertEquals(text, PythonJson.write(PythonJson.parse(original), Layout.DEFAULT));
            assertEquals(text, PythonJson.write(PythonJson.parse(text), Layout.DEFAULT));
        }));
    }

    @TestFactory
    Stream<DynamicTest> meltanoStateRoundTrips() {
        return STATE_IDS.stream().map(id -> DynamicTest.dynamicTest(id, () -> {
            String text = new String(bytes(id), StandardCharsets.US_ASCII);
            MeltanoState state = MeltanoState.fromStateJson(text);
            assertEquals(text, state.toStateJson());
            assertTrue(state.isComplete());
            StateRules.validate(state.merged());
        }));
    }

    @Test
    void mergedViewOfARecordWithBothSides() throws Exception {
        MeltanoState state = MeltanoState.fromStateJson(new String(bytes("dev:tap-sqlite-to-target-csv"),
                StandardCharsets.US_ASCII));
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"main-orders\":{\"replication_key\":\"updated_at\","
                + "\"replication_key_value\":\"2024-03-01T00:00:00\"}}}}",
                PythonJson.write(state.merged(), Layout.COMPACT));
    }

    @Test
    void emptyBookmarkIsStillTruthySingerState() throws Exception {
        // {"bookmarks": {"big": {}}} is non-empty, so Meltano writes a tap state file for it
        MeltanoState state = MeltanoState.fromStateJson(new String(bytes("dev:tap-csv-to-target-csv-bench"),
                StandardCharsets.US_ASCII));
        assertEquals("{\n  \"bookmarks\": {\n    \"big\": {}\n  }\n}", state.tapStateFile().orElseThrow());
    }
}
