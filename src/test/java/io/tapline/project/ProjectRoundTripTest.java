package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.project.export.YamlWriter;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.tapline.project.ProjectImportTest.actions;
import static io.tapline.project.ProjectImportTest.export;
import static io.tapline.project.ProjectImportTest.importYaml;
import static io.tapline.project.ProjectImportTest.own;
import static io.tapline.project.ProjectImportTest.tree;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exported meltano.yml as Meltano 4.2.2 reads it: re-read with a YAML 1.1 resolver (SnakeYAML's
 * default, which behaves like PyYAML here) every value keeps its type, jobs' tasks are lists, plugins
 * made through the API carry a namespace, environments survive, and mappers go through
 * {@code mappings}; importing the export again changes nothing.
 */
@QuarkusTest
class ProjectRoundTripTest {

    /** Strings that a YAML 1.1 (or 1.2) resolver reads as something else when written plain. */
    static final List<String> TRICKY = List.of("2020-01-01", "2020-01-01T00:00:00Z", "2020-01-01 10:00:00",
            "0x1F", "017", "0o17", "0b101", "yes", "No", "on", "OFF", "y", "n", "True", "false", "~", "null", "",
            "12:30", "190:20:30.15", "1e3", "1.5", "1_000", "+1", "-.5", ".inf", ".NaN", "=", "<<", "123",
            "a: b", "- x", "#x", "x #y", "@daily", "*/15 * * * *", "'quoted'", "\"dq\"", "line\nbreak", " lead",
            "trail ", "%x", "!tag", "&a", "*a", "|", ">", "café");

    /**
     * The database is shared with other tests, whose imports define environments (with env vars
     * Meltano applies to every pipeline of the environment): each test uses environments of its own.
     */
    static String env(String prefix) {
        return unique(prefix);
    }

    static Object yaml11(String text) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> entry(Object doc, String type, String name) {
        List<Map<String, Object>> list = (List<Map<String, Object>>) ((Map<String, Object>) ((Map<String, Object>) doc)
                .get("plugins")).get(type);
        return list.stream().filter(p -> name.equals(p.get("name"))).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> named(Object doc, String list, String name) {
        return ((List<Map<String, Object>>) ((Map<String, Object>) doc).get(list)).stream()
                .filter(p -> name.equals(p.get("name"))).findFirst().orElseThrow();
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyValueKeepsItsTypeUnderAYaml11Reader() throws Exception {
        String tap = unique("tap-types");
        String target = unique("target-types");
        Map<String, Object> config = new LinkedHashMap<>();
        for (int i = 0; i < TRICKY.size(); i++) {
            config.put("s" + i, TRICKY.get(i));
        }
        config.put("on", "key that YAML 1.1 reads as true");
        config.put("2020-01-01", "key that YAML 1.1 reads as a date");
        config.put("port", 5432);
        config.put("big", new java.math.BigInteger("123456789012345678901234567890"));
        config.put("ratio", 0.5);
        config.put("huge", 1e16);
        config.put("tiny", 1e-5);
        config.put("flag", true);
        config.put("nothing", null);
        config.put("list", List.of("yes", 1, 2.5, false, "2021-02-03"));
        config.put("nested", Map.of("start_date", "2020-01-01T00:00:00Z", "n", 7));
        config.put("api_token", "s3cret-yes");
        json().body(Map.of("name", tap, "executable", "/bin/true", "capabilities", List.of("catalog", "state"),
                "config", config, "sensitive", List.of("api_token"))).post("/api/v1/plugins/extractors").then()
                .statusCode(201);
        json().body(Map.of("name", target, "executable", "/bin/true")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        String p = unique("types-pl");
        String environment = env("types");
        json().body(Map.of("name", p, "extractor", tap, "loader", target, "environment", environment))
                .post("/api/v1/pipelines").then().statusCode(201);

        String text = export();
        Object doc = yaml11(text);
        Map<String, Object> e = entry(doc, "extractors", tap);
        Map<String, Object> c = (Map<String, Object>) e.get("config");
        for (int i = 0; i < TRICKY.size(); i++) {
            assertEquals(TRICKY.get(i), c.get("s" + i), "s" + i + " in\n" + text);
        }
        assertEquals("key that YAML 1.1 reads as true", c.get("on"));
        assertEquals("key that YAML 1.1 reads as a date", c.get("2020-01-01"));
        assertEquals(5432, c.get("port"));
        assertEquals(new java.math.BigInteger("123456789012345678901234567890"), c.get("big"));
        assertEquals(0.5, c.get("ratio"));
        assertEquals(1e16, c.get("huge"));
        assertEquals(1e-5, c.get("tiny"));
        assertEquals(Boolean.TRUE, c.get("flag"));
        assertTrue(c.containsKey("nothing") && c.get("nothing") == null);
        assertEquals(List.of("yes", 1, 2.5, false, "2021-02-03"), c.get("list"));
        assertEquals(Map.of("start_date", "2020-01-01T00:00:00Z", "n", 7), c.get("nested"));
        // Not a Hub plugin: Meltano needs a namespace (derived from the name) to run it as a custom plugin.
        assertEquals(tap.replace('-', '_'), e.get("namespace"));
        assertEquals(target.replace('-', '_'), entry(doc, "loaders", target).get("namespace"));
        assertEquals(List.of("catalog", "state"), e.get("capabilities"));
        // A sensitive setting: declared kind password, its value only as Meltano's env var reference.
        List<Map<String, Object>> settings = (List<Map<String, Object>>) e.get("settings");
        assertEquals(Map.of("name", "api_token", "kind", "password"), settings.get(0));
        assertTrue(settings.contains(Map.of("name", "port", "kind", "integer")), settings.toString());
        assertTrue(settings.contains(Map.of("name", "s0", "kind", "string")), settings.toString());
        assertEquals("${" + tap.toUpperCase().replace('-', '_') + "_API_TOKEN}", c.get("api_token"));
        assertFalse(text.contains("s3cret-yes"), text);
        // Jobs' tasks are lists, never one string (Meltano would iterate it character by character).
        for (Map<String, Object> job : (List<Map<String, Object>>) ((Map<String, Object>) doc).get("jobs")) {
            assertInstanceOf(List.class, job.get("tasks"), job.toString());
        }
        assertEquals(List.of(tap + " " + target), named(doc, "jobs", p).get("tasks"));

        // Tapline's own reader gives the same values back, and importing the export changes nothing.
        ObjectNode names = tree("""
                environments: [{name: %s}]
                plugins:
                  extractors: [{name: %s}]
                  loaders: [{name: %s}]
                schedules: [{name: %s}]
                jobs: [{name: %s}]
                """.formatted(environment, tap, target, p, p));
        ObjectNode out = own(tree(text), names);
        JsonNode read = out.at("/plugins/extractors/0/config");
        assertEquals("0o17", read.get("s" + TRICKY.indexOf("0o17")).asText());
        assertTrue(read.get("s" + TRICKY.indexOf("123")).isTextual());
        out.put("default_environment", environment);
        JsonPath again = importYaml(YamlWriter.write(out), "?environment=" + environment + "&dryRun=true").then()
                .statusCode(200).extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());
        assertEquals(List.of("unchanged"), actions(again, "pipelines"), again.prettify());
    }

    @Test
    @SuppressWarnings("unchecked")
    void threeEnvironmentsOfOneTapAndTargetRoundTrip() throws Exception {
        String tap = unique("tap-env");
        String target = unique("target-env");
        json().body(Map.of("name", tap, "executable", "/bin/true", "capabilities", List.of("state")))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        json().body(Map.of("name", target, "executable", "/bin/true")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        List<String> pipelines = new ArrayList<>();
        List<String> envs = List.of(env("dev"), env("prod"), env("stage"));
        for (String env : envs) {
            String name = unique("env-" + env);
            Map<String, Object> body = new LinkedHashMap<>(Map.of("name", name, "extractor", tap, "loader", target,
                    "environment", env, "env", Map.of("TARGET_ENV", env)));
            if (env.startsWith("prod")) {
                body.put("schedule", Map.of("interval", "0 3 * * *", "timezone", "Europe/Berlin"));
            }
            if (env.startsWith("stage")) {
                body.put("stateIdSuffix", "blue");
            }
            json().body(body).post("/api/v1/pipelines").then().statusCode(201);
            pipelines.add(name);
        }
        List<String> stateIds = pipelines.stream().map(io.tapline.support.Connectors::stateId).toList();
        assertEquals(List.of(envs.get(0) + ":" + tap + "-to-" + target, envs.get(1) + ":" + tap + "-to-" + target,
                envs.get(2) + ":" + tap + "-to-" + target + ":blue"), stateIds);

        String text = export();
        Object doc = yaml11(text);
        String defaultEnv = (String) ((Map<String, Object>) doc).get("default_environment");
        Set<String> listed = new HashSet<>();
        ((List<Map<String, Object>>) ((Map<String, Object>) doc).get("environments")).forEach(e -> listed.add(
                (String) e.get("name")));
        assertTrue(listed.containsAll(envs), listed.toString());
        for (int i = 0; i < envs.size(); i++) {
            // `meltano --environment <env> run <job>` reproduces the pipeline; `meltano schedule run`
            // picks the environment from the schedule's env.
            Map<String, Object> job = named(doc, "jobs", pipelines.get(i));
            assertEquals(List.of(tap + " " + target), job.get("tasks"));
            if (!envs.get(i).equals(defaultEnv)) {
                Map<String, Object> s = named(doc, "schedules", pipelines.get(i));
                assertEquals(envs.get(i), ((Map<String, Object>) s.get("env")).get("MELTANO_ENVIRONMENT"), text);
            }
        }
        Map<String, Object> stage = named(doc, "schedules", pipelines.get(2));
        assertEquals("blue", ((Map<String, Object>) stage.get("env")).get("MELTANO_RUN_STATE_ID_SUFFIX"));
        assertEquals("@manual", stage.get("interval"));
        assertEquals("Europe/Berlin", named(doc, "schedules", pipelines.get(1)).get("timezone"));

        // Import the export again: the three pipelines keep their environments and state IDs.
        List<String> envNames = new ArrayList<>(envs);
        ObjectNode names = tree("""
                environments: [%s]
                plugins:
                  extractors: [{name: %s}]
                  loaders: [{name: %s}]
                schedules: [{name: %s}, {name: %s}, {name: %s}]
                jobs: [{name: %s}, {name: %s}, {name: %s}]
                """.formatted(String.join(", ", envNames.stream().map(n -> "{name: " + n + "}").toList()), tap,
                target, pipelines.get(0), pipelines.get(1), pipelines.get(2), pipelines.get(0), pipelines.get(1),
                pipelines.get(2)));
        ObjectNode out = own(tree(text), names);
        out.put("default_environment", envs.get(0));
        JsonPath again = importYaml(YamlWriter.write(out), "?dryRun=true").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());
        assertEquals(List.of("unchanged", "unchanged", "unchanged"), actions(again, "pipelines"), again.prettify());
        assertTrue(again.getList("unsupported.path").stream().noneMatch(u -> String.valueOf(u).startsWith("schedules")),
                again.prettify());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aMapperMadeThroughTheApiIsExportedAsAMappingAndComesBackToTheSamePipeline() throws Exception {
        String tap = unique("tap-map");
        String target = unique("target-map");
        String mapper = unique("hash-emails");
        String dbt = unique("dbt-map");
        json().body(Map.of("name", tap, "executable", "/bin/true", "capabilities", List.of("catalog", "state")))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        json().body(Map.of("name", target, "executable", "/bin/true")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        json().body(Map.of("name", mapper, "executable", "/bin/true", "capabilities", List.of("stream-maps"),
                "config", Map.of("stream_maps", Map.of("users", Map.of("email", "md5(email)", "__alias__", "people"))),
                "sensitive", List.of())).post("/api/v1/plugins/mappers").then().statusCode(201);
        json().body(Map.of("name", dbt, "executable", "/bin/true")).post("/api/v1/plugins/utilities")
                .then().statusCode(201);
        String p = unique("map-pl");
        String environment = env("map");
        json().body(Map.of("name", p, "extractor", tap, "mappers", List.of(mapper), "loader", target,
                "transform", Map.of("plugin", dbt, "args", List.of("run")), "environment", environment))
                .post("/api/v1/pipelines").then().statusCode(201);

        String text = export();
        Object doc = yaml11(text);
        Map<String, Object> m = entry(doc, "mappers", mapper);
        assertFalse(m.containsKey("config"), "the config lives in the mapping: " + m);
        List<Map<String, Object>> mappings = (List<Map<String, Object>>) m.get("mappings");
        assertEquals(1, mappings.size(), m.toString());
        String mappingName = (String) mappings.get(0).get("name");
        assertNotEquals(mapper, mappingName, "Meltano refuses a mapping named like its mapper plugin");
        assertEquals(Map.of("stream_maps", Map.of("users", Map.of("email", "md5(email)", "__alias__", "people"))),
                mappings.get(0).get("config"));
        List<String> tasks = (List<String>) named(doc, "jobs", p).get("tasks");
        assertEquals(List.of(tap + " " + mappingName + " " + target, dbt + ":run"), tasks);

        // Meltano's block rules: every block of a task is a plugin name or a mapping name (never a
        // mapper plugin's own name), mapping names are unique, the extract-load block is
        // extractor, mappings, loader.
        Map<String, String> typeOf = new LinkedHashMap<>();
        Set<String> mappingNames = new HashSet<>();
        ((Map<String, List<Map<String, Object>>>) ((Map<String, Object>) doc).get("plugins")).forEach((type, list) ->
                list.forEach(pl -> {
                    typeOf.put((String) pl.get("name"), type);
                    for (Map<String, Object> mp : (List<Map<String, Object>>) pl.getOrDefault("mappings", List.of())) {
                        assertTrue(mappingNames.add((String) mp.get("name")), "unique mapping " + mp.get("name"));
                        assertTrue(mp.containsKey("config") && mp.containsKey("name"), mp.toString());
                    }
                }));
        mappingNames.forEach(n -> assertFalse(typeOf.containsKey(n), "mapping " + n + " is also a plugin name"));
        for (Map<String, Object> job : (List<Map<String, Object>>) ((Map<String, Object>) doc).get("jobs")) {
            for (Object task : (List<Object>) job.get("tasks")) {
                String[] blocks = ((String) task).trim().split("\\s+");
                for (int i = 0; i < blocks.length; i++) {
                    String b = blocks[i].contains(":") ? blocks[i].substring(0, blocks[i].indexOf(':')) : blocks[i];
                    assertTrue(typeOf.containsKey(b) || mappingNames.contains(b), "unknown block " + b + " in " + job);
                    assertNotEquals("mappers", typeOf.get(b), "a mapper plugin name in a task: " + job);
                    if (mappingNames.contains(b)) {
                        assertTrue(i > 0 && i < blocks.length - 1, "a mapping between extractor and loader: " + job);
                    }
                }
            }
        }

        // Re-import: the same mapper (config and all) in the same pipeline, nothing changes.
        ObjectNode names = tree("""
                environments: [{name: %s}]
                plugins:
                  extractors: [{name: %s}]
                  loaders: [{name: %s}]
                  mappers: [{name: %s}]
                  utilities: [{name: %s}]
                schedules: [{name: %s}]
                jobs: [{name: %s}]
                """.formatted(environment, tap, target, mapper, dbt, p, p));
        ObjectNode out = own(tree(text), names);
        out.put("default_environment", environment);
        JsonPath again = importYaml(YamlWriter.write(out), "?environment=" + environment + "&dryRun=true").then()
                .statusCode(200).extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged", "unchanged", "unchanged"), actions(again, "plugins"),
                again.prettify());
        assertEquals(List.of("unchanged"), actions(again, "pipelines"), again.prettify());
        ArrayNode plugins = (ArrayNode) tree(YamlWriter.write(out)).at("/plugins/mappers");
        assertEquals(1, plugins.size(), "no second mapper is made from the mapping");
    }
}
