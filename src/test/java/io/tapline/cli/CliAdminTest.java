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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The administration verbs with the real launcher against the test service: pipelines,
 * schedule, plugins, config, select, install, discover, project, webhooks, audit, token, version,
 * login and profiles, shell completion with names from the service; {@code --format json} parsed.
 */
@QuarkusTest
class CliAdminTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL url;

    private Cli cli() {
        return Cli.at(url, Tokens.admin());
    }

    private static Result ok(Result r) {
        assertEquals(0, r.exitCode(), r.toString());
        return r;
    }

    private static JsonNode parsed(Result r) throws Exception {
        return JSON.readTree(ok(r).stdout());
    }

    @Test
    void pluginsPipelinesAndSchedules() throws Exception {
        String tap = unique("tap-cli");
        String target = unique("target-cli");
        ok(cli().run("plugins", "add", "extractor", tap, "--executable", Connectors.TAP.toString(),
                "--capabilities", "state", "--config", "{\"records\": 1}"));
        ok(cli().run("plugins", "add", "loader", target, "--executable", Connectors.TARGET.toString()));
        assertEquals(4, cli().run("plugins", "add", "loader", target, "--executable", "x").exitCode(), "taken");
        assertEquals(Connectors.TAP.toString(), parsed(cli().run("plugins", "show", "extractor", tap, "--format", "json"))
                .path("executable").asText());
        assertEquals("loaders", parsed(cli().run("plugins", "show", target, "--format", "json")).path("type").asText());
        JsonNode extractors = parsed(cli().run("plugins", "list", "--type", "extractor", "--format", "json"));
        assertTrue(extractors.findValuesAsText("name").contains(tap));
        assertTrue(ok(cli().run("plugins", "list")).out().startsWith("TYPE "));

        String p = unique("pl-cli");
        Result create = cli().run("pipelines", "create", p, "--extractor", tap, "--loader", target,
                "--environment", "cli", "--interval", "@daily", "--timezone", "Europe/Berlin");
        ok(create);
        assertTrue(create.stderr().contains("cli:" + tap + "-to-" + target), create.stderr());
        JsonNode shown = parsed(cli().run("pipelines", "show", p, "--format", "json"));
        assertEquals("@daily", shown.at("/schedule/interval").asText());
        assertTrue(ok(cli().run("pipelines", "list")).out().contains(p));

        ok(cli().run("pipelines", "edit", p, "--interval", "@hourly", "--timeout-seconds", "300"));
        json().get("/api/v1/pipelines/" + p).then().body("schedule.interval", equalTo("@hourly"))
                .body("timeoutSeconds", equalTo(300));
        // without options: $EDITOR edits the pipeline, saved with If-Match
        Path editor = Files.createDirectories(Cli.HOME.resolve("files")).resolve("edit-timeout.sh");
        Files.writeString(editor, "#!/bin/sh\nsed -i 's/\"timeoutSeconds\" *: *300/\"timeoutSeconds\": 420/' \"$1\"\n");
        editor.toFile().setExecutable(true);
        ok(cli().env("EDITOR", editor.toString()).env("VISUAL", null).run("pipelines", "edit", p));
        json().get("/api/v1/pipelines/" + p).then().body("timeoutSeconds", equalTo(420));

        JsonNode schedules = parsed(cli().run("schedule", "list", "--format", "json"));
        assertTrue(schedules.findValuesAsText("name").contains(p));
        ok(cli().run("schedule", "pause", p));
        json().get("/api/v1/pipelines/" + p).then().body("schedule.enabled", equalTo(false));
        ok(cli().run("schedule", "resume", p));
        json().get("/api/v1/pipelines/" + p).then().body("schedule.enabled", equalTo(true));
        JsonNode next = parsed(cli().run("schedule", "next", p, "--count", "3", "--format", "json"));
        assertEquals(3, next.path("next").size());

        assertEquals(4, cli().run("plugins", "remove", "--force", tap).exitCode(), "in use by the pipeline");
        ok(cli().run("pipelines", "delete", "--force", p));
        assertEquals(3, cli().run("pipelines", "show", p).exitCode());
        ok(cli().run("plugins", "remove", "--force", "extractor", tap));
    }

    @Test
    void configSelectDiscoverAndInstall() throws Exception {
        String tap = unique("tap-cfg");
        Path file = Files.createDirectories(Cli.HOME.resolve("files")).resolve(tap + ".json");
        Files.writeString(file, """
                {"executable": "%s", "capabilities": ["catalog", "discover", "state"],
                 "config": {"records": 1, "nested": {"a": 1}}, "select": ["people.*"],
                 "catalog": {"streams": [{"tap_stream_id": "people", "stream": "people",
                   "schema": {"properties": {"id": {"type": "integer"}, "email": {"type": "string"}}},
                   "metadata": [{"breadcrumb": [], "metadata": {"table-key-properties": ["id"]}},
                     {"breadcrumb": ["properties", "id"], "metadata": {"inclusion": "automatic"}},
                     {"breadcrumb": ["properties", "email"], "metadata": {"inclusion": "available"}}]}]}}
                """.formatted(Connectors.TAP));
        ok(cli().run("plugins", "add", "extractor", tap, "--file", file.toString()));

        ok(cli().run("config", tap, "set", "token", "--sensitive", "s3cret-value"));
        ok(cli().run("config", tap, "set", "nested", "b", "true"));
        ok(cli().run("config", tap, "set", "start_date", "2024-01-01"));
        JsonNode config = parsed(cli().run("config", tap));
        assertEquals("********", config.path("token").asText(), "secrets are shown masked");
        assertTrue(config.at("/nested/b").asBoolean());
        assertEquals("2024-01-01", config.path("start_date").asText(), "text that is not JSON stays text");
        Result list = ok(cli().run("config", tap, "list"));
        assertTrue(list.out().contains("nested.b") && list.out().contains("(sensitive)"), list.out());
        assertFalse(list.out().contains("s3cret-value"), list.out());
        ok(cli().run("config", tap, "unset", "start_date"));
        assertTrue(parsed(cli().run("config", tap)).path("start_date").isMissingNode());
        Result test = cli().run("config", tap, "test");
        assertEquals(0, test.exitCode(), test.toString());
        assertTrue(test.out().contains("Plugin configuration is valid"), test.out());
        ok(cli().run("config", tap, "set", "records", "0"));
        ok(cli().run("config", tap, "set", "exit_code", "1"));
        Result failing = cli().run("config", tap, "test", "--timeout-seconds", "30");
        assertEquals(1, failing.exitCode(), failing.toString());
        assertTrue(failing.out().contains("Plugin configuration is invalid"), failing.out());

        Result selected = ok(cli().run("select", tap, "--list", "--all"));
        assertTrue(selected.out().contains("Enabled patterns:\n\tpeople.*"), selected.out());
        assertTrue(selected.out().contains("[automatic  ] people.id") && selected.out().contains("[selected   ] people.email"),
                selected.out());
        ok(cli().run("select", tap, "--exclude", "people", "email"));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("select", equalTo(java.util.List.of("people.*",
                "!people.email")));
        assertTrue(ok(cli().run("select", tap, "--list", "--all")).out().contains("[excluded   ] people.email"));
        ok(cli().run("select", tap, "--rm", "--exclude", "people", "email"));
        json().get("/api/v1/plugins/extractors/" + tap).then().body("select", equalTo(java.util.List.of("people.*")));

        String discovering = unique("tap-disc");
        ok(cli().run("plugins", "add", "extractor", discovering, "--executable", Connectors.TAP.toString(),
                "--capabilities", "catalog,discover"));
        JsonNode discovered = parsed(cli().run("discover", discovering, "--format", "json"));
        assertEquals(discovering, discovered.path("extractor").asText());

        assertEquals(3, cli().run("install", unique("absent")).exitCode(), "no such plugin");
        Result noPipUrl = cli().run("install", "--plugin-type", "extractor", discovering);
        assertEquals(2, noPipUrl.exitCode(), "the API's 400 for a plugin without a pip_url: " + noPipUrl);
        String bad = unique("tap-pip");
        ok(cli().run("plugins", "add", "extractor", bad, "--pip-url", "/nonexistent/" + bad + "-1.0.tar.gz"));
        Result install = cli().run("install", bad);
        assertEquals(1, install.exitCode(), "a failed install: " + install);
        assertTrue(install.stderr().contains("failed: "), install.stderr());
    }

    @Test
    void projectImportExportAndAssess() throws Exception {
        String tap = unique("tap-proj");
        String target = unique("target-proj");
        String job = unique("job-proj");
        Path yml = Files.createDirectories(Cli.HOME.resolve("files")).resolve(tap + ".meltano.yml");
        Files.writeString(yml, """
                version: 1
                default_environment: cliproj
                environments: [{name: cliproj}]
                plugins:
                  extractors:
                  - name: %s
                    executable: /bin/true
                  loaders:
                  - name: %s
                    executable: /bin/true
                jobs:
                - name: %s
                  tasks: [%s %s]
                """.formatted(tap, target, job, tap, target));
        JsonNode plan = parsed(cli().run("project", "import", yml.toString(), "--dry-run", "--format", "json"));
        assertTrue(plan.path("dryRun").asBoolean());
        assertEquals(404, json().get("/api/v1/plugins/extractors/" + tap).statusCode(), "a dry run writes nothing");
        Result imported = ok(cli().run("project", "import", yml.toString(), "--on-conflict", "fail"));
        assertTrue(imported.out().contains("Imported for environment cliproj"), imported.out());
        json().get("/api/v1/pipelines/" + job).then().statusCode(200);
        Files.writeString(yml, Files.readString(yml).replaceFirst("/bin/true", "/bin/false"));
        Result conflict = cli().run("project", "import", yml.toString(), "--on-conflict", "fail");
        assertEquals(4, conflict.exitCode(), "a change to an existing plugin with --on-conflict fail: " + conflict);
        assertTrue(conflict.stderr().contains(tap), conflict.stderr());

        Result export = ok(cli().run("project", "export"));
        assertTrue(export.out().contains("name: " + tap), export.out());
        Path out = Cli.HOME.resolve("files").resolve(tap + ".exported.yml");
        ok(cli().run("project", "export", "-o", out.toString()));
        assertEquals(export.out(), Files.readString(out));
        JsonNode assessment = parsed(cli().run("project", "assess", "--format", "json"));
        assertTrue(assessment.hasNonNull("level"), assessment.toString());
    }

    @Test
    void webhooksAndAudit() throws Exception {
        Path secret = Files.createDirectories(Cli.HOME.resolve("files")).resolve("webhook-secret.txt");
        Files.writeString(secret, "a-long-enough-webhook-secret\n");
        String hookUrl = "https://203.0.113.10/" + unique("cli-hook");
        Result created = ok(cli().run("webhooks", "create", hookUrl, "--events", "run.failed,state.large",
                "--pipelines", unique("nothing") + "-*", "--secret-file", secret.toString()));
        String id = created.out().trim();
        assertTrue(parsed(cli().run("webhooks", "list", "--format", "json")).findValuesAsText("id").contains(id));
        JsonNode hook = parsed(cli().run("webhooks", "show", id, "--format", "json"));
        assertEquals(hookUrl, hook.path("url").asText());
        assertTrue(hook.path("secretSet").asBoolean() && !hook.has("secret"));
        assertEquals(0, parsed(cli().run("webhooks", "deliveries", id, "--format", "json")).size());
        ok(cli().run("webhooks", "delete", "--force", id));
        assertEquals(3, cli().run("webhooks", "show", id).exitCode());

        JsonNode audit = parsed(cli().run("audit", "--action", "webhook.", "--limit", "5", "--format", "json"));
        assertTrue(audit.isArray() && audit.size() >= 1, audit.toString());
        assertEquals(6, Cli.at(url, Tokens.of("cli-operator", "operator")).run("audit").exitCode(), "admins only");
    }

    @Test
    void tokenVersionLoginProfilesAndTheDevTokenFile() throws Exception {
        Path keys = Files.createDirectories(Cli.HOME.resolve("keys-" + unique("k")));
        Result token = ok(cli().run("token", "--keys-dir", keys.toString(), "--role", "viewer", "--subject", "alice",
                "--days", "2"));
        String[] parts = token.out().trim().split("\\.");
        JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
        assertEquals("tapline-dev", claims.path("iss").asText());
        assertEquals("viewer", claims.path("groups").get(0).asText());
        assertEquals(2 * 86400, claims.path("exp").asLong() - claims.path("iat").asLong());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.resolve("private.pem"))));
        assertEquals(2, cli().run("token", "--role", "root").exitCode());

        Result version = ok(cli().run("version"));
        assertTrue(version.out().startsWith("tapline ") && version.out().contains("API Tapline API, version 1"),
                version.out());
        assertEquals(1, ok(cli().run("version", "--client")).out().lines().count());

        // login stores URL and token (checked with the service) in a profile of a 0600 file
        Path config = Files.createDirectories(Cli.HOME.resolve("profiles-" + unique("p"))).resolve("config");
        String base = url.toString().replaceAll("/$", "");
        Result login = Cli.at(url, null).env("TAPLINE_URL", null).env("TAPLINE_CONFIG", config.toString())
                .runWithInput((Tokens.admin() + "\n").getBytes(StandardCharsets.US_ASCII), "login", "--url", base,
                        "--profile", "test");
        ok(login);
        assertTrue(login.stderr().contains("as " + Tokens.ADMIN_SUBJECT + " (admin)"), login.stderr());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(config)));
        Cli fromProfile = Cli.at(url, null).env("TAPLINE_URL", null).env("TAPLINE_CONFIG", config.toString());
        ok(fromProfile.run("state", "list"));
        Result profiles = ok(fromProfile.run("profiles", "list"));
        assertTrue(profiles.out().contains("*        test  " + base + "  yes"), profiles.out());
        // the profile's token goes only to the profile's URL
        Result elsewhere = fromProfile.run("--url", base.replace("localhost", "127.0.0.1"), "state", "list");
        assertEquals(6, elsewhere.exitCode(), elsewhere.toString());
        assertEquals(6, Cli.at(url, "not-a-token").env("TAPLINE_CONFIG", config.toString())
                .run("login", "--url", base, "--profile", "bad").exitCode(), "a refused token is not stored");
        ok(fromProfile.run("profiles", "delete", "test"));
        assertEquals(3, fromProfile.run("profiles", "use", "test").exitCode());

        // a service on this machine: .tapline/dev-token in the working directory is used without a token
        Path work = Files.createDirectories(Cli.HOME.resolve("devtoken-" + unique("w")).resolve(".tapline"));
        Files.writeString(work.resolve("dev-token"), Tokens.admin() + "\n");
        ok(Cli.at(url, null).in(work.getParent()).run("state", "list"));
    }

    @Test
    void shellCompletionCompletesNamesFromTheService() throws Exception {
        String p = Connectors.pipeline(java.util.Map.of(), java.util.Map.of(), java.util.Map.of());
        Result bash = ok(cli().run("completion", "bash"));
        assertTrue(bash.out().contains("complete -F _complete_tapline") && bash.out().contains("_tapline_names pipelines"),
                "picocli's script with the service's names");
        assertTrue(ok(cli().run("completion", "zsh")).out().startsWith("#compdef tapline"));
        assertTrue(ok(cli().run("__complete", "pipelines")).out().lines().anyMatch(p::equals));

        Path script = Files.createDirectories(Cli.HOME.resolve("files")).resolve("tapline.bash");
        Files.write(script, bash.stdout());
        String prefix = p.substring(0, p.length() - 3);
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "source '" + script + "' 2>/dev/null; COMP_WORDS=(tapline"
                + " run '" + prefix + "'); COMP_CWORD=2; _complete_tapline 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"")
                .redirectErrorStream(true);
        pb.environment().put("PATH", Cli.LAUNCHER.getParent() + ":" + System.getenv("PATH"));
        pb.environment().put("TAPLINE_URL", url.toString());
        pb.environment().put("TAPLINE_TOKEN", Tokens.admin());
        pb.environment().put("XDG_CACHE_HOME", Cli.HOME.resolve("cache").toString());
        pb.environment().put("TAPLINE_CONFIG", Cli.HOME.resolve("home/config").toString());
        Process sh = pb.start();
        String completed = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        sh.waitFor();
        assertTrue(completed.lines().anyMatch(p::equals), "tapline run " + prefix + "<TAB>: " + completed);
    }
}
