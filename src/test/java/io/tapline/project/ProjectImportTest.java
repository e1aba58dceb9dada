package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.tapline.project.meltano.MeltanoYaml;
import io.tapline.project.model.ProjectReaderTest;
import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code POST /api/v1/projects:import}, {@code GET /projects/assessment}, {@code GET /projects/meltano.yml}. */
@QuarkusTest
class ProjectImportTest {

    @jakarta.inject.Inject
    io.tapline.common.security.SecretCipher cipher;

    static Response importYaml(String yaml, String query) {
        return RestAssured.given().header("Authorization", io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin())).contentType("application/yaml").accept("application/json")
                .body(yaml.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .post("/api/v1/projects:import" + query);
    }

    static String export() {
        return RestAssured.given().header("Authorization", io.tapline.support.Tokens.bearer(io.tapline.support.Tokens.admin())).accept("application/yaml").get("/api/v1/projects/meltano.yml").then()
                .statusCode(200).contentType(containsString("yaml")).extract().asString();
    }

    static ObjectNode tree(String yaml) {
        return MeltanoYaml.parse(yaml, ProjectReaderTest.LIMITS).root();
    }

    /**
     * The parts of an export that come from {@code doc}: the database is shared with other tests,
     * so the export also holds their plugins and pipelines. Keeps the top-level keys, and the
     * environments, plugins, schedules and jobs whose names {@code doc} has.
     */
    static ObjectNode own(ObjectNode export, ObjectNode doc) {
        ObjectNode out = export.deepCopy();
        for (String list : List.of("environments", "schedules", "jobs")) {
            filter(out, list, names(doc.get(list)));
        }
        ObjectNode plugins = (ObjectNode) out.get("plugins");
        List<String> types = new java.util.ArrayList<>();
        plugins.fieldNames().forEachRemaining(types::add);
        for (String type : types) {
            if (!doc.path("plugins").has(type)) {
                plugins.remove(type);
            } else {
                filter(plugins, type, names(doc.path("plugins").get(type)));
            }
        }
        return out;
    }

    private static List<String> names(JsonNode list) {
        List<String> names = new java.util.ArrayList<>();
        if (list != null) {
            list.forEach(n -> names.add(n.path("name").asText()));
        }
        return names;
    }

    private static void filter(ObjectNode parent, String key, List<String> names) {
        if (!(parent.get(key) instanceof ArrayNode a)) {
            return;
        }
        ArrayNode kept = a.arrayNode();
        a.forEach(n -> {
            if (names.contains(n.path("name").asText())) {
                kept.add(n);
            }
        });
        if (kept.isEmpty()) {
            parent.remove(key);
        } else {
            parent.set(key, kept);
        }
    }

    static String yaml(ObjectNode tree) throws Exception {
        return new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().writeValueAsString(tree);
    }

    static List<String> actions(JsonPath plan, String list) {
        return plan.getList(list + ".action");
    }

    @Test
    void theSharedFixtureImportsFieldByFieldAndRoundTripsThroughTheExport() throws Exception {
        String yaml = ProjectReaderTest.resource("meltano-project.meltano.yml");
        JsonPath plan = importYaml(yaml, "").then().statusCode(200).extract().jsonPath();
        assertEquals("dev", plan.getString("environment"));
        assertEquals(8, plan.getList("plugins").size());
        assertEquals(List.of(), plan.getList("pipelines"), "the fixture has no schedules or jobs");
        assertEquals(List.of("project_id", "send_anonymous_usage_stats", "state_backend"),
                plan.getList("unsupported.path"));

        json().get("/api/v1/plugins/extractors/tap-spreadsheets-anywhere").then().statusCode(200)
                .body("namespace", equalTo("tap_spreadsheets_anywhere"))
                .body("executable", equalTo("/usr/local/bin/tap-spreadsheets-anywhere"))
                .body("capabilities", equalTo(List.of("catalog", "discover", "state")))
                .body("config.tables[0].path", equalTo("file:///srv/project/data"))
                .body("config.tables[0].name", equalTo("orders"))
                .body("config.tables[0].pattern", equalTo("orders_.*\\.csv"))
                .body("config.tables[0].start_date", equalTo("2020-01-01T00:00:00Z"))
                .body("config.tables[0].key_properties", equalTo(List.of("id")))
                .body("config.tables[0].format", equalTo("csv"))
                .body("extras.settings[0].name", equalTo("tables"))
                .body("extras.settings[0].kind", equalTo("array"))
                .body("sensitive", equalTo(List.of()))
                .body("select", equalTo(List.of()));
        json().get("/api/v1/plugins/extractors/tap-sqlite").then().statusCode(200)
                .body("namespace", equalTo("tap_sqlite"))
                .body("executable", equalTo("/usr/local/bin/tap-sqlite"))
                .body("capabilities", equalTo(List.of("catalog", "discover", "state", "about")))
                .body("config.path_to_db", equalTo("/srv/project/src.db"))
                .body("select", equalTo(List.of("main-orders.*")))
                .body("metadata.main-orders.replication-method", equalTo("INCREMENTAL"))
                .body("metadata.main-orders.replication-key", equalTo("updated_at"));
        json().get("/api/v1/plugins/extractors/tap-ssa-jsonl").then().statusCode(200)
                .body("inheritFrom", equalTo("tap-spreadsheets-anywhere"))
                .body("namespace", equalTo("tap_spreadsheets_anywhere"))
                .body("executable", equalTo("/usr/local/bin/tap-spreadsheets-anywhere"))
                .body("capabilities", equalTo(List.of("catalog", "discover", "state")))
                .body("config.tables.size()", equalTo(1))
                .body("config.tables[0].name", equalTo("events"))
                .body("config.tables[0].format", equalTo("jsonl"))
                .body("config.tables[0].max_sampled_files", equalTo(1));
        json().get("/api/v1/plugins/extractors/tap-csv").then().statusCode(200)
                .body("executable", equalTo("/usr/local/bin/tap-csv"))
                .body("capabilities", equalTo(List.of("catalog", "discover", "about")))
                .body("config.files[0].entity", equalTo("big"))
                .body("config.files[0].keys", equalTo(List.of("id")));
        json().get("/api/v1/plugins/loaders/target-jsonl").then().statusCode(200)
                .body("namespace", equalTo("target_jsonl"))
                .body("executable", equalTo("/usr/local/bin/target-jsonl-classic"))
                .body("config.destination_path", equalTo("/srv/project/out-jsonl"))
                .body("config.do_timestamp_file", equalTo(false))
                .body("extras.settings[1].kind", equalTo("boolean"));
        json().get("/api/v1/plugins/loaders/target-csv").then().statusCode(200)
                .body("executable", equalTo("/usr/local/bin/target-csv"))
                .body("config.output_path", equalTo("/srv/project/out-csv"));
        json().get("/api/v1/plugins/loaders/target-csv-bench").then().statusCode(200)
                .body("inheritFrom", equalTo("target-csv"))
                .body("namespace", equalTo("target_csv"))
                .body("executable", equalTo("/usr/local/bin/target-csv"))
                .body("config.output_path", equalTo("/srv/bench/mel-out"));
        json().get("/api/v1/plugins/loaders/target-sqlite").then().statusCode(200)
                .body("config.path_to_db", equalTo("/srv/project/dst.db"));

        // Export: the whole document comes back as it was written, without the deprecated `version`.
        ObjectNode exported = own(tree(export()), tree(yaml));
        ObjectNode written = tree(yaml);
        written.remove("version");
        assertEquals(written, exported, yaml(exported));
        // Import the export again: nothing changes; the original again: nothing changes either.
        JsonPath again = importYaml(yaml(exported), "").then().statusCode(200).extract().jsonPath();
        assertTrue(actions(again, "plugins").stream().allMatch("unchanged"::equals), again.prettify());
        JsonPath original = importYaml(yaml, "?dryRun=true").then().statusCode(200).extract().jsonPath();
        assertTrue(actions(original, "plugins").stream().allMatch("unchanged"::equals), original.prettify());
    }

    @Test
    void aFullProjectMakesPipelinesIsAssessedAndRoundTrips() throws Exception {
        String yaml = ProjectReaderTest.resource("full-project.meltano.yml");
        JsonPath plan = importYaml(yaml, "").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("fp-orders-daily", "fp-orders-hourly", "fp-manual-job"), plan.getList("pipelines.name"));
        assertEquals(List.of("create", "create", "create"), actions(plan, "pipelines"));
        assertTrue(plan.getList("unsupported.path").containsAll(List.of("project_id", "plugins.orchestrators",
                "schedules[1].start_date", "plugins.extractors[0].schema")));

        json().get("/api/v1/pipelines/fp-orders-daily").then().statusCode(200)
                .body("extractor", equalTo("fp-tap-pg")).body("loader", equalTo("fp-target-jsonl"))
                .body("stateId", equalTo("fp-orders-daily")).body("stateIdDerived", equalTo(false))
                .body("environment", equalTo("dev"))
                .body("schedule.interval", equalTo("@daily")).body("schedule.timezone", equalTo("Europe/Berlin"))
                .body("env", equalTo(Map.of("LOG_LEVEL", "debug"))).body("executor", equalTo("singer"));
        json().get("/api/v1/pipelines/fp-orders-hourly").then().statusCode(200)
                .body("extractor", equalTo("fp-tap-pg-eu")).body("mappers", equalTo(List.of("fp-hide-secrets")))
                .body("loader", equalTo("fp-target-jsonl"))
                .body("transform.plugin", equalTo("fp-dbt"))
                .body("transform.args", equalTo(List.of("build", "--select", "orders")))
                .body("stateId", equalTo("dev:fp-tap-pg-eu-to-fp-target-jsonl")).body("stateIdDerived", equalTo(true))
                .body("schedule.interval", equalTo("0 * * * *")).body("schedule.timezone", equalTo("UTC"))
                .body("env", equalTo(Map.of("LOG_LEVEL", "debug", "BATCH", "100")))
                .body("meltanoJob", equalTo("fp-orders-job"));
        json().get("/api/v1/pipelines/fp-manual-job").then().statusCode(200)
                .body("stateId", equalTo("dev:fp-tap-pg-to-fp-target-jsonl"))
                .body("schedule.interval", equalTo("@manual")).body("meltanoJob", equalTo("fp-manual-job"));
        String secret = json().get("/api/v1/plugins/extractors/fp-tap-pg").then().statusCode(200)
                .body("config.host", equalTo("localhost"))
                .body("environments.dev.config.host", equalTo("dev-db.internal"))
                .body("config.password", equalTo("********"))
                .body("sensitive", equalTo(List.of("password", "api_token")))
                .body("variant", equalTo("meltanolabs")).body("pipUrl", equalTo("meltanolabs-tap-postgres"))
                .extract().asString();
        assertFalse(secret.contains("literal-token-value"));
        json().get("/api/v1/plugins/mappers/fp-hide-secrets").then().statusCode(200)
                .body("config.stream_maps.public-orders.internal_note", equalTo("__NULL__"))
                .body("inheritFrom", equalTo("fp-mapper"));

        // Assessment: three environments with prod = mature; findings on what was imported.
        Response assessment = json().get("/api/v1/projects/assessment");
        assessment.then().statusCode(200)
                .body("level", equalTo("mature"))
                .body("environments", equalTo(List.of("dev", "staging", "prod")))
                .body("environment", equalTo("dev"));
        List<Map<String, String>> findings = assessment.jsonPath().getList("findings");
        assertTrue(has(findings, "incremental-without-state", "extractors/fp-tap-pg"), findings.toString());
        assertTrue(has(findings, "schedule-without-timezone", "pipelines/fp-orders-hourly"), findings.toString());
        assertTrue(has(findings, "sensitive-not-marked", "extractors/fp-tap-pg"), findings.toString());
        assertTrue(has(findings, "secret-value-in-config", "extractors/fp-tap-pg"), findings.toString());
        assertFalse(has(findings, "schedule-without-timezone", "pipelines/fp-orders-daily"));

        // Export: secrets only as references; schedules, jobs and plugins as Meltano reads them.
        String whole = export();
        assertFalse(whole.contains("literal-token-value"), whole);
        ObjectNode in = tree(yaml);
        ObjectNode out = own(tree(whole), in);
        String exported = yaml(out);
        assertEquals("${FP_TAP_PG_API_TOKEN}", out.at("/plugins/extractors/0/config/api_token").asText());
        // Jobs come back as written, except that a single-string task list is written as a list
        // (Meltano iterates a string character by character).
        ArrayNode jobs = (ArrayNode) in.get("jobs").deepCopy();
        jobs.forEach(j -> {
            if (j.get("tasks").isTextual()) {
                String task = j.get("tasks").asText();
                ((ObjectNode) j).putArray("tasks").add(task);
            }
        });
        assertEquals(jobs, out.get("jobs"));
        ArrayNode schedules = (ArrayNode) in.get("schedules").deepCopy();
        ((ObjectNode) schedules.get(1)).remove("start_date");
        assertEquals(schedules, out.get("schedules"));
        for (String type : List.of("loaders", "mappers", "utilities", "orchestrators")) {
            assertEquals(in.at("/plugins/" + type), out.at("/plugins/" + type), type);
        }
        assertEquals(in.at("/plugins/extractors/1"), out.at("/plugins/extractors/1"), "the inheriting plugin");
        assertEquals(in.get("environments").get(1), out.get("environments").get(1), "staging keeps its overlays");
        assertEquals(in.get("project_id"), out.get("project_id"));

        // Import the export: nothing changes (the literal secret is kept, not replaced by its reference).
        JsonPath again = importYaml(exported, "").then().statusCode(200).extract().jsonPath();
        assertTrue(actions(again, "plugins").stream().allMatch("unchanged"::equals), again.prettify());
        assertTrue(actions(again, "pipelines").stream().allMatch("unchanged"::equals), again.prettify());
        String stored = sql("select config::json->>'api_token' from plugin where name = 'fp-tap-pg'").replace("\"", "");
        assertEquals("literal-token-value", io.tapline.common.security.SecretCipher.isSealed(stored)
                ? cipher.open(stored).replace("\"", "") : stored, "the stored secret (encrypted at rest in the tests) is kept");
    }

    private static boolean has(List<Map<String, String>> findings, String code, String subject) {
        return findings.stream().anyMatch(f -> code.equals(f.get("code")) && subject.equals(f.get("subject")));
    }

    @Test
    void aDryRunReturnsThePlanAndWritesNothing() throws Exception {
        String yaml = """
                version: 1
                environments: [{name: dry}]
                default_environment: dry
                plugins:
                  extractors:
                  - name: dry-tap
                    executable: /bin/true
                    unknown_key: 1
                  loaders:
                  - name: dry-target
                    executable: /bin/true
                schedules:
                - name: dry-run-schedule
                  interval: '@hourly'
                  extractor: dry-tap
                  loader: dry-target
                """;
        long importsBefore = Long.parseLong(sql("select count(*) from project_import"));
        JsonPath plan = importYaml(yaml, "?dryRun=true").then().statusCode(200).extract().jsonPath();
        assertEquals(true, plan.getBoolean("dryRun"));
        assertEquals(List.of("create", "create"), actions(plan, "plugins"));
        assertEquals(List.of("create"), actions(plan, "pipelines"));
        assertEquals(3, plan.getInt("summary.create"));
        assertEquals(List.of("plugins.extractors[0].unknown_key"), plan.getList("unsupported.path"));
        problem(json().get("/api/v1/plugins/extractors/dry-tap").then(), 404, "not-found");
        problem(json().get("/api/v1/pipelines/dry-run-schedule").then(), 404, "not-found");
        assertEquals(importsBefore, Long.parseLong(sql("select count(*) from project_import")));
        assertEquals("0", sql("select count(*) from plugin where name like 'dry-%'"));

        // The JSON form, on /projects/import, then for real; then an update plan names the fields.
        json().body(Map.of("yaml", yaml, "dryRun", true)).post("/api/v1/projects/import").then().statusCode(200)
                .body("dryRun", equalTo(true));
        json().urlEncodingEnabled(false).body(Map.of("yaml", yaml)).post("/api/v1/projects%3Aimport").then().statusCode(200)
                .body("dryRun", equalTo(false));
        json().get("/api/v1/pipelines/dry-run-schedule").then().statusCode(200).body("environment", equalTo("dry"));
        JsonPath update = importYaml(yaml.replace("'@hourly'", "'@daily'").replace("/bin/true\n    unknown",
                "/bin/false\n    unknown"), "?dryRun=true").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("update", "unchanged"), actions(update, "plugins"));
        assertEquals(List.of("executable"), update.getList("plugins[0].changes"));
        assertEquals(List.of("schedule.interval"), update.getList("pipelines[0].changes"));
        json().get("/api/v1/pipelines/dry-run-schedule").then().body("schedule.interval", equalTo("@hourly"));
    }

    @Test
    void badDocumentsAreCleanProblems() {
        problem(importYaml("plugins: [unclosed\n  - x: :", "").then(), 400, "malformed-body")
                .body("detail", containsString("line"));
        StringBuilder bomb = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        char prev = 'a';
        for (char c = 'b'; c <= 'i'; c++) {
            bomb.append(c).append(": &").append(c).append(" [*").append(prev).append(",*").append(prev).append(",*")
                    .append(prev).append(",*").append(prev).append(",*").append(prev).append(",*").append(prev)
                    .append(",*").append(prev).append(",*").append(prev).append(",*").append(prev).append("]\n");
            prev = c;
        }
        problem(importYaml(bomb.toString(), "").then(), 400, "malformed-body").body("detail", containsString("aliases"));
        problem(importYaml("""
                plugins:
                  extractors:
                  - name: err-a
                  - name: err-b
                  - name: err-c
                    select: not-a-list
                """, "").then(), 400, "validation")
                .body("errors.field", hasItem("plugins.extractors[2].select"))
                .body("detail", containsString("plugins.extractors[2].select"));
        problem(importYaml("plugins:\n  extractors:\n  - name: err-rel\n    executable: ./tap.py\n", "").then(), 400,
                "validation").body("errors[0].field", equalTo("plugins.extractors[0].executable"))
                .body("errors[0].message", containsString("tapline.projects.base-dir"));
        problem(importYaml("environments: [{name: dev}]\n", "?environment=prod").then(), 400, "validation")
                .body("errors[0].field", equalTo("environment"));
        problem(importYaml("version: 1\n", "?dryRun=maybe").then(), 400, "validation");
        // an empty or bare dryRun is refused: read as false it would import for real
        problem(importYaml("version: 1\n", "?dryRun=").then(), 400, "validation");
        problem(importYaml("version: 1\n", "?dryRun").then(), 400, "validation");
        problem(importYaml("version: 1\n", "?dryRun=true&dryRun=false").then(), 400, "validation")
                .body("errors[0].message", containsString("given 2 times"));
        problem(importYaml("", "").then(), 400, "malformed-body");
        // A service-side check lands on the YAML path of the item too.
        problem(importYaml("""
                plugins:
                  extractors:
                  - name: err-caps
                    executable: /bin/true
                    capabilities: [Catalog]
                """, "?dryRun=true").then(), 400, "validation")
                .body("errors.field", hasItems("plugins.extractors[0].capabilities[0]"));
        problem(json().get("/api/v1/plugins/extractors/err-caps").then(), 404, "not-found");
    }

    @Test
    void pipelinesMadeThroughTheApiComeBackUnchanged() throws Exception {
        String tap = io.tapline.support.Api.unique("tap-api");
        String target = io.tapline.support.Api.unique("target-api");
        json().body(Map.of("name", tap, "executable", "/bin/true", "capabilities", List.of("catalog", "state"),
                        "config", Map.of("password", "hunter2", "port", 5432), "sensitive", List.of("password")))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        json().body(Map.of("name", target, "executable", "/bin/true")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        String scheduled = io.tapline.support.Api.unique("api-sched");
        json().body(Map.of("name", scheduled, "extractor", tap, "loader", target, "env", Map.of("A", "1"),
                        "schedule", Map.of("interval", "*/15 * * * *", "timezone", "Europe/Berlin")))
                .post("/api/v1/pipelines").then().statusCode(201);
        String target2 = io.tapline.support.Api.unique("target-api");
        json().body(Map.of("name", target2, "executable", "/bin/true")).post("/api/v1/plugins/loaders")
                .then().statusCode(201);
        String manual = io.tapline.support.Api.unique("api-manual");
        json().body(Map.of("name", manual, "extractor", tap, "loader", target2)).post("/api/v1/pipelines")
                .then().statusCode(201);
        ObjectNode names = tree("""
                environments: [{name: dev}]
                plugins:
                  extractors: [{name: %s}]
                  loaders: [{name: %s}, {name: %s}]
                schedules: [{name: %s}, {name: %s}]
                jobs: [{name: %s}, {name: %s}]
                """.formatted(tap, target, target2, scheduled, manual, scheduled, manual));
        ObjectNode out = own(tree(export()), names);
        assertEquals("*/15 * * * *", out.at("/schedules/0/interval").asText());
        assertEquals("${" + tap.toUpperCase().replace('-', '_') + "_PASSWORD}",
                out.at("/plugins/extractors/0/config/password").asText());
        JsonPath again = importYaml(yaml(out), "?environment=dev&dryRun=true").then().statusCode(200).extract().jsonPath();
        assertTrue(actions(again, "plugins").stream().allMatch("unchanged"::equals), again.prettify());
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "pipelines"), again.prettify());
    }

    static String sql(String query) throws Exception {
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
