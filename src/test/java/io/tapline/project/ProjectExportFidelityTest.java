package io.tapline.project;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.project.export.YamlWriter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.tapline.project.ProjectImportTest.actions;
import static io.tapline.project.ProjectImportTest.export;
import static io.tapline.project.ProjectImportTest.importYaml;
import static io.tapline.project.ProjectImportTest.own;
import static io.tapline.project.ProjectImportTest.tree;
import static io.tapline.project.ProjectRoundTripTest.entry;
import static io.tapline.project.ProjectRoundTripTest.named;
import static io.tapline.project.ProjectRoundTripTest.yaml11;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the export used to lose beside real Meltano 4.2.2: plugin arguments, a schedule's pause,
 * pipeline env that {@code meltano run} never saw, the {@code settings:} of custom plugins, and the
 * deprecated {@code version: 1}. Each comes back through Tapline's import unchanged.
 */
@QuarkusTest
class ProjectExportFidelityTest {

    private static void plugin(String type, String name, Map<String, Object> extra) {
        Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of("name", name, "executable", "/bin/true"));
        body.putAll(extra);
        json().body(body).post("/api/v1/plugins/" + type).then().statusCode(201);
    }

    private static String pipeline(String prefix, String tap, String target, String environment,
                                   Map<String, Object> extra) {
        String name = unique(prefix);
        Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of("name", name, "extractor", tap, "loader",
                target, "environment", environment));
        body.putAll(extra);
        json().body(body).post("/api/v1/pipelines").then().statusCode(201);
        return name;
    }

    /** Re-imports the parts of the export that the test made, as a dry run, and returns the plan. */
    private static JsonPath reimport(String text, String environment, String names) {
        ObjectNode out = own(tree(text), tree(names));
        out.put("default_environment", environment);
        return importYaml(YamlWriter.write(out), "?environment=" + environment + "&dryRun=true").then()
                .statusCode(200).extract().jsonPath();
    }

    @Test
    @SuppressWarnings("unchecked")
    void pluginArgsAreExportedUnderTaplinesAnnotationAndReadBack() {
        String tap = unique("x-args");
        String target = unique("target-args");
        plugin("extractors", tap, Map.of("executable", "/bin/sh", "args", List.of("-c", "exec tap \"$@\"", "tap")));
        plugin("loaders", target, Map.of());
        String environment = unique("args");
        String p = pipeline("args-pl", tap, target, environment, Map.of());

        String text = export();
        Map<String, Object> e = entry(yaml11(text), "extractors", tap);
        assertEquals(Map.of("tapline", Map.of("args", List.of("-c", "exec tap \"$@\"", "tap"))), e.get("annotations"),
                text);
        assertEquals("/bin/sh", e.get("executable"));
        assertTrue(text.startsWith("# "), text);
        assertTrue(text.contains("# - extractors " + tap + ": its arguments are under annotations.tapline.args"), text);

        String names = """
                environments: [{name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                jobs: [{name: %s}]
                """.formatted(environment, tap, target, p);
        JsonPath again = reimport(text, environment, names);
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());

        // A document with the annotation gives a new plugin those arguments (and no annotation is kept).
        String other = unique("x-args-new");
        importYaml("""
                plugins:
                  extractors:
                    - name: %s
                      namespace: x
                      executable: /bin/sh
                      annotations: {tapline: {args: ["-c", "echo hi"]}, other-tool: {k: 1}}
                """.formatted(other), "").then().statusCode(200);
        json().get("/api/v1/plugins/extractors/" + other).then().statusCode(200)
                .body("args", equalTo(List.of("-c", "echo hi")))
                .body("extras.annotations", equalTo(Map.of("other-tool", Map.of("k", 1))));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPausedScheduleIsExportedAsManualWithItsIntervalAndComesBackPaused() {
        String tap = unique("tap-pause");
        String target = unique("target-pause");
        plugin("extractors", tap, Map.of());
        plugin("loaders", target, Map.of());
        String environment = unique("pause");
        String p = pipeline("paused-pl", tap, target, environment,
                Map.of("schedule", Map.of("interval", "0 3 * * *", "timezone", "Europe/Berlin")));
        json().post("/api/v1/pipelines/" + p + "/pause").then().statusCode(200);

        String text = export();
        Map<String, Object> s = named(yaml11(text), "schedules", p);
        // Meltano 4.2.2: @manual, @once and @none are the intervals of a schedule that runs only when asked.
        assertEquals("@manual", s.get("interval"), text);
        assertEquals(Map.of("tapline", Map.of("paused", true, "interval", "0 3 * * *")), s.get("annotations"));
        assertTrue(text.contains("# - pipeline " + p + ": paused"), text);

        String names = """
                environments: [{name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                schedules: [{name: %s}]
                jobs: [{name: %s}]
                """.formatted(environment, tap, target, p, p);
        JsonPath again = reimport(text, environment, names);
        assertEquals(List.of("unchanged"), actions(again, "pipelines"), again.prettify());
        assertTrue(again.getList("unsupported.path").stream().noneMatch(u -> String.valueOf(u).startsWith("schedules")),
                again.prettify());

        // Resumed in Tapline, the document (which says paused) pauses it again with its own interval.
        json().post("/api/v1/pipelines/" + p + "/resume").then().statusCode(200);
        ObjectNode out = own(tree(text), tree(names));
        out.put("default_environment", environment);
        JsonPath applied = importYaml(YamlWriter.write(out), "?environment=" + environment).then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of("update"), actions(applied, "pipelines"), applied.prettify());
        json().get("/api/v1/pipelines/" + p).then().statusCode(200)
                .body("schedule.enabled", equalTo(false))
                .body("schedule.interval", equalTo("0 3 * * *"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void pipelineEnvGoesIntoItsEnvironmentsEnvWhereMeltanoRunSeesIt() {
        String tap = unique("tap-envp");
        String target = unique("target-envp");
        plugin("extractors", tap, Map.of());
        plugin("loaders", target, Map.of());
        String shared = unique("envp");
        String a = pipeline("envp-a", tap, target, shared, Map.of("env", Map.of("TARGET_ENV", "blue", "ONLY_A", "1")));
        String b = pipeline("envp-b", tap, target, shared, Map.of("env", Map.of("TARGET_ENV", "blue"),
                "stateIdSuffix", "b"));

        String text = export();
        Object doc = yaml11(text);
        Map<String, Object> environment = named(doc, "environments", shared);
        // Both pipelines of the environment have TARGET_ENV=blue: Meltano's environment env, which
        // `meltano --environment X run` and `meltano invoke` give every plugin.
        assertEquals(Map.of("TARGET_ENV", "blue"), environment.get("env"), text);
        Map<String, Object> sa = named(doc, "schedules", a);
        Map<String, Object> envA = (Map<String, Object>) sa.get("env");
        assertFalse(envA.containsKey("TARGET_ENV"), text);
        // ONLY_A differs between the two: Meltano has no per-job env, so it stays in the schedule and is named.
        assertEquals("1", envA.get("ONLY_A"));
        assertTrue(text.contains("# - pipeline " + a + ": env ONLY_A only in its schedule's env"), text);
        Map<String, Object> envB = (Map<String, Object>) named(doc, "schedules", b).get("env");
        assertFalse(envB.containsKey("TARGET_ENV"), text);

        String names = """
                environments: [{name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                schedules: [{name: %s}, {name: %s}]
                jobs: [{name: %s}, {name: %s}]
                """.formatted(shared, tap, target, a, b, a, b);
        JsonPath again = reimport(text, shared, names);
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "pipelines"), again.prettify());
    }

    @Test
    @SuppressWarnings("unchecked")
    void customPluginsDeclareEverySettingWithItsKindAndSecretsAsPasswords() {
        String tap = unique("tap-settings");
        String target = unique("target-settings");
        Map<String, Object> config = new java.util.LinkedHashMap<>();
        config.put("count", 2);
        config.put("ratio", 0.5);
        config.put("flag", true);
        config.put("name", "x");
        config.put("tables", List.of("a"));
        config.put("nested", Map.of("k", 1));
        config.put("password", "hunter2");
        plugin("extractors", tap, Map.of("config", config, "sensitive", List.of("password")));
        plugin("loaders", target, Map.of());
        String environment = unique("settings");
        String p = pipeline("settings-pl", tap, target, environment, Map.of());

        String text = export();
        Map<String, Object> e = entry(yaml11(text), "extractors", tap);
        assertEquals(List.of(Map.of("name", "password", "kind", "password"), Map.of("name", "count", "kind", "integer"),
                Map.of("name", "ratio", "kind", "decimal"), Map.of("name", "flag", "kind", "boolean"),
                Map.of("name", "name", "kind", "string"), Map.of("name", "tables", "kind", "array"),
                Map.of("name", "nested", "kind", "object")), e.get("settings"), text);
        assertFalse(text.contains("hunter2"), text);

        String names = """
                environments: [{name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                jobs: [{name: %s}]
                """.formatted(environment, tap, target, p);
        JsonPath again = reimport(text, environment, names);
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());

        // A Hub plugin (imported without namespace) gets its settings from Meltano Hub: none are added.
        String hub = unique("tap-hub");
        importYaml("""
                plugins:
                  extractors:
                    - name: %s
                      variant: meltanolabs
                      config: {count: 1}
                """.formatted(hub), "").then().statusCode(200);
        assertNull(entry(yaml11(export()), "extractors", hub).get("settings"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExportHasNoVersionKeyWhichMeltano422CallsDeprecated() {
        String text = export();
        assertFalse(((Map<String, Object>) yaml11(text)).containsKey("version"), text);
        assertFalse(text.lines().anyMatch(l -> l.startsWith("version:")), text);
    }
}
