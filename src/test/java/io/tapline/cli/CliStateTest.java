package io.tapline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Cli;
import io.tapline.support.Cli.Result;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tapline state ...}, run as the real launcher against the test service: the
 * {@code meltano state} argument forms, {@code state get} byte for byte the API's Meltano-format
 * answer (and {@code --format pretty} as Python's {@code json.dumps(indent=2)}), exit codes, and
 * a viewer's write refused with the API's reason.
 */
@QuarkusTest
class CliStateTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL url;

    private Cli admin() {
        return Cli.at(url, Tokens.admin());
    }

    private static String stateId(String prefix) {
        return "cli:" + unique(prefix) + "-to-target";
    }

    @Test
    void getPrintsTheApisMeltanoFormatByteForByteAndPrettyAsPythonDoes() throws Exception {
        String id = stateId("get");
        // escapes, a non-BMP character and Python's number forms: what Meltano's json.dumps writes
        json().body("{\"singer_state\": {\"bookmarks\": {\"s\": {\"x\": \"caf\u00e9 \ud83d\ude00 <tag> \\\"q\\\"\","
                + " \"f\": 1e16, \"g\": 1e-05, \"h\": 100000.0, \"n\": null, \"e\": {}, \"l\": [], \"a\": [1, [2]]}}}}")
                .put("/api/v1/states/" + id).then().statusCode(200);
        byte[] api = json().get("/api/v1/states/" + id).then().statusCode(200).extract().asByteArray();

        Result r = admin().run("state", "get", id);
        assertEquals(0, r.exitCode(), r.toString());
        assertArrayEquals(api, r.stdout(), "state get is the API's body, byte for byte");
        assertTrue(r.out().endsWith("}\n") && !r.out().contains(": "), r.out());

        Result pretty = admin().run("state", "get", id, "--format", "pretty");
        assertEquals(0, pretty.exitCode(), pretty.toString());
        assertEquals(python("import json,sys; print(json.dumps(json.loads(sys.stdin.read()), indent=2))", api),
                pretty.out());

        // an ID without state prints {} and succeeds, as meltano state get does
        Result missing = admin().run("state", "get", stateId("none"));
        assertEquals(0, missing.exitCode(), missing.toString());
        assertEquals("{}\n", missing.out());
    }

    @Test
    void setMergeCopyMoveClearHistoryRollbackAndBookmarksAsMeltanoTakesThem() throws Exception {
        String id = stateId("edit");
        Cli cli = admin();
        Result set = cli.run("state", "set", "--force", id,
                "{\"singer_state\": {\"bookmarks\": {\"people\": {\"updated_at\": \"2024-01-01\"}}}}");
        assertEquals(0, set.exitCode(), set.toString());
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"people\":{\"updated_at\":\"2024-01-01\"}}}}\n",
                cli.run("state", "get", id).out());

        // without --force and without a terminal to ask on, nothing changes (exit 4)
        Result unasked = cli.run("state", "set", id, "{\"singer_state\": {}}");
        assertEquals(4, unasked.exitCode(), unasked.toString());
        assertTrue(unasked.stderr().contains("--force"), unasked.stderr());

        // Meltano's validation: no singer_state is refused (exit 2) unless --no-validate
        Result invalid = cli.run("state", "set", "--force", id, "{\"bookmarks\": {}}");
        assertEquals(2, invalid.exitCode(), invalid.toString());
        assertTrue(invalid.stderr().contains("singer_state") && invalid.stderr().contains("--no-validate"),
                invalid.stderr());
        assertEquals(2, cli.run("state", "set", "--force", id).exitCode(), "neither STATE nor --input-file");

        Path file = Files.createDirectories(Cli.HOME.resolve("files")).resolve(unique("state") + ".json");
        Files.writeString(file, "{\"singer_state\": {\"bookmarks\": {\"orders\": {\"id\": 7}}}}");
        Result merge = cli.run("state", "merge", id, "--input-file", file.toString());
        assertEquals(0, merge.exitCode(), merge.toString());
        JsonNode merged = JSON.readTree(cli.run("state", "get", id).stdout());
        assertEquals("2024-01-01", merged.at("/singer_state/bookmarks/people/updated_at").asText());
        assertEquals(7, merged.at("/singer_state/bookmarks/orders/id").asInt());

        String copy = stateId("copy");
        String moved = stateId("moved");
        assertEquals(0, cli.run("state", "copy", "--force", id, copy).exitCode());
        assertEquals(0, cli.run("state", "move", "--force", copy, moved).exitCode());
        assertEquals("{}\n", cli.run("state", "get", copy).out(), "move clears the source");
        assertArrayEquals(cli.run("state", "get", id).stdout(), cli.run("state", "get", moved).stdout());

        Result list = cli.run("state", "list", "--pattern", moved);
        assertEquals(moved + "\n", list.out(), "one ID per line, no colour without a terminal");
        Result listJson = cli.run("state", "list", "--pattern", "cli:*", "--format", "json");
        assertEquals(0, listJson.exitCode(), listJson.toString());
        assertTrue(JSON.readTree(listJson.stdout()).isArray());

        Result history = cli.run("state", "history", id, "--format", "json");
        assertEquals(0, history.exitCode(), history.toString());
        JsonNode versions = JSON.readTree(history.stdout());
        assertEquals(2, versions.size(), history.out());
        assertEquals(1, versions.get(1).path("version").asInt());

        Result rollback = cli.run("state", "rollback", "--force", id, "1");
        assertEquals(0, rollback.exitCode(), rollback.toString());
        assertEquals("{\"singer_state\":{\"bookmarks\":{\"people\":{\"updated_at\":\"2024-01-01\"}}}}\n",
                cli.run("state", "get", id).out());

        Result bookmarkSet = cli.run("state", "bookmark", "set", id, "people", "updated_at", "\"2024-02-02\"");
        assertEquals(0, bookmarkSet.exitCode(), bookmarkSet.toString());
        assertEquals("\"2024-02-02\"\n", cli.run("state", "bookmark", "get", id, "people", "updated_at").out());
        assertEquals("{\"updated_at\":\"2024-02-02\"}\n", cli.run("state", "bookmark", "get", id, "people").out());

        assertEquals(2, cli.run("state", "clear", "--force").exitCode(), "a state ID or --all");
        assertEquals(2, cli.run("state", "clear", "--force", "--all", id).exitCode(), "not both");
        assertEquals(4, cli.run("state", "clear", "--all").exitCode(), "--all unasked changes nothing");
        Result clear = cli.run("state", "clear", "--force", id);
        assertEquals(0, clear.exitCode(), clear.toString());
        assertEquals("{}\n", cli.run("state", "get", id).out());
    }

    @Test
    void aViewerTokenIsRefusedOnAWriteWithTheApisReasonAndExit6() {
        String id = stateId("viewer");
        Cli viewer = Cli.at(url, Tokens.of("cli-viewer", "viewer"));
        Result read = viewer.run("state", "get", id);
        assertEquals(0, read.exitCode(), read.toString());

        Result write = viewer.run("state", "set", "--force", id, "{\"singer_state\": {}}");
        assertEquals(6, write.exitCode(), write.toString());
        String reason = io.tapline.support.Api.as(Tokens.of("cli-viewer", "viewer")).body("{\"singer_state\": {}}")
                .put("/api/v1/states/" + id).then().statusCode(403).extract().path("detail");
        assertTrue(write.stderr().startsWith("tapline: " + reason), "the API's reason: " + write.stderr());
        assertEquals(1, write.stderr().lines().count(), "one line, no stack trace: " + write.stderr());
        assertFalse(write.stderr().contains("Exception"), write.stderr());
        assertEquals("{}\n", admin().run("state", "get", id).out(), "nothing was written");
    }

    @Test
    void tokensAndUrlsThatDoNotWorkSayWhatToDoWithTheirExitCodes() {
        Result noToken = Cli.at(url, null).run("state", "list");
        assertEquals(6, noToken.exitCode(), noToken.toString());
        assertTrue(noToken.stderr().contains("needs a token") && noToken.stderr().contains("tapline login"),
                noToken.stderr());

        Result expired = Cli.at(url, Tokens.expired()).run("state", "list");
        assertEquals(6, expired.exitCode(), expired.toString());

        Result unreachable = admin().env("TAPLINE_URL", "http://127.0.0.1:1").run("state", "get", "x");
        assertEquals(5, unreachable.exitCode(), unreachable.toString());
        assertEquals("tapline: Cannot reach http://127.0.0.1:1: is the service running? Set TAPLINE_URL or --url.\n",
                unreachable.stderr());

        Result usage = admin().run("state", "get");
        assertEquals(2, usage.exitCode(), usage.toString());
        Result badUrl = admin().run("--url", "ftp://x", "state", "list");
        assertEquals(2, badUrl.exitCode(), badUrl.toString());

        Result help = admin().run("state", "set", "--help");
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.out().contains("Examples:") && help.out().contains("tapline state set --force"), help.out());
    }

    /** The output of a Python snippet given {@code input} on stdin (the test connectors need python3 too). */
    static String python(String code, byte[] input) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "-c", code).redirectErrorStream(true).start();
        p.getOutputStream().write(input);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        return out;
    }
}
