package io.tapline.project;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tapline.project.export.YamlWriter;
import io.tapline.support.Connectors;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.tapline.project.EnvironmentOverlayRoundTripTest.overlay;
import static io.tapline.project.ProjectImportTest.actions;
import static io.tapline.project.ProjectImportTest.export;
import static io.tapline.project.ProjectImportTest.importYaml;
import static io.tapline.project.ProjectImportTest.own;
import static io.tapline.project.ProjectImportTest.tree;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Environments as Meltano has them: the plugin's base, each environment's overlay stored apart
 * ({@code plugin_environment}), pipelines per environment, a run applying its own environment's
 * overlay, and the export writing every overlay back so that import, export, import is the identity.
 */
@QuarkusTest
class EnvironmentsTest {

    @Inject
    AgroalDataSource db;

    private record Names(String tap, String target, String dev, String prod, String job) {
        static Names fresh() {
            return new Names(unique("tap-envs"), unique("target-envs"), unique("dev"), unique("prod"), unique("envs-job"));
        }
    }

    private static String yaml(Names n) {
        return """
                default_environment: %1$s
                environments:
                  - name: %1$s
                    config:
                      plugins:
                        extractors: [{name: %3$s, config: {count: 2}}]
                  - name: %2$s
                    config:
                      plugins:
                        extractors: [{name: %3$s, config: {count: 4, password: prod-pw}, select: ["orders.*"]}]
                plugins:
                  extractors:
                    - name: %3$s
                      namespace: tap_envs
                      executable: %6$s
                      capabilities: [catalog, discover, state]
                      settings: [{name: password, kind: password}]
                      config: {count: 1, mode: env, password: base-pw}
                  loaders:
                    - name: %4$s
                      namespace: target_envs
                      executable: %7$s
                jobs:
                  - name: %5$s
                    tasks: ["%3$s %4$s"]
                """.formatted(n.dev(), n.prod(), n.tap(), n.target(), n.job(), Connectors.TAP, Connectors.TARGET);
    }

    @Test
    void twoEnvironmentsRoundTripAndTheProdPipelineRunsWithProdsConfig() throws Exception {
        Names n = Names.fresh();
        JsonPath plan = importYaml(yaml(n), "?environment=*").then().statusCode(200).extract().jsonPath();
        assertEquals("*", plan.getString("environment"), plan.prettify());
        String prodPipeline = n.job() + "-" + n.prod();
        assertEquals(List.of(n.job(), prodPipeline), plan.getList("pipelines.name"), plan.prettify());

        // The plugin keeps the base; each environment its own overlay, the secret masked.
        json().get("/api/v1/plugins/extractors/" + n.tap()).then().statusCode(200)
                .body("config.count", equalTo(1))
                .body("config.password", equalTo("********"))
                .body("environments." + n.dev() + ".config.count", equalTo(2))
                .body("environments." + n.prod() + ".config.count", equalTo(4))
                .body("environments." + n.prod() + ".config.password", equalTo("********"))
                .body("environments." + n.prod() + ".select", equalTo(List.of("orders.*")))
                .body("environments." + n.dev() + ".select", nullValue());
        String sealed = overlayConfig(n.tap(), n.prod());
        assertFalse(sealed.contains("prod-pw"), "the overlay's secret is sealed at rest: " + sealed);
        assertTrue(sealed.contains("enc:v1:"), sealed);

        // Pipelines per environment, with the state ID Meltano computes in each.
        json().get("/api/v1/pipelines/" + n.job()).then().statusCode(200)
                .body("environment", equalTo(n.dev())).body("stateId", equalTo(n.dev() + ":" + n.tap() + "-to-" + n.target()));
        json().get("/api/v1/pipelines/" + prodPipeline).then().statusCode(200)
                .body("environment", equalTo(n.prod()))
                .body("stateId", equalTo(n.prod() + ":" + n.tap() + "-to-" + n.target()));

        // A run of the prod pipeline sees prod's config (the secret masked in the log).
        String run = Connectors.trigger(prodPipeline, Map.of());
        Connectors.awaitEnd(run, Duration.ofSeconds(60)).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"count\": 4"), log);
        assertFalse(log.contains("prod-pw"), log);
        assertFalse(log.contains("base-pw"), log);
        String devRun = Connectors.trigger(n.job(), Map.of());
        Connectors.awaitEnd(devRun, Duration.ofSeconds(60)).then().body("status", equalTo("SUCCEEDED"));
        assertTrue(json().accept("text/plain").get("/api/v1/runs/" + devRun + "/log").asString()
                .contains("\"count\": 2"));

        // Export: the base and each environment's overlay apart; one job, no per-environment schedules.
        String text = export();
        ObjectNode out = own(tree(text), tree("""
                environments: [{name: %s}, {name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                jobs: [{name: %s}]
                """.formatted(n.dev(), n.prod(), n.tap(), n.target(), n.job())));
        assertEquals(1, out.at("/plugins/extractors/0/config/count").asInt(), text);
        assertEquals(2, overlay(out, n.dev(), n.tap()).at("/config/count").asInt(), text);
        assertEquals(4, overlay(out, n.prod(), n.tap()).at("/config/count").asInt(), text);
        assertEquals("${" + SensitiveNames.envVar(n.tap(), "password") + "}",
                overlay(out, n.prod(), n.tap()).at("/config/password").asText(), text);
        assertFalse(text.contains(prodPipeline), "the prod pipeline is the job in prod: " + text);

        // Import the export again, all environments: nothing changes, the secrets are kept.
        out.put("default_environment", n.dev());
        JsonPath again = importYaml(YamlWriter.write(out), "?environment=*").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "pipelines"), again.prettify());
        assertEquals(sealed, overlayConfig(n.tap(), n.prod()));
    }

    @Test
    void oneEnvironmentAtATimeMakesThatEnvironmentsPipelinesAndKeepsEveryOverlay() {
        Names n = Names.fresh();
        JsonPath plan = importYaml(yaml(n), "?environment=" + n.prod()).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(n.job()), plan.getList("pipelines.name"), plan.prettify());
        json().get("/api/v1/pipelines/" + n.job()).then().statusCode(200).body("environment", equalTo(n.prod()));
        json().get("/api/v1/plugins/extractors/" + n.tap()).then().statusCode(200)
                .body("config.count", equalTo(1))
                .body("environments." + n.dev() + ".config.count", equalTo(2))
                .body("environments." + n.prod() + ".config.count", equalTo(4));
    }

    @Test
    void overlaysAreReadAndWrittenThroughTheApi() {
        Names n = Names.fresh();
        importYaml(yaml(n), "").then().statusCode(200);
        String base = "/api/v1/plugins/extractors/" + n.tap() + "/environments/";
        String etag = json().get(base + n.prod()).then().statusCode(200)
                .body("config.count", equalTo(4)).body("config.password", equalTo("********"))
                .extract().header("ETag");
        // The mask keeps the stored secret; the change lands in prod only.
        json().header("If-Match", etag).body(Map.of("config", Map.of("count", 5, "password", "********")))
                .put(base + n.prod()).then().statusCode(200).body("config.count", equalTo(5))
                .body("config.password", equalTo("********"));
        json().body(Map.of("env", Map.of("REGION", "eu"))).put(base + "stage").then().statusCode(201)
                .header("Location", containsString("/environments/stage"));
        json().get("/api/v1/plugins/extractors/" + n.tap() + "/environments").then().statusCode(200)
                .body("keySet()", hasItem("stage")).body(n.dev() + ".config.count", equalTo(2));

        // Bad input: an invalid environment name, the mask with nothing stored, a missing plugin.
        json().body(Map.of("config", Map.of())).put(base + "bad%20name").then().statusCode(400)
                .contentType(containsString("problem+json"));
        json().body(Map.of("config", Map.of("password", "********"))).put(base + "qa").then().statusCode(400)
                .contentType(containsString("problem+json")).body("errors[0].field", equalTo("config.password"));
        json().get(base + "nowhere").then().statusCode(404);
        json().get("/api/v1/plugins/extractors/" + unique("tap-none") + "/environments").then().statusCode(404);
        json().delete(base + "stage").then().statusCode(204);
        json().get(base + "stage").then().statusCode(404);
    }

    @Test
    void pipelinesMadeThroughTheApiMayShareAStateIdAndSayWithWhom() {
        Names n = Names.fresh();
        importYaml(yaml(n), "").then().statusCode(200);
        String other = unique("shared-pl");
        String stateId = json().get("/api/v1/pipelines/" + n.job()).then().extract().path("stateId");
        json().body(Map.of("name", other, "extractor", n.tap(), "loader", n.target(), "environment", n.dev(),
                        "schedule", Map.of("interval", "@manual")))
                .post("/api/v1/pipelines").then().statusCode(201)
                .body("stateId", equalTo(stateId))
                .body("warnings[0]", containsString(n.job()));
        json().get("/api/v1/pipelines/" + n.job()).then().statusCode(200)
                .body("warnings[0]", containsString(other));
    }

    private String overlayConfig(String tap, String environment) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement("select e.config from"
                + " plugin_environment e join plugin p on p.id = e.plugin_id where p.type = 'extractors' and p.name = ?"
                + " and e.environment = ?")) {
            s.setString(1, tap);
            s.setString(2, environment);
            try (ResultSet r = s.executeQuery()) {
                assertTrue(r.next());
                return r.getString(1);
            }
        }
    }
}
