package io.tapline.connector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The relay between real processes: a tap replaying recorded output, and a Python target. */
class RelayProcessTest {

    private static final Duration EVENT = Duration.ofSeconds(60);

    private final ProcessSupervisor supervisor = new ProcessSupervisor();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<ConnectorProcess> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopEverything() {
        started.forEach(ConnectorProcess::close);
    }

    private ConnectorProcess start(String component, String script, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Fixtures.python(), Fixtures.connector(script).toString()));
        command.addAll(List.of(args));
        Map<String, String> environment = ProcessSpec.serviceVariables(ProcessSpec.BASIC_VARIABLES);
        ConnectorProcess process = supervisor.start(new ProcessSpec(component, command, dir, environment), log::add);
        started.add(process);
        return process;
    }

    @Test
    void relaysARecordedTapIntoARealTarget() throws Exception {
        Path recorded = Fixtures.singerPath("sdk-tap-sqlite.run2-with-state.tap-stdout.jsonl");
        ConnectorProcess tap = start("extractor", "replay_tap.py", recorded.toString(), "3");
        ConnectorProcess target = start("loader", "counting_target.py");

        RelayResult result = new Relay().relay(tap.stdout(), target.stdin());
        target.stdin().close();

        assertTrue(result.succeeded(), () -> result.failure().orElseThrow().message());
        assertEquals(3 * 27, result.counts().stream("main-orders").records());
        assertEquals(3 * 4, result.counts().withoutStream().states());
        assertEquals(3 * Files.size(recorded), result.counts().bytes());
        String state = new String(target.stdout().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("{\"bookmarks\": {\"main-orders\": {\"replication_key\": \"updated_at\", "
                + "\"replication_key_value\": \"2024-03-01T00:00:00\"}}}\n", state);
        assertTrue(tap.waitFor(EVENT));
        assertTrue(target.waitFor(EVENT));
        assertEquals(0, tap.exitCode().orElseThrow());
        assertEquals(0, target.exitCode().orElseThrow());
        assertTrue(target.awaitStderr(EVENT));
        assertEquals(List.of("loader | main-orders 81"), log);
    }

    @Test
    void aTargetThatExitsEarlyIsReportedAsTargetClosed() throws Exception {
        Path recorded = Fixtures.singerPath("sdk-tap-sqlite.run2-with-state.tap-stdout.jsonl");
        // About 11 MB: far more than the pipe buffers can hold once the target is gone.
        ConnectorProcess tap = start("extractor", "replay_tap.py", recorded.toString(), "2000");
        ConnectorProcess target = start("loader", "counting_target.py", "--stop-after", "1");

        RelayResult result = new Relay().relay(tap.stdout(), target.stdin());

        RelayFailure failure = result.failure().orElseThrow();
        assertEquals(RelayFailure.Kind.TARGET_CLOSED, failure.kind(), failure.message());
        assertTrue(failure.message().startsWith("target closed its input"), failure.message());
        assertTrue(target.waitFor(EVENT));
        assertEquals(0, target.exitCode().orElseThrow());
        // The tap may now be blocked writing to a pipe nobody reads: stop it.
        tap.terminate(EVENT);
        assertTrue(tap.waitFor(EVENT));
    }

    @Test
    void aTapWritingSomethingElseThanJsonIsStoppedAtThatLine() throws Exception {
        Path recorded = dir.resolve("broken.jsonl");
        Files.writeString(recorded, """
                {"type": "SCHEMA", "stream": "orders", "schema": {}, "key_properties": []}
                {"type": "RECORD", "stream": "orders", "record": {"id": 1}}
                INFO Syncing stream orders
                {"type": "RECORD", "stream": "orders", "record": {"id": 2}}
                """);
        ConnectorProcess tap = start("extractor", "replay_tap.py", recorded.toString());
        ConnectorProcess target = start("loader", "counting_target.py");

        RelayResult result = new Relay().relay(tap.stdout(), target.stdin());
        target.stdin().close();

        RelayFailure failure = result.failure().orElseThrow();
        assertEquals(RelayFailure.Kind.INVALID_LINE, failure.kind());
        assertEquals(3, failure.lineNumber());
        assertEquals("INFO Syncing stream orders", failure.excerpt());
        assertTrue(target.waitFor(EVENT));
        assertTrue(target.awaitStderr(EVENT));
        assertEquals(List.of("loader | orders 1"), log, "the target got the lines before the invalid one");
    }
}
