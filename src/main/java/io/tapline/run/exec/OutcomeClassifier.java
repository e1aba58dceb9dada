package io.tapline.run.exec;

import io.tapline.connector.RelayFailure;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.invocation.RunFailure;
import io.tapline.run.RunStatus;

import java.io.IOException;
import java.util.List;

/**
 * Every rule that turns what happened to a run into its outcome: status, failed component, failure
 * type (docs/failures.md) and readable reason. Pure functions of the facts (exit codes, stop
 * request, relay failure, state-store result), without processes or a database; the executors
 * gather the facts and call these.
 */
final class OutcomeClassifier {

    /** Longest excerpt of a log line or state in a reason. */
    static final int EXCERPT = 300;

    private OutcomeClassifier() {
    }

    /**
     * How a process of the run ended.
     *
     * @param component extractor, {@code mapper:<name>}, loader, transform or meltano
     * @param code exit code, -1 when unknown
     * @param lastLine its last stderr line (for the reason), or null
     */
    record Exit(String component, int code, String lastLine) {
        boolean failed() {
            return code != 0;
        }
    }

    /**
     * The facts of an extract-load.
     *
     * @param stop the stop request, or null
     * @param relay why the relay stopped early, or null
     * @param tap the extractor
     * @param mappers the mappers, in order
     * @param target the loader
     */
    record ExtractLoad(ActiveRun.Stop stop, RelayFailure relay, Exit tap, List<Exit> mappers, Exit target) {
    }

    /**
     * A run stopped before its processes ended by themselves.
     *
     * @param timeoutComponent the component blamed for a timeout (service, or transform during it)
     * @param during appended to the message, e.g. " (during the transform)"
     */
    static Outcome stopped(ActiveRun.Stop stop, FailedComponent timeoutComponent, String during) {
        String m = stop.message() + during;
        return switch (stop.reason()) {
            case CANCELLED, SHUTDOWN -> new Outcome(RunStatus.CANCELLED, null, FailureType.CANCELLED, m);
            case TIMED_OUT -> Outcome.failed(timeoutComponent, FailureType.TIMEOUT, m);
            case LOST -> Outcome.failed(FailedComponent.SERVICE, FailureType.LOST_INSTANCE, m);
            case FENCED -> Outcome.failed(FailedComponent.SERVICE, FailureType.STATE_STORE, m);
        };
    }

    /** The outcome of an extract-load, before its state is committed. */
    static Outcome extractLoad(ExtractLoad f) {
        if (f.stop() != null) {
            return stopped(f.stop(), FailedComponent.SERVICE, "");
        }
        RelayFailure relay = f.relay();
        boolean targetClosed = relay != null && relay.kind() == RelayFailure.Kind.TARGET_CLOSED;
        if (relay != null && !targetClosed) {
            FailureType type = relay.kind() == RelayFailure.Kind.TAP_READ_FAILED ? FailureType.INTERNAL
                    : FailureType.CONNECTOR_PROTOCOL;
            return Outcome.failed(FailedComponent.EXTRACTOR, type, "extractor output " + relay.message());
        }
        // A tap we stopped because the target closed its input did not fail by itself.
        boolean tapFailed = f.tap().failed() && !targetClosed;
        if (tapFailed && f.target().failed()) {
            return Outcome.failed(FailedComponent.EXTRACTOR, FailureType.CONNECTOR_EXIT, "Extractor and loader failed"
                    + " (exit codes " + f.tap().code() + " and " + f.target().code() + ")" + line(f.tap()));
        }
        if (tapFailed) {
            return Outcome.failed(FailedComponent.EXTRACTOR, FailureType.CONNECTOR_EXIT, "Extractor failed (exit code "
                    + f.tap().code() + ")" + line(f.tap()));
        }
        for (Exit m : f.mappers()) {
            if (m.failed()) {
                return Outcome.failed(FailedComponent.MAPPER, FailureType.CONNECTOR_EXIT, "Mappers failed ("
                        + m.component() + ", exit code " + m.code() + ")" + line(m));
            }
        }
        if (f.target().failed()) {
            return Outcome.failed(FailedComponent.LOADER, FailureType.CONNECTOR_EXIT, "Loader failed (exit code "
                    + f.target().code() + ")" + line(f.target()));
        }
        if (targetClosed) {
            return Outcome.failed(FailedComponent.LOADER, FailureType.CONNECTOR_PROTOCOL, "the loader closed its input"
                    + " before the end of the extractor's output");
        }
        return Outcome.SUCCEEDED;
    }

    /**
     * The outcome once the state was (or was not) committed: under either policy, a run whose final
     * acknowledged state was not stored never succeeds. Under CHECKPOINT it fails so whatever the
     * extract-load did; under ON_SUCCESS the state of a failed extract-load is discarded on purpose.
     *
     * @param el the extract-load's outcome
     * @param unstored the acknowledged state that could not be stored (compact JSON), or null when all was stored
     * @param onSuccess the ON_SUCCESS commit policy
     */
    static Outcome stateCommitted(Outcome el, String unstored, boolean onSuccess) {
        if (unstored == null || (onSuccess && !el.succeeded())) {
            return el;
        }
        return Outcome.failed(FailedComponent.SERVICE, FailureType.STATE_STORE, "the state acknowledged by the loader"
                + " could not be stored (the database was unreachable for longer than"
                + " tapline.runner.state-store-retry); see the run log. Not stored: " + excerpt(unstored));
    }

    /** The outcome of the transform step. */
    static Outcome transform(ActiveRun.Stop stop, Exit transform) {
        if (stop != null) {
            return stopped(stop, FailedComponent.TRANSFORM, " (during the transform)");
        }
        if (transform.failed()) {
            return Outcome.failed(FailedComponent.TRANSFORM, FailureType.CONNECTOR_EXIT, "Transform failed (exit code "
                    + transform.code() + ")" + line(transform));
        }
        return Outcome.SUCCEEDED;
    }

    /**
     * The outcome of {@code meltano run}.
     *
     * @param error Meltano's real error ({@link MeltanoOutput}), or null
     */
    static Outcome meltano(ActiveRun.Stop stop, int code, MeltanoOutput.Error error, String lastLine) {
        if (stop != null) {
            return stopped(stop, FailedComponent.SERVICE, "");
        }
        if (code == 0) {
            return Outcome.SUCCEEDED;
        }
        String text = error != null ? error.line() : lastLine;
        return Outcome.failed(error == null ? null : error.component(), error != null && error.configuration()
                ? FailureType.CONFIGURATION : FailureType.CONNECTOR_EXIT, "meltano run failed (exit code " + code + ")"
                + (text == null ? "" : ": " + excerpt(text)));
    }

    /** A failure of the service itself: out of a resource when the error says so, else internal. */
    static Outcome internal(Throwable t) {
        String m = RunThreads.rootMessage(t);
        return Outcome.failed(FailedComponent.SERVICE, resource(m) ? FailureType.RESOURCE : FailureType.INTERNAL,
                "internal error: " + m);
    }

    /** True when an error message names an exhausted resource (disk, memory, processes, files). */
    static boolean resource(String message) {
        String m = String.valueOf(message);
        return m.contains("No space left") || m.contains("Disk quota") || m.contains("Too many open files")
                || m.contains("Cannot allocate memory") || m.contains("error=12,") || m.contains("error=24,")
                || m.contains("error=11,") || m.contains("error=28,") || m.contains("OutOfMemoryError");
    }

    /** A process that could not start, with a readable reason without service paths or the PATH value. */
    static RunFailure startFailure(String component, String executable, IOException e) {
        String m = String.valueOf(e.getMessage());
        String why;
        FailureType type = FailureType.CONFIGURATION;
        if (m.contains("error=2,") || m.contains("not found") || m.contains("No such file")) {
            why = executable.contains("/") ? "no such file" : "not found on the PATH of the run (tapline.runner.inherit-env"
                    + " passes the service's PATH)";
        } else if (m.contains("error=13,") || m.contains("ermission denied")) {
            why = "permission denied (is it executable?)";
        } else if (m.contains("error=8,") || m.contains("Exec format error")) {
            why = "not an executable program (a script needs a #! line)";
        } else if (resource(m)) {
            why = "the machine is out of a resource (" + m + ")";
            type = FailureType.RESOURCE;
        } else {
            why = "the operating system refused to start it";
        }
        return new RunFailure(component(component), type, "cannot start the " + component + " '" + executable + "': "
                + why);
    }

    /** The component of a process prefix: extractor, {@code mapper:<name>}, loader, transform; else service. */
    static FailedComponent component(String prefix) {
        if (prefix.startsWith("mapper")) {
            return FailedComponent.MAPPER;
        }
        return switch (prefix) {
            case "extractor" -> FailedComponent.EXTRACTOR;
            case "loader" -> FailedComponent.LOADER;
            case "transform" -> FailedComponent.TRANSFORM;
            default -> FailedComponent.SERVICE;
        };
    }

    /**
     * The last line a component logged, from a run log tail ({@code "<time> <component> | <line>"}
     * lines), or null.
     */
    static String lastLine(String logTail, String component) {
        String marker = " " + component + " | ";
        String last = null;
        for (String line : logTail.split("\n")) {
            int i = line.indexOf(marker);
            if (i >= 0) {
                last = line.substring(i + marker.length());
            }
        }
        return last == null || last.isBlank() ? null : last;
    }

    /** Text cut to {@value #EXCERPT} characters, with "..." when cut. */
    static String excerpt(String s) {
        return s.length() > EXCERPT ? s.substring(0, EXCERPT) + "..." : s;
    }

    private static String line(Exit e) {
        return e.lastLine() == null ? "" : ": " + excerpt(e.lastLine());
    }

    /** The failure type in words for the run log, e.g. "FAILED (configuration error): ...". */
    static String describe(Outcome o) {
        String type = o.type() == null || o.status() == RunStatus.CANCELLED ? "" : " (" + o.type().words() + ")";
        return o.status() + type + (o.reason() == null ? "" : ": " + o.reason());
    }
}
