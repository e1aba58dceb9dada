package io.tapline.plugin;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusTest
class PluginResourceTest {

    @Test
    void createReturns201WithLocationAndEtagAndMasksSensitiveValues() {
        String name = unique("tap-csv");
        json().body("""
                {"name":"%s","executable":"tap-csv","capabilities":["catalog","state"],
                 "config":{"files":[{"entity":"people"}],"auth":{"password":"hunter2"},"token":"tok-secret-9f2e"},
                 "sensitive":["auth.password","token","API_KEY"],"env":{"API_KEY":"k1","PLAIN":"p"}}
                """.formatted(name))
                .post("/api/v1/plugins/extractors")
                .then().statusCode(201)
                .header("Location", endsWith("/api/v1/plugins/extractors/" + name))
                .header("ETag", "\"0\"")
                .body("config.auth.password", equalTo("********"))
                .body("config.token", equalTo("********"))
                .body("config.files[0].entity", equalTo("people"))
                .body("env.API_KEY", equalTo("********"))
                .body("env.PLAIN", equalTo("p"));

        String body = json().get("/api/v1/plugins/extractors/" + name).then().statusCode(200)
                .header("ETag", "\"0\"").extract().asString();
        assertFalse(body.contains("hunter2"));
        assertFalse(body.contains("tok-secret-9f2e"));
        assertFalse(body.contains("k1"));
    }

    @Test
    void putWithMaskKeepsStoredSecretAndBumpsVersion() {
        String name = unique("tap-secret");
        json().body("{\"name\":\"%s\",\"executable\":\"tap-x\",\"config\":{\"password\":\"s3cret\",\"a\":1},\"sensitive\":[\"password\"]}"
                .formatted(name)).post("/api/v1/plugins/extractors").then().statusCode(201);
        // PUT back what was read (mask included), changing another value
        json().header("If-Match", "\"0\"")
                .body("{\"executable\":\"tap-x\",\"config\":{\"password\":\"********\",\"a\":2},\"sensitive\":[\"password\"]}")
                .put("/api/v1/plugins/extractors/" + name)
                .then().statusCode(200).header("ETag", "\"1\"").body("config.a", equalTo(2));
        // the stored secret survived: unmasking by removing it from sensitive shows it
        json().body("{\"executable\":\"tap-x\",\"config\":{\"password\":\"********\",\"a\":2},\"sensitive\":[]}")
                .put("/api/v1/plugins/extractors/" + name)
                .then().statusCode(200).body("config.password", equalTo("********"));
        // a mask for a value that was never stored is refused
        problem(json().body("{\"executable\":\"tap-x\",\"config\":{\"other\":\"********\"},\"sensitive\":[\"other\"]}")
                .put("/api/v1/plugins/extractors/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("config.other"));
    }

    @Test
    void putCreatesWhenAbsentAndRejectsRenames() {
        String name = unique("target-jsonl");
        json().body("{\"executable\":\"/usr/local/bin/target-jsonl\"}")
                .put("/api/v1/plugins/loaders/" + name)
                .then().statusCode(201).header("Location", endsWith("/api/v1/plugins/loaders/" + name));
        problem(json().body("{\"name\":\"other\",\"executable\":\"x\"}")
                .put("/api/v1/plugins/loaders/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("name"));
    }

    @Test
    void invalidNamesAreRejected() {
        for (String bad : List.of("Tap-Upper", "tap x", "tap:x", "tap/x", "..", "-tap", "_tap", "", "a".repeat(101),
                "tap\u0000x", "täp")) {
            problem(json().body(java.util.Map.of("name", bad, "executable", "x"))
                    .post("/api/v1/plugins/extractors").then(), 400, "validation")
                    .body("errors[0].field", equalTo("name"));
        }
        // 100 characters is the limit and is fine
        json().body("{\"name\":\"%s\",\"executable\":\"x\"}".formatted("a".repeat(100)))
                .post("/api/v1/plugins/utilities").then().statusCode(201);
        problem(json().body("{\"executable\":\"x\"}").put("/api/v1/plugins/extractors/Bad%20Name").then(), 400, "validation");
    }

    @Test
    void meltanoSpellingsAreAcceptedAndAPipUrlGivesTheExecutableItsDefault() {
        String name = unique("tap-pip");
        json().body("{\"name\":\"%s\",\"pip_url\":\"tap-pip-example==1.0\"}".formatted(name))
                .post("/api/v1/plugins/extractors")
                .then().statusCode(201)
                .body("pipUrl", equalTo("tap-pip-example==1.0"))
                .body("executable", equalTo(name));
        String child = unique("tap-child");
        json().body("{\"name\":\"%s\",\"inherit_from\":\"%s\"}".formatted(child, name))
                .post("/api/v1/plugins/extractors")
                .then().statusCode(201)
                .body("inheritFrom", equalTo(name))
                .body("executable", equalTo(name));
        // a close miss is named
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"pip-url\":\"y\"}".formatted(unique("tap-x")))
                .post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("detail", equalTo("Unknown field 'pip-url'. Did you mean 'pipUrl'?"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"capabilites\":[]}".formatted(unique("tap-x")))
                .post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("detail", equalTo("Unknown field 'capabilites'. Did you mean 'capabilities'?"));
    }

    @Test
    void invalidFieldsAreRejectedWithTheirPaths() {
        String name = unique("tap-bad");
        problem(json().body("{\"name\":\"%s\"}".formatted(name)).post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("executable"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"rm -rf /\"}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("executable"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"./tap.py\"}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "validation");
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"capabilities\":[\"State\"]}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("capabilities[0]"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"env\":{\"1BAD\":\"v\"}}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("env.1BAD"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"catalog\":{\"nostreams\":1}}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "validation")
                .body("errors[0].field", equalTo("catalog.streams"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"config\":[1]}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("errors[0].field", equalTo("config"));
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\",\"unknownField\":1}".formatted(name))
                .post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("errors[0].field", equalTo("unknownField"));
        problem(json().body("{\"name\":").post("/api/v1/plugins/extractors").then(), 400, "malformed-body");
        problem(json().body("[]").post("/api/v1/plugins/extractors").then(), 400, "malformed-body");
        problem(json().post("/api/v1/plugins/extractors").then(), 400, "malformed-body");
        problem(io.restassured.RestAssured.given().header("Authorization", io.tapline.support.Tokens.bearer(
                io.tapline.support.Tokens.admin())).contentType("text/plain").body("x")
                .post("/api/v1/plugins/extractors").then(), 415, "unsupported-media-type");
        // nothing was stored by any of these
        json().get("/api/v1/plugins/extractors/" + name).then().statusCode(404);
    }

    @Test
    void unknownTypeAndMissingPluginAre404() {
        problem(json().get("/api/v1/plugins/taps/x").then(), 404, "not-found");
        problem(json().get("/api/v1/plugins/extractors/does-not-exist").then(), 404, "not-found");
        problem(json().delete("/api/v1/plugins/extractors/does-not-exist").then(), 404, "not-found");
        problem(json().get("/api/v1/no-such-path").then(), 404, "not-found");
        problem(json().delete("/api/v1/plugins").then(), 405, "method-not-allowed");
    }

    @Test
    void duplicateCreateIs409() {
        String name = io.tapline.support.Api.plugin("loaders", unique("target-dup"), "target-x");
        problem(json().body("{\"name\":\"%s\",\"executable\":\"x\"}".formatted(name))
                .post("/api/v1/plugins/loaders").then(), 409, "already-exists");
        // the same name under another type is a different plugin
        json().body("{\"name\":\"%s\",\"executable\":\"x\"}".formatted(name))
                .post("/api/v1/plugins/utilities").then().statusCode(201);
    }

    @Test
    void ifMatchIsHonouredOnUpdateAndDelete() {
        String name = io.tapline.support.Api.plugin("mappers", unique("map"), "meltano-map-transformer");
        problem(json().header("If-Match", "\"7\"").body("{\"executable\":\"y\"}")
                .put("/api/v1/plugins/mappers/" + name).then(), 412, "precondition-failed");
        problem(json().header("If-Match", "W/\"0\"").body("{\"executable\":\"y\"}")
                .put("/api/v1/plugins/mappers/" + name).then(), 412, "precondition-failed");
        json().header("If-Match", "\"5\", \"0\"").body("{\"executable\":\"y\"}")
                .put("/api/v1/plugins/mappers/" + name).then().statusCode(200).header("ETag", "\"1\"")
                .body("executable", equalTo("y"));
        problem(json().header("If-Match", "\"0\"").delete("/api/v1/plugins/mappers/" + name).then(), 412,
                "precondition-failed");
        json().get("/api/v1/plugins/mappers/" + name).then().statusCode(200);
        json().header("If-Match", "\"1\"").delete("/api/v1/plugins/mappers/" + name).then().statusCode(204);
        json().get("/api/v1/plugins/mappers/" + name).then().statusCode(404);
        problem(json().header("If-Match", "\"1\"").body("{\"executable\":\"y\"}")
                .put("/api/v1/plugins/mappers/" + name).then(), 412, "precondition-failed");
    }

    @Test
    void deletingAPluginUsedByAPipelineIs409() {
        String tap = io.tapline.support.Api.plugin("extractors", unique("tap-used"), "tap-x");
        String target = io.tapline.support.Api.plugin("loaders", unique("target-used"), "target-x");
        String pipeline = unique("used");
        json().body("{\"name\":\"%s\",\"extractor\":\"%s\",\"loader\":\"%s\"}".formatted(pipeline, tap, target))
                .post("/api/v1/pipelines").then().statusCode(201);
        problem(json().delete("/api/v1/plugins/extractors/" + tap).then(), 409, "in-use")
                .body("pipelines", hasItem(pipeline));
        json().delete("/api/v1/pipelines/" + pipeline).then().statusCode(204);
        json().delete("/api/v1/plugins/extractors/" + tap).then().statusCode(204);
    }

    @Test
    void paginationWalksEveryItemOnceNewestFirstAndIsStableUnderInserts() {
        String prefix = unique("page");
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            created.add(io.tapline.support.Api.plugin("transformers", prefix + "-" + i, "dbt"));
        }
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var req = json().queryParam("limit", 3);
            if (cursor != null) {
                req.queryParam("cursor", cursor);
            }
            Response r = req.get("/api/v1/plugins/transformers");
            r.then().statusCode(200).body("items", notNullValue());
            List<String> names = r.jsonPath().getList("items.name");
            assertTrue(names.size() <= 3);
            seen.addAll(names);
            cursor = r.jsonPath().getString("nextCursor");
            if (pages == 0) {
                // an insert after the first page must not shift later pages
                io.tapline.support.Api.plugin("transformers", prefix + "-late", "dbt");
            }
            pages++;
        } while (cursor != null);
        List<String> mine = seen.stream().filter(n -> n.startsWith(prefix + "-") && !n.endsWith("late")).toList();
        List<String> expected = new ArrayList<>(created);
        java.util.Collections.reverse(expected);
        assertEquals(expected, mine);
        Set<String> unique = new HashSet<>(seen);
        assertEquals(seen.size(), unique.size(), "no item appears twice");
        assertFalse(seen.contains(prefix + "-late"), "newer items do not appear on later pages");
        assertTrue(pages >= 3);
        json().queryParam("limit", 2).get("/api/v1/plugins").then().statusCode(200)
                .body("items.size()", equalTo(2)).body("items[0].catalog", nullValue());
    }

    @Test
    void badPaginationParametersAre400() {
        problem(json().queryParam("cursor", "not-a-cursor").get("/api/v1/plugins").then(), 400, "validation")
                .body("errors[0].field", equalTo("cursor"));
        problem(json().queryParam("limit", 0).get("/api/v1/plugins").then(), 400, "validation")
                .body("errors[0].field", equalTo("limit"));
        problem(json().queryParam("limit", 100000).get("/api/v1/plugins").then(), 400, "validation");
        problem(json().queryParam("limit", "abc").get("/api/v1/plugins").then(), 400, "validation");
    }
}
