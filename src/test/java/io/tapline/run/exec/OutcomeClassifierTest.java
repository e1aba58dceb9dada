package io.tapline.run.exec;

import io.tapline.connector.RelayFailure;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.RunFailure;
import io.tapline.run.RunStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every combination the engine distinguishes, without processes or a database. */
class OutcomeClassifierTest {

    private static final OutcomeClassifier.Exit TAP_OK = exit("extractor", 0, null);
    private static final OutcomeClassifier.Exit TAP_FAIL = exit("extractor", 1, "Traceback: boom");
    private static final OutcomeClassifier.Exit TARGET_OK = exit("loader", 0, null);
    private static final OutcomeClassifier.Exit TARGET_FAIL = exit("loader", 3, "cannot connect");
    private static final OutcomeClassifier.Exit MAPPER_OK = exit("mapper:m1", 0, null);
    private static final OutcomeClassifier.Exit MAPPER_FAIL = exit("mapper:m2", 2,
            "MapExpressionError: Failed to parse expression 'x +'");
    private static final RelayFailure INVALID = new RelayFailure(RelayFailure.Kind.INVALID_LINE, 2,
            "line 2 is not valid JSON (invalid literal at offset 0): junk", "junk", null);
    private static final RelayFailure TOO_LONG = new RelayFailure(RelayFailure.Kind.LINE_TOO_LONG, 5,
            "line 5 is longer than 10 bytes", null, null);
    private static final RelayFailure READ_FAILED = new RelayFailure(RelayFailure.Kind.TAP_READ_FAILED, 1,
            "reading line 1 failed: Stream closed", null, new IOException("Stream closed"));
    private static final RelayFailure TARGET_CLOSED = new RelayFailure(RelayFailure.Kind.TARGET_CLOSED, 7,
            "writing line 7 failed: Broken pipe", null, new IOException("Broken pipe"));

    private static OutcomeClassifier.Exit exit(String component, int code, String line) {
        return new OutcomeClassifier.Exit(component, code, line);
    }

    private static ActiveRun.Stop stop(ActiveRun.StopReason reason, String message) {
        return new ActiveRun.Stop(reason, message);
    }

    static Stream<Arguments> extractLoad() {
        return Stream.of(
                // stop, relay, tap, mappers, target -> status, component, type, reason
                Arguments.of(null, null, TAP_OK, List.of(), TARGET_OK, RunStatus.SUCCEEDED, null, null, null),
                Arguments.of(null, null, TAP_OK, List.of(MAPPER_OK), TARGET_OK, RunStatus.SUCCEEDED, null, null, null),
                Arguments.of(null, null, TAP_FAIL, List.of(), TARGET_OK, RunStatus.FAILED, FailedComponent.EXTRACTOR,
                        FailureType.CONNECTOR_EXIT, "Extractor failed (exit code 1): Traceback: boom"),
                Arguments.of(null, null, TAP_OK, List.of(), TARGET_FAIL, RunStatus.FAILED, FailedComponent.LOADER,
                        FailureType.CONNECTOR_EXIT, "Loader failed (exit code 3): cannot connect"),
                Arguments.of(null, null, TAP_FAIL, List.of(), TARGET_FAIL, RunStatus.FAILED, FailedComponent.EXTRACTOR,
                        FailureType.CONNECTOR_EXIT, "Extractor and loader failed (exit codes 1 and 3): Traceback: boom"),
                // a failing mapper: exit code and last error line, like the extractor and loader
                Arguments.of(null, null, TAP_OK, List.of(MAPPER_OK, MAPPER_FAIL), TARGET_FAIL, RunStatus.FAILED,
                        FailedComponent.MAPPER, FailureType.CONNECTOR_EXIT, "Mappers failed (mapper:m2, exit code 2):"
                                + " MapExpressionError: Failed to parse expression 'x +'"),
                Arguments.of(null, INVALID, TAP_FAIL, List.of(), TARGET_OK, RunStatus.FAILED, FailedComponent.EXTRACTOR,
                        FailureType.CONNECTOR_PROTOCOL, "extractor output line 2 is not valid JSON (invalid literal at"
                                + " offset 0): junk"),
                Arguments.of(null, TOO_LONG, TAP_OK, List.of(), TARGET_OK, RunStatus.FAILED, FailedComponent.EXTRACTOR,
                        FailureType.CONNECTOR_PROTOCOL, "extractor output line 5 is longer than 10 bytes"),
                Arguments.of(null, READ_FAILED, TAP_OK, List.of(), TARGET_OK, RunStatus.FAILED, FailedComponent.EXTRACTOR,
                        FailureType.INTERNAL, "extractor output reading line 1 failed: Stream closed"),
                // the tap we stopped because the target closed its input did not fail by itself
                Arguments.of(null, TARGET_CLOSED, exit("extractor", -15, null), List.of(), TARGET_OK, RunStatus.FAILED,
                        FailedComponent.LOADER, FailureType.CONNECTOR_PROTOCOL, "the loader closed its input before"
                                + " the end of the extractor's output"),
                Arguments.of(null, TARGET_CLOSED, exit("extractor", -15, null), List.of(), TARGET_FAIL, RunStatus.FAILED,
                        FailedComponent.LOADER, FailureType.CONNECTOR_EXIT, "Loader failed (exit code 3): cannot connect"),
                // stops win over exit codes
                Arguments.of(stop(ActiveRun.StopReason.CANCELLED, "cancelled by admin"), null, TAP_FAIL, List.of(),
                        TARGET_FAIL, RunStatus.CANCELLED, null, FailureType.CANCELLED, "cancelled by admin"),
                Arguments.of(stop(ActiveRun.StopReason.SHUTDOWN, "service shutdown"), null, TAP_OK, List.of(), TARGET_OK,
                        RunStatus.CANCELLED, null, FailureType.CANCELLED, "service shutdown"),
                Arguments.of(stop(ActiveRun.StopReason.TIMED_OUT, "timed out after 2 s"), INVALID, TAP_FAIL, List.of(),
                        TARGET_OK, RunStatus.FAILED, FailedComponent.SERVICE, FailureType.TIMEOUT, "timed out after 2 s"),
                Arguments.of(stop(ActiveRun.StopReason.LOST, "heartbeat lost"), null, TAP_OK, List.of(), TARGET_OK,
                        RunStatus.FAILED, FailedComponent.SERVICE, FailureType.LOST_INSTANCE, "heartbeat lost"),
                Arguments.of(stop(ActiveRun.StopReason.FENCED, "no database"), null, TAP_OK, List.of(), TARGET_OK,
                        RunStatus.FAILED, FailedComponent.SERVICE, FailureType.STATE_STORE, "no database"));
    }

    @ParameterizedTest
    @MethodSource
    void extractLoad(ActiveRun.Stop stop, RelayFailure relay, OutcomeClassifier.Exit tap,
                     List<OutcomeClassifier.Exit> mappers, OutcomeClassifier.Exit target, RunStatus status,
                     FailedComponent component, FailureType type, String reason) {
        Outcome o = OutcomeClassifier.extractLoad(new OutcomeClassifier.ExtractLoad(stop, relay, tap, mappers, target));
        assertEquals(new Outcome(status, component, type, reason), o);
    }

    @Test
    void aStateThatWasNotStoredNeverEndsSucceededUnderEitherPolicy() {
        String unstored = "{\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":9}}}}";
        for (boolean onSuccess : new boolean[] {false, true}) {
            Outcome o = OutcomeClassifier.stateCommitted(Outcome.SUCCEEDED, unstored, onSuccess);
            assertEquals(RunStatus.FAILED, o.status());
            assertEquals(FailureType.STATE_STORE, o.type());
            assertEquals(FailedComponent.SERVICE, o.component());
            assertTrue(o.reason().endsWith("Not stored: " + unstored), o.reason());
        }
        assertSame(Outcome.SUCCEEDED, OutcomeClassifier.stateCommitted(Outcome.SUCCEEDED, null, true));
        Outcome failed = Outcome.failed(FailedComponent.EXTRACTOR, FailureType.CONNECTOR_EXIT, "Extractor failed");
        // ON_SUCCESS discards the state of a failed run on purpose: the failure stays the extractor's
        assertSame(failed, OutcomeClassifier.stateCommitted(failed, unstored, true));
        // CHECKPOINT had to store it: the state-store failure is the run's
        assertEquals(FailureType.STATE_STORE, OutcomeClassifier.stateCommitted(failed, unstored, false).type());
        Outcome cancelled = OutcomeClassifier.stopped(stop(ActiveRun.StopReason.CANCELLED, "c"), FailedComponent.SERVICE, "");
        assertEquals(FailureType.STATE_STORE, OutcomeClassifier.stateCommitted(cancelled, unstored, false).type());
        assertSame(cancelled, OutcomeClassifier.stateCommitted(cancelled, null, false));
    }

    @Test
    void transform() {
        assertSame(Outcome.SUCCEEDED, OutcomeClassifier.transform(null, exit("transform", 0, null)));
        assertEquals(Outcome.failed(FailedComponent.TRANSFORM, FailureType.CONNECTOR_EXIT,
                "Transform failed (exit code 4): dbt error"), OutcomeClassifier.transform(null, exit("transform", 4,
                "dbt error")));
        assertEquals(Outcome.failed(FailedComponent.TRANSFORM, FailureType.TIMEOUT,
                "timed out after 5 s (during the transform)"), OutcomeClassifier.transform(
                stop(ActiveRun.StopReason.TIMED_OUT, "timed out after 5 s"), exit("transform", -9, null)));
        assertEquals(new Outcome(RunStatus.CANCELLED, null, FailureType.CANCELLED, "cancelled by a (during the"
                + " transform)"), OutcomeClassifier.transform(stop(ActiveRun.StopReason.CANCELLED, "cancelled by a"),
                exit("transform", -15, null)));
    }

    @Test
    void meltano() {
        Map<String, FailedComponent> plugins = Map.of("tap-x", FailedComponent.EXTRACTOR, "target-y",
                FailedComponent.LOADER);
        assertSame(Outcome.SUCCEEDED, OutcomeClassifier.meltano(null, 0, null, "Block run completed."));
        MeltanoOutput.Error loader = MeltanoOutput.classify(
                "Run invocation could not be completed as block failed: Loader failed", plugins).error();
        assertEquals(Outcome.failed(FailedComponent.LOADER, FailureType.CONNECTOR_EXIT, "meltano run failed (exit code"
                + " 1): Run invocation could not be completed as block failed: Loader failed"),
                OutcomeClassifier.meltano(null, 1, loader, "x"));
        MeltanoOutput.Error start = MeltanoOutput.classify("Cannot start plugin target-y: Executable 'target-y' could"
                + " not be found.", plugins).error();
        Outcome o = OutcomeClassifier.meltano(null, 1, start, null);
        assertEquals(FailedComponent.LOADER, o.component());
        assertEquals(FailureType.CONFIGURATION, o.type());
        assertEquals(Outcome.failed(null, FailureType.CONNECTOR_EXIT, "meltano run failed (exit code 2): usage"),
                OutcomeClassifier.meltano(null, 2, null, "usage"));
        assertEquals(RunStatus.CANCELLED, OutcomeClassifier.meltano(stop(ActiveRun.StopReason.SHUTDOWN, "service"
                + " shutdown"), 143, loader, null).status());
    }

    @Test
    void startFailuresAreConfigurationUnlessTheMachineIsOutOfAResource() {
        RunFailure missing = OutcomeClassifier.startFailure("extractor", "/opt/tap-x",
                new IOException("Cannot run program \"/opt/tap-x\": error=2, No such file or directory"));
        assertEquals(FailureType.CONFIGURATION, missing.type);
        assertEquals(FailedComponent.EXTRACTOR, missing.component);
        assertEquals("cannot start the extractor '/opt/tap-x': no such file", missing.getMessage());
        RunFailure path = OutcomeClassifier.startFailure("mapper:m", "map-x",
                new IOException("Cannot run 'map-x': not found on PATH /usr/bin"));
        assertEquals(FailedComponent.MAPPER, path.component);
        assertFalse(path.getMessage().contains("/usr/bin"), "no PATH value in the reason");
        assertEquals(FailureType.CONFIGURATION, OutcomeClassifier.startFailure("loader", "t",
                new IOException("error=13, Permission denied")).type);
        assertEquals(FailureType.CONFIGURATION, OutcomeClassifier.startFailure("loader", "t",
                new IOException("error=8, Exec format error")).type);
        assertEquals(FailureType.RESOURCE, OutcomeClassifier.startFailure("transform", "t",
                new IOException("error=12, Cannot allocate memory")).type);
        assertEquals(FailureType.RESOURCE, OutcomeClassifier.internal(new IOException("No space left on device")).type());
        assertEquals(FailureType.INTERNAL, OutcomeClassifier.internal(new IllegalStateException("bug")).type());
    }

    @Test
    void typesAndRetries() {
        assertFalse(FailureType.CONFIGURATION.retryable());
        assertFalse(FailureType.CONNECTOR_PROTOCOL.retryable());
        assertFalse(FailureType.CANCELLED.retryable());
        for (FailureType t : List.of(FailureType.CONNECTOR_EXIT, FailureType.TIMEOUT, FailureType.STATE_STORE,
                FailureType.LOST_INSTANCE, FailureType.RESOURCE, FailureType.INTERNAL)) {
            assertTrue(t.retryable(), t.id());
            assertSame(t, FailureType.of(t.id()));
        }
        assertNull(FailureType.of("nonsense"));
        assertEquals("FAILED (configuration error): x", OutcomeClassifier.describe(
                Outcome.failed(FailedComponent.SERVICE, FailureType.CONFIGURATION, "x")));
        assertEquals("CANCELLED: service shutdown", OutcomeClassifier.describe(OutcomeClassifier.stopped(
                stop(ActiveRun.StopReason.SHUTDOWN, "service shutdown"), FailedComponent.SERVICE, "")));
    }

    @Test
    void lastLineOfAComponentFromTheLogTail() {
        String tail = "2026-01-01T00:00:00Z extractor | first\n2026-01-01T00:00:01Z loader | other\n"
                + "2026-01-01T00:00:02Z extractor | second\n2026-01-01T00:00:03Z mapper:m | map error\n";
        assertEquals("second", OutcomeClassifier.lastLine(tail, "extractor"));
        assertEquals("map error", OutcomeClassifier.lastLine(tail, "mapper:m"));
        assertNull(OutcomeClassifier.lastLine(tail, "transform"));
        assertEquals("x".repeat(300) + "...", OutcomeClassifier.excerpt("x".repeat(400)));
    }
}
