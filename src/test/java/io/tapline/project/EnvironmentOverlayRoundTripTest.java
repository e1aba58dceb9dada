package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
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
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Environments as Meltano has them: the base config plus each environment's overlay. An import
 * stores the plugin's base and every environment's overlay apart; the export writes them apart again
 * (it once wrote the imported environment's values as the base and an empty environment, so a round
 * trip gave prod dev's {@code count: 2} instead of 4; later the plugin held the imported
 * environment's overlay merged in, so a pipeline of another environment ran with it).
 */
@QuarkusTest
class EnvironmentOverlayRoundTripTest {

    /** The extractor overlay of {@code plugin} in {@code environment} of an exported document. */
    static JsonNode overlay(ObjectNode doc, String environment, String plugin) {
        for (JsonNode e : doc.path("environments")) {
            if (environment.equals(e.path("name").asText())) {
                for (JsonNode o : e.path("config").path("plugins").path("extractors")) {
                    if (plugin.equals(o.path("name").asText())) {
                        return o;
                    }
                }
            }
        }
        throw new AssertionError("no overlay of " + plugin + " in " + environment + ": " + doc);
    }

    @Test
    void aHubPluginWithAnOverlayKeepsTheCapabilitiesTheProjectGave() {
        // The export rewrites a plugin with an overlay from a copy; the copy once lacked the
        // capabilities' source, so the project's own list of a Hub plugin was taken as learned and dropped.
        String tap = unique("tap-hubovl");
        String target = unique("target-hubovl");
        String dev = unique("dev");
        String job = unique("hubovl-job");
        String yaml = """
                default_environment: %1$s
                environments:
                  - name: %1$s
                    config:
                      plugins:
                        extractors: [{name: %2$s, config: {count: 2}}]
                plugins:
                  extractors:
                    - name: %2$s
                      executable: /bin/true
                      capabilities: [catalog, discover, state]
                      config: {count: 1}
                  loaders:
                    - name: %3$s
                      namespace: target_hubovl
                      executable: /bin/true
                jobs:
                  - name: %4$s
                    tasks: ["%2$s %3$s"]
                """.formatted(dev, tap, target, job);
        importYaml(yaml, "?environment=" + dev).then().statusCode(200);
        String text = export();
        ObjectNode out = own(tree(text), tree("""
                environments: [{name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                jobs: [{name: %s}]
                """.formatted(dev, tap, target, job)));
        JsonNode base = out.at("/plugins/extractors/0");
        assertEquals(tap, base.path("name").asText(), text);
        assertEquals("[\"catalog\",\"discover\",\"state\"]", base.path("capabilities").toString(), text);
        assertEquals(2, overlay(out, dev, tap).at("/config/count").asInt(), text);
    }

    @Test
    void eachEnvironmentKeepsItsOwnConfigThroughExportAndReimport() {
        String tap = unique("tap-ovl");
        String target = unique("target-ovl");
        String dev = unique("dev");
        String prod = unique("prod");
        String job = unique("ovl-job");
        String names = """
                environments: [{name: %s}, {name: %s}]
                plugins: {extractors: [{name: %s}], loaders: [{name: %s}]}
                jobs: [{name: %s}]
                """.formatted(dev, prod, tap, target, job);
        String yaml = """
                default_environment: %1$s
                environments:
                  - name: %1$s
                    config:
                      plugins:
                        extractors: [{name: %3$s, config: {count: 2, region: eu}}]
                  - name: %2$s
                    config:
                      plugins:
                        extractors: [{name: %3$s, config: {count: 4}, select: ["orders.*"]}]
                plugins:
                  extractors:
                    - name: %3$s
                      namespace: tap_ovl
                      executable: /bin/true
                      config: {count: 1, keep: a}
                      select: ["*.*"]
                  loaders:
                    - name: %4$s
                      namespace: target_ovl
                      executable: /bin/true
                jobs:
                  - name: %5$s
                    tasks: ["%3$s %4$s"]
                """.formatted(dev, prod, tap, target, job);
        importYaml(yaml, "?environment=" + dev).then().statusCode(200);
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("config", equalTo(Map.of("count", 1, "keep", "a")))
                .body("environments." + dev + ".config", equalTo(Map.of("count", 2, "region", "eu")))
                .body("environments." + prod + ".config", equalTo(Map.of("count", 4)));

        String text = export();
        ObjectNode out = own(tree(text), tree(names));
        JsonNode base = out.at("/plugins/extractors/0");
        assertEquals(tap, base.path("name").asText(), text);
        assertEquals(1, base.at("/config/count").asInt(), text);
        assertEquals("a", base.at("/config/keep").asText(), text);
        assertEquals(false, base.path("config").has("region"), "region is dev's only: " + text);
        assertEquals(List.of("*.*"), List.of(base.at("/select/0").asText()), text);
        assertEquals(2, overlay(out, dev, tap).at("/config/count").asInt(), text);
        assertEquals("eu", overlay(out, dev, tap).at("/config/region").asText(), text);
        assertEquals(4, overlay(out, prod, tap).at("/config/count").asInt(), text);
        assertEquals("orders.*", overlay(out, prod, tap).at("/select/0").asText(), text);

        // Re-importing the export for dev changes nothing; for prod it gives prod's values.
        out.put("default_environment", dev);
        String exported = YamlWriter.write(out);
        JsonPath again = importYaml(exported, "?environment=" + dev + "&dryRun=true").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of("unchanged", "unchanged"), actions(again, "plugins"), again.prettify());
        assertEquals(List.of("unchanged"), actions(again, "pipelines"), again.prettify());
        importYaml(exported, "?environment=" + prod).then().statusCode(200);
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("config", equalTo(Map.of("count", 1, "keep", "a")))
                .body("select", equalTo(List.of("*.*")))
                .body("environments." + prod + ".config", equalTo(Map.of("count", 4)))
                .body("environments." + prod + ".select", equalTo(List.of("orders.*")));

        // A change made in Tapline to one environment's overlay lands in that environment's block only.
        json().body(Map.of("config", Map.of("count", 5), "select", List.of("orders.*")))
                .put("/api/v1/plugins/extractors/" + tap + "/environments/" + prod).then().statusCode(200);
        ObjectNode after = own(tree(export()), tree(names));
        assertEquals(1, after.at("/plugins/extractors/0/config/count").asInt(), after.toString());
        assertEquals(5, overlay(after, prod, tap).at("/config/count").asInt(), after.toString());
        assertEquals(2, overlay(after, dev, tap).at("/config/count").asInt(), after.toString());
        assertEquals("*.*", after.at("/plugins/extractors/0/select/0").asText(), after.toString());
    }
}
