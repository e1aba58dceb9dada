package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A secret given to a plugin (a sensitive config value and a sensitive env value, stored
 * encrypted with the {@code %test} key) is used by a run, whose tap prints its config and
 * environment to stderr, and appears in clear nowhere: not in API responses (plugin, run, run log,
 * audit, state export), not in the run log file, the service log, or any text column of any table.
 * The run's config file is 0600 and gone after the run.
 */
@QuarkusTest
class SecretLeakTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aStoredSecretIsUsedByTheRunAndAppearsNowhereInClear() throws Exception {
        String secret = "s3cret-" + UUID.randomUUID();
        String envSecret = "envpw-" + UUID.randomUUID();
        String tap = unique("tap-secret");
        String target = unique("target-secret");
        Map<String, Object> tapBody = new LinkedHashMap<>();
        tapBody.put("name", tap);
        tapBody.put("executable", Connectors.TAP.toString());
        tapBody.put("capabilities", List.of("state"));
        tapBody.put("config", Map.of("mode", "env", "records", 3, "api_token", secret));
        tapBody.put("sensitive", List.of("api_token", "TAP_PASSWORD"));
        tapBody.put("env", Map.of("TAP_PASSWORD", envSecret));
        String created = json().body(tapBody).post("/api/v1/plugins/extractors").then().statusCode(201)
                .body("config.api_token", equalTo("********")).body("env.TAP_PASSWORD", equalTo("********"))
                .extract().asString();
        assertClean("the create response", created, secret, envSecret);
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String pipeline = unique("pl-secret");
        json().body(Map.of("name", pipeline, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);

        // Stored encrypted, references and other values as written.
        try (Connection c = TestDatabase.connect();
             PreparedStatement s = c.prepareStatement("select config, env from plugin where name = ?")) {
            s.setString(1, tap);
            try (ResultSet rs = s.executeQuery()) {
                assertTrue(rs.next());
                assertTrue(rs.getString(1).contains("\"api_token\":\"enc:v1:test1:"), rs.getString(1));
                assertTrue(rs.getString(1).contains("\"mode\":\"env\""), rs.getString(1));
                assertTrue(rs.getString(2).contains("\"TAP_PASSWORD\":\"enc:v1:test1:"), rs.getString(2));
            }
        }

        // Sending back what was read keeps the secret; the audit summary names no change of it.
        Map<String, Object> again = new LinkedHashMap<>(tapBody);
        again.put("config", Map.of("mode", "env", "records", 3, "api_token", "********"));
        again.put("env", Map.of("TAP_PASSWORD", "********"));
        json().body(again).put("/api/v1/plugins/extractors/" + tap).then().statusCode(200);

        String run = trigger(pipeline, Map.of());
        String runBody = awaitEnd(run, WAIT).then().body("status", equalTo("SUCCEEDED")).extract().asString();
        assertClean("the run", runBody, secret, envSecret);

        // The tap got the decrypted values (the log shows they were there, masked).
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("extractor | CONFIG {") && log.contains("\"api_token\": \"********\""), log);
        assertTrue(log.contains("\"TAP_PASSWORD\": \"********\""), log);
        assertClean("the run log", log, secret, envSecret);

        // The config file was private while the run lasted, and is gone now.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("CONFIG-FILE (\\S+) mode (\\d+)").matcher(log);
        assertTrue(m.find(), log);
        assertEquals("600", m.group(2), "mode of the run's config file");
        Path configFile = Path.of(m.group(1));
        assertEquals(Path.of("target/test-runs", run).toAbsolutePath(), configFile.getParent());
        assertFalse(Files.exists(configFile), "config file deleted after the run");
        assertFalse(Files.exists(configFile.getParent()), "run directory deleted after the run");

        Path logFile = Path.of("target/test-logs", run + ".log");
        assertTrue(Files.exists(logFile));
        assertClean("the run log file", latin1(logFile), secret, envSecret);

        assertClean("the plugin", json().get("/api/v1/plugins/extractors/" + tap).asString(), secret, envSecret);
        assertClean("the plugin list", json().get("/api/v1/plugins?limit=500").asString(), secret, envSecret);
        assertClean("the runs", json().get("/api/v1/runs?pipeline=" + pipeline).asString(), secret, envSecret);
        assertClean("the state export", json().get("/api/v1/states:export").asString(), secret, envSecret);

        String audit = json().queryParam("target", "extractors/" + tap).get("/api/v1/audit").then().statusCode(200)
                .body("items[0].action", equalTo("plugin.update"))
                .body("items[0].details.changed", equalTo(List.of()))
                .body("items[1].action", equalTo("plugin.create"))
                .body("items[1].details.config.added", containsInAnyOrder("mode", "records", "api_token"))
                .body("items[1].details.env.added", equalTo(List.of("TAP_PASSWORD")))
                .extract().asString();
        assertClean("the plugin's audit events", audit, secret, envSecret);
        assertClean("the audit trail", json().get("/api/v1/audit?limit=500").asString(), secret, envSecret);

        Path serviceLog = Path.of("target/test-service.log");
        assertTrue(Files.exists(serviceLog), "the %test profile logs to " + serviceLog);
        try (var logs = Files.list(serviceLog.getParent())) {
            for (Path f : logs.filter(f -> f.getFileName().toString().startsWith("test-service.log")).toList()) {
                assertClean("the service log " + f.getFileName(), latin1(f), secret, envSecret);
            }
        }

        for (String value : List.of(secret, envSecret)) {
            List<String> hits = columnsContaining(value);
            assertTrue(hits.isEmpty(), "the secret is stored in clear in " + hits);
        }
    }

    @Test
    void aValueEncryptedWithAnUnknownKeyFailsTheRunWithAReadableReason() throws Exception {
        String secret = "lost-" + UUID.randomUUID();
        String p = Connectors.pipeline(Map.of("records", 1, "password", secret), Map.of(), Map.of());
        String tap = json().get("/api/v1/pipelines/" + p).then().extract().path("extractor");
        json().body(Map.of("executable", Connectors.TAP.toString(), "capabilities", List.of("state"),
                        "config", Map.of("records", 1, "password", secret), "sensitive", List.of("password")))
                .put("/api/v1/plugins/extractors/" + tap).then().statusCode(200);
        try (Connection c = TestDatabase.connect();
             PreparedStatement s = c.prepareStatement(
                     "update plugin set config = replace(config, 'enc:v1:test1:', 'enc:v1:retired:') where name = ?")) {
            s.setString(1, tap);
            assertEquals(1, s.executeUpdate());
        }
        String run = trigger(p, Map.of());
        String body = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("failedComponent", equalTo("service"))
                .body("errorSummary", containsString("config.password is encrypted with key 'retired', which is not"
                        + " configured"))
                .extract().asString();
        assertClean("the failed run", body, secret, secret);
    }

    @Test
    void anEncryptedLookingValueIsRefusedAndReferencesStayAsWritten() throws Exception {
        String tap = unique("tap-ref");
        json().body(Map.of("name", tap, "executable", "tap-x", "config", Map.of("token", "enc:v1:k:AAAA"),
                        "sensitive", List.of("token")))
                .post("/api/v1/plugins/extractors").then().statusCode(400)
                .body("errors[0].field", equalTo("config.token"));
        // a JSON string, so the stored key order is the order sent
        json().body("{\"name\": \"" + tap + "\", \"executable\": \"tap-x\", \"config\": {\"token\": \"${env:TAP_TOKEN}\","
                        + " \"key\": \"${secret:tap-key}\"}, \"sensitive\": [\"token\", \"key\"]}")
                .post("/api/v1/plugins/extractors").then().statusCode(201);
        try (Connection c = TestDatabase.connect();
             PreparedStatement s = c.prepareStatement("select config from plugin where name = ?")) {
            s.setString(1, tap);
            try (ResultSet rs = s.executeQuery()) {
                assertTrue(rs.next());
                assertEquals("{\"token\":\"${env:TAP_TOKEN}\",\"key\":\"${secret:tap-key}\"}", rs.getString(1));
            }
        }
        json().get("/api/v1/plugins/extractors/" + tap).then().body("config.token", startsWith("****"));
    }

    /** A file's bytes as text (ISO-8859-1 reads any bytes; the secrets are ASCII). */
    private static String latin1(Path file) throws java.io.IOException {
        return new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static void assertClean(String where, String text, String... secrets) {
        for (String s : secrets) {
            assertFalse(text.contains(s), "the secret appears in " + where);
        }
    }

    /** "table.column" of every text column of the Tapline schema that contains {@code value}. */
    private static List<String> columnsContaining(String value) throws Exception {
        List<String> hits = new ArrayList<>();
        try (Connection c = TestDatabase.connect()) {
            List<String[]> columns = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select table_name, column_name from information_schema.columns"
                    + " where table_schema = ? and data_type in ('text', 'character varying', 'character', 'json',"
                    + " 'jsonb')")) {
                s.setString(1, TestDatabase.schema());
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        columns.add(new String[] {rs.getString(1), rs.getString(2)});
                    }
                }
            }
            assertTrue(columns.size() > 20, "text columns found: " + columns.size());
            for (String[] col : columns) {
                try (PreparedStatement s = c.prepareStatement("select count(*) from \"" + col[0] + "\" where \""
                        + col[1] + "\"::text like '%' || ? || '%'")) {
                    s.setString(1, value);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) > 0) {
                            hits.add(col[0] + "." + col[1]);
                        }
                    }
                }
            }
        }
        return hits;
    }
}
