package io.tapline.plugin.install;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginType;
import io.tapline.support.Tokens;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.as;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 item 8: a token inside a pip_url ({@code git+https://user:TOKEN@...}) was shown to
 * viewers and exported. It is masked wherever the plugin is shown, a GET sent back keeps it, and a
 * pip_url may instead hold references resolved only at install time.
 */
@QuarkusTest
class PipUrlCredentialsTest {

    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final String TOKEN = "glpat-Zq5x9CANARY81";

    @Inject
    PluginRepository plugins;

    private static String stored(PluginRepository plugins, String name) {
        return io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().call(
                () -> plugins.findByTypeAndName(PluginType.EXTRACTORS, name).orElseThrow().pipUrl);
    }

    @Test
    void aCredentialInAPipUrlIsMaskedForEveryReaderAndKeptWhenAGetIsSentBack() {
        String name = unique("tap-cred");
        String url = "git+https://ci:" + TOKEN + "@gitlab.example/acme/tap-x.git";
        Map<String, Object> body = new LinkedHashMap<>(Map.of("name", name, "pipUrl", url));
        json().body(body).post("/api/v1/plugins/extractors").then().statusCode(201)
                .body("pipUrl", equalTo("git+https://ci:********@gitlab.example/acme/tap-x.git"))
                .body("warnings", hasItem(containsString("holds a credential in clear")));
        String viewer = Tokens.of("local-viewer", "viewer");
        String asViewer = as(viewer).get("/api/v1/plugins/extractors/" + name).then().statusCode(200).extract().asString();
        assertFalse(asViewer.contains(TOKEN), asViewer);
        String list = as(viewer).get("/api/v1/plugins/extractors").asString();
        assertFalse(list.contains(TOKEN), "the list shows no token");

        // a GET sent back unchanged keeps the stored credential
        JsonPath got = json().get("/api/v1/plugins/extractors/" + name).then().extract().jsonPath();
        Map<String, Object> back = new LinkedHashMap<>(Map.of("name", name, "pipUrl", got.getString("pipUrl")));
        json().body(back).put("/api/v1/plugins/extractors/" + name).then().statusCode(200);
        assertEquals(url, stored(plugins, name));

        // the mask with another host is not a credential to keep
        back.put("pipUrl", "git+https://ci:********@evil.example/acme/tap-x.git");
        problem(json().body(back).put("/api/v1/plugins/extractors/" + name).then(), 400, "validation")
                .body("detail", containsString("mask"));
        assertEquals(url, stored(plugins, name));

        String yaml = json().accept("application/yaml").get("/api/v1/projects/meltano.yml").asString();
        assertFalse(yaml.contains(TOKEN), "the export holds no token");
        assertTrue(yaml.contains("git+https://ci:********@gitlab.example/acme/tap-x.git"), yaml);
        assertTrue(yaml.contains(name + ": its pip_url holds a credential"), yaml);
    }

    @Test
    void aReferenceInAPipUrlIsResolvedOnlyWhenTheTapIsInstalledAndItsValueIsMaskedInTheLog() throws Exception {
        Path wheel = TestPackages.tinyWheel();
        Path holder = Files.createTempFile("wheel-path", ".txt");
        Files.writeString(holder, wheel.toString() + "\n");
        String ref = "tap-tiny@file://${file:" + holder + "}";
        String tap = unique("tap-ref");
        String p = InstallTests.pipeline(tap, ref, "tap-tiny", Map.of());
        json().get("/api/v1/plugins/extractors/" + tap).then().body("pipUrl", equalTo(ref))
                .body("warnings", org.hamcrest.Matchers.empty());

        String run = trigger(p, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).body("streams.tiny.records", equalTo(3));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("Successfully installed tap-tiny-1.0.0"), log);
        assertFalse(log.contains(wheel.toString()), "the value read from the file is masked in the install log");
        assertEquals(ref, stored(plugins, tap));
        // the environment is recorded under the reference, not the value
        String marker = Files.readString(InstallTests.PLUGINS.resolve("extractors").resolve(tap)
                .resolve("venv").resolve(PluginEnvironment.MARKER));
        assertTrue(marker.contains("${file:"), marker);
        assertFalse(marker.contains(wheel.toString()), marker);
    }

    @Test
    void aReferenceThatCannotBeResolvedFailsTheInstallWithAReasonNamingIt() {
        String tap = unique("tap-noref");
        String p = InstallTests.pipeline(tap, "git+https://ci:${secret:no-such-token}@gitlab.example/tap.git",
                "tap-x", Map.of());
        String run = trigger(p, Map.of());
        String reason = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED")).extract().path("errorSummary");
        assertTrue(reason.contains("pip_url") && reason.contains("${secret:no-such-token}"), reason);
        List<Map<String, Object>> installs = json().get("/api/v1/plugins/extractors/" + tap + "/installs")
                .then().extract().jsonPath().getList("items");
        assertEquals("FAILED", installs.get(0).get("status"), installs.toString());
    }
}
