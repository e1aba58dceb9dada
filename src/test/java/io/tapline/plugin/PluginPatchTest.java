package io.tapline.plugin;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code PATCH /api/v1/plugins/{type}/{name}} with a JSON Merge Patch (RFC 7396). */
@QuarkusTest
class PluginPatchTest {

    private static final String MERGE_PATCH = "application/merge-patch+json";

    @Inject
    PluginRepository plugins;

    @Inject
    SecretCipher cipher;

    private static String create() {
        String name = unique("tap-patch");
        json().body("""
                {"name":"%s","executable":"tap-x","capabilities":["catalog","state"],
                 "config":{"token":"s3cret","start_date":"2024-01-01","nested":{"a":1,"b":2}},
                 "sensitive":["token"],"args":["--one"]}""".formatted(name))
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        return name;
    }

    @Test
    void patchChangesOnlyTheNamedFieldsAndKeepsTheStoredSecret() {
        String name = create();
        json().contentType(MERGE_PATCH).header("If-Match", "\"0\"")
                .body("{\"config\":{\"start_date\":\"2025-06-01\",\"nested\":{\"b\":null,\"c\":3}}}")
                .patch("/api/v1/plugins/extractors/" + name)
                .then().statusCode(200).header("ETag", "\"1\"")
                .body("version", equalTo(1))
                .body("executable", equalTo("tap-x"))
                .body("capabilities", contains("catalog", "state"))
                .body("args", contains("--one"))
                .body("config.token", equalTo("********"))
                .body("config.start_date", equalTo("2025-06-01"))
                .body("config.nested.a", equalTo(1))
                .body("config.nested.b", nullValue())
                .body("config.nested.c", equalTo(3));
        String stored = QuarkusTransaction.requiringNew().call(() -> Jsons.readObject(
                plugins.findByTypeAndName(PluginType.EXTRACTORS, name).orElseThrow().config).get("token").asText());
        assertEquals("s3cret", PluginSecrets.open(stored, cipher).asText());
    }

    @Test
    void nullRemovesAFieldAndArraysAreReplaced() {
        String name = create();
        json().contentType(MERGE_PATCH).body("{\"args\":null,\"capabilities\":[\"discover\"]}")
                .patch("/api/v1/plugins/extractors/" + name)
                .then().statusCode(200)
                .body("args.size()", equalTo(0))
                .body("capabilities", contains("discover"));
    }

    @Test
    void patchHonoursIfMatchAndValidatesLikePut() {
        String name = create();
        problem(json().contentType(MERGE_PATCH).header("If-Match", "\"7\"").body("{\"args\":[]}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 412, "precondition-failed");
        problem(json().contentType(MERGE_PATCH).body("{\"executable\":null}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("executable"));
        problem(json().contentType(MERGE_PATCH).body("{\"capabilities\":\"state\"}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "malformed-body");
        problem(json().contentType(MERGE_PATCH).body("{\"version\":9}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("version"));
        problem(json().contentType(MERGE_PATCH).body("{\"name\":\"other\"}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "validation");
        problem(json().contentType(MERGE_PATCH).body("[1]")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "validation");
        problem(json().contentType(MERGE_PATCH).body("{\"sensitive\":[]}")
                .patch("/api/v1/plugins/extractors/" + name).then(), 400, "validation")
                .body("errors[0].field", equalTo("config.token"));
        problem(json().contentType("text/plain").body("x")
                .patch("/api/v1/plugins/extractors/" + name).then(), 415, "unsupported-media-type");
        problem(json().contentType(MERGE_PATCH).body("{\"args\":[]}")
                .patch("/api/v1/plugins/extractors/" + unique("missing")).then(), 404, "not-found");
        json().get("/api/v1/plugins/extractors/" + name).then().statusCode(200).header("ETag", "\"0\"");
    }
}
