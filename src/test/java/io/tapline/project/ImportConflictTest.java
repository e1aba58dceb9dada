package io.tapline.project;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tapline.project.ProjectImportTest.importYaml;
import static io.tapline.support.Api.json;
import static io.tapline.support.Api.plugin;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Importing a meltano.yml over a plugin made through the API: the plan says what is lost; onConflict chooses. */
@QuarkusTest
class ImportConflictTest {

    private String tap;
    private String pipeline;

    private void apiMadePluginInUse() {
        tap = unique("tap-csv");
        json().body("""
                {"name":"%s","executable":"tap-csv","capabilities":["catalog","discover","state"],
                 "config":{"files":[{"entity":"people"}],"api_token":"s3cret","delimiter":";"},
                 "sensitive":["api_token"]}""".formatted(tap)).post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = plugin("loaders", unique("target-jsonl"), "target-jsonl");
        pipeline = unique("people");
        json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(pipeline, tap, target))
                .post("/api/v1/pipelines").then().statusCode(201);
    }

    private String document() {
        return """
                version: 1
                default_environment: dev
                plugins:
                  extractors:
                  - name: %s
                    executable: tap-csv
                    capabilities: [catalog, discover]
                    config:
                      files: [{entity: people}, {entity: orders}]
                """.formatted(tap);
    }

    /** The same plugin as meltano.yml usually has it: no capabilities, no secret. */
    private String documentWithoutSecretOrCapabilities() {
        return """
                version: 1
                default_environment: dev
                plugins:
                  extractors:
                  - name: %s
                    executable: tap-csv
                    config:
                      files: [{entity: people}]
                      delimiter: ';'
                """.formatted(tap);
    }

    @Test
    void anImportWithoutOnConflictRefusesToDropASecretOrCapabilitiesAndWritesNothing() {
        apiMadePluginInUse();
        problem(importYaml(documentWithoutSecretOrCapabilities(), "").then(), 409, "already-exists")
                .body("detail", org.hamcrest.Matchers.containsString("extractors/" + tap))
                .body("detail", org.hamcrest.Matchers.containsString("secret api_token"))
                .body("detail", org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("s3cret")))
                .body("conflicts", equalTo(List.of("extractors/" + tap)))
                .body("drops[0].name", equalTo(tap))
                .body("drops[0].type", equalTo("extractors"))
                .body("drops[0].dropped", equalTo(List.of("secret api_token", "capability catalog",
                        "capability discover", "capability state")))
                .body("plan.plugins[0].action", equalTo("update"))
                .body("plan.plugins[0].usedBy", equalTo(List.of(pipeline)));
        // A blank parameter is not given either, and a dry run answers as the import would.
        problem(importYaml(documentWithoutSecretOrCapabilities(), "?onConflict=&dryRun=true").then(), 409,
                "already-exists").body("drops[0].dropped", hasItem("secret api_token"));
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("version", equalTo(0))
                .body("capabilities", equalTo(List.of("catalog", "discover", "state")))
                .body("sensitive", equalTo(List.of("api_token")))
                .body("config.api_token", equalTo("********"));
    }

    @Test
    void anExplicitReplaceDropsTheSecretAndCapabilities() {
        apiMadePluginInUse();
        JsonPath plan = importYaml(documentWithoutSecretOrCapabilities(), "?onConflict=replace").then().statusCode(200)
                .extract().jsonPath();
        assertEquals("replace", plan.getString("onConflict"));
        assertEquals(List.of("secret api_token", "capability catalog", "capability discover", "capability state"),
                plan.getList("plugins[0].dropped"));
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", equalTo(List.of()))
                .body("sensitive", equalTo(List.of()))
                .body("config.api_token", org.hamcrest.Matchers.nullValue())
                .body("config.delimiter", equalTo(";"));
    }

    @Test
    void anImportWithoutOnConflictThatDropsOnlyAPlainSettingProceeds() {
        String name = unique("tap-plain");
        json().body("""
                {"name":"%s","executable":"tap-csv","capabilities":["catalog","discover","state"],
                 "config":{"files":[{"entity":"people"}],"delimiter":";"}}""".formatted(name))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        JsonPath plan = importYaml("""
                version: 1
                plugins:
                  extractors:
                  - name: %s
                    executable: tap-csv
                    capabilities: [catalog, discover, state, properties]
                    config:
                      files: [{entity: people}]
                """.formatted(name), "").then().statusCode(200).extract().jsonPath();
        assertEquals("replace", plan.getString("onConflict"));
        assertEquals(List.of("setting delimiter"), plan.getList("plugins[0].dropped"));
        json().get("/api/v1/plugins/extractors/" + name).then().statusCode(200)
                .body("config.delimiter", org.hamcrest.Matchers.nullValue());
    }

    @Test
    void theDryRunOfAReplaceNamesWhatIsDroppedAndThePipelinesThatUseThePlugin() {
        apiMadePluginInUse();
        JsonPath plan = importYaml(document(), "?dryRun=true&onConflict=replace").then().statusCode(200)
                .extract().jsonPath();
        assertEquals("replace", plan.getString("onConflict"));
        assertEquals("update", plan.getString("plugins[0].action"));
        assertEquals(List.of("secret api_token", "setting delimiter", "capability state"),
                plan.getList("plugins[0].dropped"));
        assertEquals(List.of(pipeline), plan.getList("plugins[0].usedBy"));
    }

    @Test
    void mergeKeepsWhatTheDocumentDoesNotName() {
        apiMadePluginInUse();
        JsonPath plan = importYaml(document(), "?onConflict=merge").then().statusCode(200).extract().jsonPath();
        assertEquals("merge", plan.getString("onConflict"));
        assertEquals(List.of(), plan.getList("plugins[0].dropped"));
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", containsInAnyOrder("catalog", "discover", "state"))
                .body("sensitive", hasItem("api_token"))
                .body("config.api_token", equalTo("********"))
                .body("config.delimiter", equalTo(";"))
                .body("config.files.size()", equalTo(2));
    }

    @Test
    void failRefusesToChangeAnExistingPluginAndWritesNothing() {
        apiMadePluginInUse();
        problem(importYaml(document(), "?onConflict=fail").then(), 409, "already-exists")
                .body("conflicts", equalTo(List.of("extractors/" + tap)));
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("capabilities", hasItem("state")).body("version", equalTo(0));
        problem(importYaml(document(), "?onConflict=overwrite").then(), 400, "validation")
                .body("errors[0].field", equalTo("onConflict"));
    }
}
