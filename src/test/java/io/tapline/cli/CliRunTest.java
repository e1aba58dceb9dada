package io.tapline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Cli;
import io.tapline.support.Cli.Result;
import io.tapline.support.Connectors;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.tapline.support.Api.json;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tapline run} and {@code tapline runs ...} with the real launcher: a followed run ends
 * with the run's status as exit code (0 SUCCEEDED, 1 FAILED or CANCELLED) after its log and
 * summary; Ctrl-C asks whether to cancel and cancels on yes; {@code --no-follow}, {@code runs
 * list|show|logs|cancel}.
 */
@QuarkusTest
class CliRunTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RUN_ID = Pattern.compile("Run ([0-9a-f-]{36}) of ");
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TestHTTPResource("/")
    URL url;

    private Cli cli() {
        return Cli.at(url, Tokens.admin());
    }

    @Test
    void aFollowedRunPrintsItsLogAndSummaryAndExitsWithItsStatus() throws Exception {
        String ok = Connectors.pipeline(Map.of("records", 3, "state_every", 1), Map.of(), Map.of());
        Result r = cli().run("run", ok);
        assertEquals(0, r.exitCode(), r.toString());
        String id = runId(r.stderr());
        JsonNode run = JSON.readTree(json().get("/api/v1/runs/" + id).asByteArray());
        assertEquals("SUCCEEDED", run.path("status").asText());
        assertTrue(r.out().contains("extractor | ARGS"), "the log, followed: " + r.out());
        assertTrue(r.out().contains("Run " + id + " of pipeline " + ok + ": SUCCEEDED"), r.out());
        assertTrue(r.out().matches("(?s).*\\nitems +3 +1 .*"), "records per stream: " + r.out());
        assertTrue(r.out().contains("State after:  {\"singer_state\":{\"bookmarks\":{\"items\":{\"id\":3}}}}"), r.out());
        assertTrue(!r.out().contains("\u001b["), "no colours without a terminal");

        String failing = Connectors.pipeline(Map.of("records", 1, "exit_code", 1), Map.of(), Map.of());
        Result f = cli().run("run", failing);
        assertEquals(1, f.exitCode(), f.toString());
        assertTrue(f.out().contains(": FAILED") && f.out().contains("Reason: "), f.out());

        // several pipelines run in order and stop at the first that fails, as meltano run does
        Result both = cli().run("run", failing, ok);
        assertEquals(1, both.exitCode(), both.toString());
        assertEquals(1, RUN_ID.matcher(both.stderr()).results().count(), "the second was not started: " + both.stderr());

        assertEquals(2, cli().run("run", ok, "--streams", "items").exitCode(), "--streams needs --full-refresh");
        Result refresh = cli().run("run", ok, "--full-refresh", "--streams", "items", "--refresh-catalog");
        assertEquals(0, refresh.exitCode(), refresh.toString());
        json().get("/api/v1/runs/" + runId(refresh.stderr())).then().body("fullRefreshStreams", equalTo(List.of("items")));
    }

    @Test
    void noFollowPrintsTheRunIdAndRunsListShowLogsAndCancel() throws Exception {
        String ok = Connectors.pipeline(Map.of("records", 2), Map.of(), Map.of());
        Result started = cli().run("run", ok, "--no-follow");
        assertEquals(0, started.exitCode(), started.toString());
        String id = started.out().trim();
        assertTrue(id.matches("[0-9a-f-]{36}"), started.out());

        Result logs = cli().run("runs", "logs", "--follow", id);
        assertEquals(0, logs.exitCode(), logs.toString());
        assertTrue(logs.out().contains("run SUCCEEDED"), logs.out());
        Result plainLogs = cli().run("runs", "logs", id);
        assertEquals(0, plainLogs.exitCode(), plainLogs.toString());
        assertEquals(logs.out(), plainLogs.out(), "the followed log is the whole log");

        Result show = cli().run("runs", "show", id, "--format", "json");
        assertEquals(0, show.exitCode(), show.toString());
        assertEquals("SUCCEEDED", JSON.readTree(show.stdout()).path("status").asText());
        assertEquals(2, JSON.readTree(show.stdout()).path("recordsTotal").asInt());
        Result table = cli().run("runs", "show", id);
        assertTrue(table.out().contains(": SUCCEEDED") && table.out().contains("stateId"), table.out());

        Result list = cli().run("runs", "list", "--pipeline", ok, "--format", "json");
        assertEquals(0, list.exitCode(), list.toString());
        assertEquals(id, JSON.readTree(list.stdout()).get(0).path("id").asText());
        Result yaml = cli().run("runs", "list", "--pipeline", ok, "--format", "yaml");
        assertTrue(yaml.out().startsWith("- id: " + id), yaml.out());

        Result ended = cli().run("runs", "cancel", id);
        assertEquals(4, ended.exitCode(), "an ended run cannot be cancelled: " + ended);
        assertEquals(3, cli().run("runs", "show", "00000000-0000-0000-0000-000000000000").exitCode());

        String hang = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        String running = cli().run("run", hang, "--no-follow").out().trim();
        Connectors.awaitLog(running, "READY", WAIT);
        Result cancel = cli().run("runs", "cancel", running);
        assertEquals(0, cancel.exitCode(), cancel.toString());
        Connectors.awaitEnd(running, WAIT).then().body("status", equalTo("CANCELLED"));
        assertEquals(1, cli().run("runs", "logs", "--follow", running).exitCode(), "a cancelled run's follow exits 1");
    }

    @Test
    void ctrlCAsksWhetherToCancelAndCancelsOnYes() throws Exception {
        String hang = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        // A terminal cannot be given to a test's process; the launcher's tty flag is what the CLI asks.
        Cli.Running r = cli().env("TAPLINE_JAVA_OPTS", "-Dtapline.stdin.tty=true").start("run", hang);
        r.awaitStderr("Ctrl-C asks whether to cancel it");
        String id = runId(r.stderr());
        Connectors.awaitLog(id, "READY", WAIT);
        r.signal("INT");
        r.awaitStderr("Cancel run " + id + "? [y/N]");
        r.write("y\n".getBytes());
        Result end = r.end();
        assertEquals(1, end.exitCode(), end.toString());
        assertTrue(end.out().contains(": CANCELLED"), end.out());
        json().get("/api/v1/runs/" + id).then().body("status", equalTo("CANCELLED"))
                .body("cancelledBy", equalTo(Tokens.ADMIN_SUBJECT));
    }

    @Test
    void ctrlCWithoutATerminalLeavesTheRunGoingOn() {
        String hang = Connectors.pipeline(Map.of("mode", "hang"), Map.of(), Map.of());
        Cli.Running r = cli().start("run", hang);
        r.awaitStderr("Ctrl-C asks whether to cancel it");
        String id = runId(r.stderr());
        Connectors.awaitLog(id, "READY", WAIT);
        r.signal("INT");
        Result end = r.end();
        assertEquals(130, end.exitCode(), end.toString());
        assertTrue(end.stderr().contains("the run goes on"), end.stderr());
        json().get("/api/v1/runs/" + id).then().body("status", equalTo("RUNNING"));
        json().post("/api/v1/runs/" + id + "/cancel").then().statusCode(202);
        Connectors.awaitEnd(id, WAIT);
    }

    private static String runId(String stderr) {
        Matcher m = RUN_ID.matcher(stderr);
        assertTrue(m.find(), "no run id in: " + stderr);
        return m.group(1);
    }
}
