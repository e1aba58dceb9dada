package io.tapline.project;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;

import static io.tapline.support.Api.json;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sensitive values reach the connector as they were given: never expanded as {@code $}
 * references (a password may hold {@code $}), whether stored encrypted or, on a service without
 * an encryption key, as sent; and a meltano.yml export read back keeps a sensitive env value.
 */
@QuarkusTest
class SensitiveValuesTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    AgroalDataSource db;

    @Test
    void aPlaintextSensitiveValueWithDollarSignsIsUsedLiterallyAndNeverNamedInAnError() throws Exception {
        // regression: without an encryption key the value went through ${...} expansion, so
        // "s3c${NOT_SET_ANYWHERE}ret" failed the run with "refers to ${NOT_SET_ANYWHERE}" (part of the secret)
        String pipeline = Connectors.pipeline(Map.of("mode", "env", "password", "placeholder"), Map.of(), Map.of());
        String tap = json().get("/api/v1/pipelines/" + pipeline).then().extract().path("extractor");
        json().contentType("application/merge-patch+json").body("{\"sensitive\": [\"password\"]}")
                .patch("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        // as a service without tapline.secrets.encryption-key stores it: the value as sent
        sql("update plugin set config = ? where type = 'extractors' and name = ?",
                "{\"mode\": \"env\", \"password\": \"s3c${NOT_SET_ANYWHERE}ret-$HOME-$$x\"}", tap);

        String run = trigger(pipeline, Map.of());
        awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED"));
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("\"password\": \"********\""), log);
        assertFalse(log.contains("NOT_SET_ANYWHERE"), log);
    }

    @Test
    void anExportedSensitiveEnvVariableReadBackKeepsTheStoredValue() throws Exception {
        // regression: the export writes env {LEAK_ENV: ${LEAK_ENV}}; importing that file stored the
        // text "${LEAK_ENV}" in place of the secret
        String pipeline = Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
        String tap = json().get("/api/v1/pipelines/" + pipeline).then().extract().path("extractor");
        json().contentType("application/merge-patch+json")
                .body("{\"env\": {\"LEAK_ENV\": \"the-real-secret\"}, \"sensitive\": [\"LEAK_ENV\"]}")
                .patch("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        String before = env(tap);
        assertFalse(before.contains("${LEAK_ENV}"), before);

        String yaml = ProjectImportTest.export();
        assertTrue(yaml.contains("${LEAK_ENV}"), "the export writes the reference, never the value");
        // read back this extractor's entry as exported (the export also holds other tests' plugins)
        ObjectMapper yamlMapper = new ObjectMapper(new YAMLFactory());
        JsonNode root = yamlMapper.readTree(yaml);
        ObjectNode doc = yamlMapper.createObjectNode();
        doc.put("version", 1);
        for (JsonNode e : root.path("plugins").path("extractors")) {
            if (tap.equals(e.path("name").asText())) {
                doc.putObject("plugins").putArray("extractors").add(e);
            }
        }
        assertTrue(doc.has("plugins"), yaml);
        assertEquals("${LEAK_ENV}", doc.at("/plugins/extractors/0/env/LEAK_ENV").asText(), doc.toString());
        ProjectImportTest.importYaml(yamlMapper.writeValueAsString(doc), "").then().statusCode(200);

        assertEquals(before, env(tap), "the stored (sealed) value is kept");
        json().get("/api/v1/plugins/extractors/" + tap).then().statusCode(200)
                .body("env.LEAK_ENV", equalTo("********"));
    }

    private String env(String tap) throws Exception {
        try (Connection c = db.getConnection();
             PreparedStatement s = c.prepareStatement("select env from plugin where type = 'extractors' and name = ?")) {
            s.setString(1, tap);
            try (ResultSet r = s.executeQuery()) {
                assertTrue(r.next());
                return r.getString(1);
            }
        }
    }

    private void sql(String statement, Object... args) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(statement)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            assertEquals(1, s.executeUpdate(), statement);
        }
    }
}
