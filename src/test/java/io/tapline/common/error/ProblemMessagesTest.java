package io.tapline.common.error;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tapline.support.Tokens;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static io.tapline.support.Api.json;
import static io.tapline.support.Api.problem;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Problem details that point the caller the right way. */
@QuarkusTest
class ProblemMessagesTest {

    @Test
    void anImportWithCurlsDefaultContentTypeNamesYamlAsWellAsJson() throws Exception {
        // curl --data-binary @meltano.yml without -H sends application/x-www-form-urlencoded.
        HttpResponse<String> r = post("application/x-www-form-urlencoded");
        assertEquals(415, r.statusCode(), r.body());
        assertTrue(r.body().contains("Send the meltano.yml as application/yaml (or application/x-yaml, text/yaml), or as JSON"),
                r.body());
        // Without any Content-Type the body is read as JSON; the error says how to send YAML.
        HttpResponse<String> none = post(null);
        assertEquals(400, none.statusCode(), none.body());
        assertTrue(none.body().contains("To send the meltano.yml as YAML, use Content-Type application/yaml."),
                none.body());
    }

    private static HttpResponse<String> post(String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://localhost:" + RestAssured.port + "/api/v1/projects:import?dryRun=true"))
                .header("Authorization", Tokens.bearer(Tokens.admin()))
                .POST(HttpRequest.BodyPublishers.ofString("version: 1\n"));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void scalarsOfTheWrongTypeAreRefusedNotCoerced() {
        String extractor = "{\"name\": 42, \"executable\": \"tap-x\"}";
        problem(json().body(extractor).post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("detail", containsString("Field 'name'"))
                .body("detail", containsString("(expected a string)"))
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("name"));
        String name = unique("p");
        badSchedule(name, "\"enabled\":\"true\"")
                .body("detail", containsString("Field 'schedule.enabled'"))
                .body("detail", containsString("(expected true or false)"));
        badSchedule(name, "\"pauseAfterFailures\":1.5")
                .body("detail", containsString("Field 'schedule.pauseAfterFailures'"))
                .body("detail", containsString("(expected a whole number from -2147483648 to 2147483647)"));
        // too big for the field: the message gives the range
        badSchedule(name, "\"pauseAfterFailures\":99999999999")
                .body("detail", containsString("99999999999"))
                .body("detail", containsString("2147483647"));
    }

    /** Creates a pipeline {@code name} whose schedule has {@code field} (JSON members) besides its interval: a 400. */
    private static io.restassured.response.ValidatableResponse badSchedule(String name, String field) {
        return problem(json().body("{\"name\":\"" + name + "\",\"extractor\":\"x\",\"loader\":\"y\","
                + "\"schedule\":{\"interval\":\"@daily\"," + field + "}}").post("/api/v1/pipelines").then(), 400,
                "malformed-body");
    }

    @Test
    void aKeyGivenTwiceInsideAFieldIsNamedWithTheField() {
        problem(json().body("{\"name\": \"" + unique("tap") + "\", \"executable\": \"tap-x\","
                        + " \"config\": {\"user\": \"a\", \"user\": \"b\"}}").post("/api/v1/plugins/extractors").then(),
                400, "malformed-body")
                .body("detail", containsString("Duplicate field 'user'"));
    }

    @Test
    void aNumberIsNotTakenForABoolean() {
        badSchedule(unique("p"), "\"enabled\":1")
                .body("detail", containsString("Field 'schedule.enabled'"));
        problem(json().body("{\"fullRefresh\": 1}").post("/api/v1/pipelines/" + unique("p") + "/runs").then(),
                400, "malformed-body")
                .body("detail", containsString("Field 'fullRefresh'"));
    }

    /** PUTs an empty state to {@code path} exactly as written (RestAssured would encode it again). */
    private static HttpResponse<String> putStateAsSent(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + RestAssured.port + path))
                .header("Authorization", Tokens.bearer(Tokens.admin()))
                .header("Content-Type", "application/json")
                .method("PUT", HttpRequest.BodyPublishers.ofString("{\"singer_state\": {}}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aDotSegmentInThePathIsRefusedNotResolvedToAnotherResource() throws Exception {
        for (String path : new String[] {"/api/v1/states/s/bookmarks/%2E%2E", "/api/v1/states/s/bookmarks/%2e",
                "/api/v1/states/s/bookmarks/a/%2E%2E/%2E%2E/x"}) {
            HttpResponse<String> r = putStateAsSent(path);
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertTrue(r.body().contains("segment, which would be resolved to another resource"), r.body());
        }
    }

    @Test
    void aPathThatWouldNameAnotherStateIdIsRefused() throws Exception {
        // %FF and %FE both decoded to U+FFFD (one state ID for two names); ';' cut the ID short as
        // matrix parameters ("semi;b" stored under "semi")
        for (String path : new String[] {"/api/v1/states/%FF", "/api/v1/states/%FE", "/api/v1/states/semi;b",
                "/api/v1/states/a%C3/bookmarks/s"}) {
            HttpResponse<String> r = putStateAsSent(path);
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertTrue(r.body().contains("not UTF-8") || r.body().contains("%3B"), r.body());
        }
        json().get("/api/v1/states/semi").then().body(org.hamcrest.Matchers.equalTo("{}\n"));
        // percent-encoded, the ';' is part of the state ID
        json().urlEncodingEnabled(false).body("{\"singer_state\": {}}").put("/api/v1/states/semi%3Bb").then()
                .statusCode(200);
        json().urlEncodingEnabled(false).get("/api/v1/states/semi%3Bb").then()
                .body(org.hamcrest.Matchers.equalTo("{\"singer_state\":{}}\n"));
        json().get("/api/v1/states/semi").then().body(org.hamcrest.Matchers.equalTo("{}\n"));
    }

    @Test
    void aKeyGivenTwiceIsRefusedNotLastWins() {
        problem(json().body("{\"name\": \"" + unique("tap") + "\", \"executable\": \"tap-x\", \"name\": \"other\"}")
                .post("/api/v1/plugins/extractors").then(), 400, "malformed-body")
                .body("detail", containsString("Duplicate field 'name'"));
    }

    @Test
    void aScheduleGivenAsAStringShowsTheExpectedObjectWithAnExample() {
        problem(json().body("{\"name\":\"" + unique("p") + "\",\"extractor\":\"x\",\"loader\":\"y\","
                        + "\"schedule\":\"@daily\"}").post("/api/v1/pipelines").then(), 400, "malformed-body")
                .body("detail", containsString("Field 'schedule' has the wrong type (expected an object with the"
                        + " fields interval, timezone, enabled, catchUp, pauseAfterFailures, for example"
                        + " {\"interval\": \"@daily\", \"timezone\": \"Europe/Berlin\"})."))
                .body("errors[0].message", containsString("for example {\"interval\": \"@daily\""));
    }

    @Test
    void aRejectedTokenInDevModeSaysWhereTheDevTokenIs() {
        assertTrue(ProblemMappers.invalidTokenDetail(LaunchMode.DEVELOPMENT).contains(
                "dev mode writes a valid admin token to .tapline/dev-token"));
        assertEquals("The bearer token is invalid or expired; get a new one from your identity provider.",
                ProblemMappers.invalidTokenDetail(LaunchMode.NORMAL));
        problem(io.tapline.support.Api.as("not-a-jwt").get("/api/v1/pipelines").then(), 401, "unauthorized")
                .body("detail", containsString("identity provider"));
    }
}
