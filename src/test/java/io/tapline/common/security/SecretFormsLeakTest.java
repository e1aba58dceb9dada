package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.tapline.support.Connectors;
import io.tapline.support.TestDatabase;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.unique;
import static io.tapline.support.Connectors.awaitEnd;
import static io.tapline.support.Connectors.trigger;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 items 3 and 4. A sensitive value with newlines, quotes, a backslash, a slash and a
 * non-ASCII character, printed by a tap raw, line by line, JSON-escaped, URL-encoded and base64
 * ({@code leaky_tap.py}), appears in clear nowhere: not in the run log, the run's error summary,
 * the log file, the service log or the database. And {@code ${NAME}} / {@code ${env:NAME}} cannot
 * read a variable of the service's environment that is not passed on to connectors, nor can
 * {@code ${file:...}} by a path or link that leads into /proc.
 */
@QuarkusTest
class SecretFormsLeakTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path LEAKY = Path.of("src/test/resources/connectors/leaky_tap.py").toAbsolutePath();

    @Test
    void everyFormOfAMultiLineSecretIsMasked() throws Exception {
        String a = UUID.randomUUID().toString().substring(0, 8);
        String b = UUID.randomUUID().toString().substring(0, 8);
        String c = UUID.randomUUID().toString().substring(0, 8);
        String secret = "-----BEGIN " + a + "-----\nsecond \"line\" \\ caf\u00e9/" + b + " x*y~z\nthird+line " + c;
        String pipeline = pipeline(Map.of("secret", secret, "ref", "$HOME"), List.of("secret"));
        String run = trigger(pipeline, Map.of());
        String runBody = awaitEnd(run, WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("login refused for password \"********\"")).extract().asString();
        String log = json().accept("text/plain").get("/api/v1/runs/" + run + "/log").asString();
        assertTrue(log.contains("extractor | RAW ********"), log);
        assertTrue(log.contains("extractor | B64 ********"), log);
        assertTrue(log.contains("extractor | URL ********"), log);
        // $HOME is inherited: it resolves, and is masked as every value read from the service's environment
        assertTrue(log.contains("extractor | REF \"********\""), log);

        List<String> forms = new ArrayList<>(List.of(a, b, c, "second \"line\"", "third+line",
                Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)),
                Base64.getUrlEncoder().withoutPadding().encodeToString(secret.getBytes(StandardCharsets.UTF_8)),
                URLEncoder.encode(secret, StandardCharsets.UTF_8).substring(0, 20)));
        assertClean("the run", runBody, forms);
        assertClean("the run log", log, forms);
        Path logFile = Path.of("target/test-logs", run + ".log");
        assertClean("the run log file", latin1(logFile), forms);
        // item 12: the run log file is private
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(logFile)));
        assertClean("the service log", latin1(Path.of("target/test-service.log")), forms);
        for (String f : List.of(a, b, c)) {
            List<String> hits = columnsContaining(f);
            assertTrue(hits.isEmpty(), "a line of the secret is stored in clear in " + hits);
        }
    }

    @Test
    void referencesCannotReadTheServicesEnvironment() throws Exception {
        // a variable of this process (the service) that is not passed on to connectors
        Set<String> inherited = Set.of("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV",
                "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE");
        String name = new TreeSet<>(System.getenv().keySet()).stream()
                .filter(n -> !inherited.contains(n) && n.matches("[A-Za-z_][A-Za-z0-9_]*")
                        && System.getenv(n).length() >= 3)
                .findFirst().orElseThrow();
        for (String ref : List.of("${" + name + "}", "$" + name, "prefix-$" + name)) {
            String p = Connectors.pipeline(Map.of("mode", "env", "records", 1, "ref", ref), Map.of(), Map.of());
            awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                    .body("failedComponent", equalTo("service"))
                    .body("errorSummary", containsString("refers to ${" + name + "}, which is not set in the"
                            + " plugin's env, the pipeline's env or the inherited variables"));
        }
        String p = Connectors.pipeline(Map.of("mode", "env", "records", 1, "ref", "${env:" + name + "}"), Map.of(),
                Map.of());
        awaitEnd(trigger(p, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("refers to ${env:" + name + "}, which the service does not"
                        + " pass on: list it in tapline.runner.env-references"));
        String proc = Connectors.pipeline(Map.of("mode", "env", "records", 1, "ref", "${file:/proc/self/environ}"),
                Map.of(), Map.of());
        awaitEnd(trigger(proc, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                .body("errorSummary", containsString("files under /proc and /sys are not read"));
        // issue 31 item 3: through /dev/fd and through a link, /proc is found at its real location
        Path link = Files.createTempDirectory("tapline-link").resolve("environ");
        Files.createSymbolicLink(link, Path.of("/proc/self/environ"));
        for (String ref : List.of("${file:/dev/fd/../environ}", "${file:" + link + "}")) {
            String viaLink = Connectors.pipeline(Map.of("mode", "env", "records", 1, "ref", ref), Map.of(), Map.of());
            awaitEnd(trigger(viaLink, Map.of()), WAIT).then().body("status", equalTo("FAILED"))
                    .body("failedComponent", equalTo("service"))
                    .body("errorSummary", containsString("refers to " + ref + "; files under /proc and /sys are"
                            + " not read, nor /dev/fd and /dev/std*, by any path or link that leads there"));
        }
        // the pipeline's and the plugin's own env still expand
        String ok = Connectors.pipeline(Map.of("mode", "env", "records", 1, "ref", "${MY_VAR}"), Map.of(),
                Map.of("env", Map.of("MY_VAR", "from-pipeline")));
        awaitEnd(trigger(ok, Map.of()), WAIT).then().body("status", equalTo("SUCCEEDED"));
    }

    private static String pipeline(Map<String, Object> config, List<String> sensitive) {
        String tap = unique("tap-leaky");
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("name", tap);
        t.put("executable", LEAKY.toString());
        t.put("config", config);
        t.put("sensitive", sensitive);
        json().body(t).post("/api/v1/plugins/extractors").then().statusCode(201);
        String target = unique("target-leaky");
        json().body(Map.of("name", target, "executable", Connectors.TARGET.toString()))
                .post("/api/v1/plugins/loaders").then().statusCode(201);
        String name = unique("pl-leaky");
        json().body(Map.of("name", name, "extractor", tap, "loader", target)).post("/api/v1/pipelines")
                .then().statusCode(201);
        return name;
    }

    private static String latin1(Path file) throws java.io.IOException {
        return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1) : "";
    }

    private static void assertClean(String where, String text, List<String> forms) {
        for (String f : forms) {
            assertFalse(text.contains(f), "a form of the secret (" + f + ") appears in " + where + ": " + text);
        }
    }

    /** "table.column" of every text column of the Tapline schema that contains {@code value}. */
    private static List<String> columnsContaining(String value) throws Exception {
        List<String> hits = new ArrayList<>();
        try (Connection c = TestDatabase.connect()) {
            List<String[]> columns = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("select table_name, column_name from information_schema.columns"
                    + " where table_schema = ? and data_type in ('text', 'character varying', 'json', 'jsonb')")) {
                s.setString(1, TestDatabase.schema());
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        columns.add(new String[] {rs.getString(1), rs.getString(2)});
                    }
                }
            }
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
