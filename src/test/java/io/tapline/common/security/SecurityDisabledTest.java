package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.tapline.support.Api.anonymous;
import static io.tapline.support.Api.as;
import static io.tapline.support.Api.unique;
import static org.hamcrest.Matchers.equalTo;

/** {@code tapline.security.enabled=false}: every caller acts as admin, recorded as "anonymous". */
@QuarkusTest
@TestProfile(SecurityDisabledTest.AuthenticationOff.class)
class SecurityDisabledTest {

    /** Switches authentication off. */
    public static class AuthenticationOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tapline.security.enabled", "false");
        }
    }

    @Test
    void everyCallerActsAsAdminAndIsRecordedAsAnonymous() {
        anonymous().get("/api/v1/pipelines").then().statusCode(200);
        String name = unique("tap-open");
        anonymous().body(Map.of("name", name, "executable", "tap-x")).post("/api/v1/plugins/extractors")
                .then().statusCode(201);
        as("not-a-jwt").get("/api/v1/plugins/extractors/" + name).then().statusCode(200);
        anonymous().queryParam("target", "extractors/" + name).get("/api/v1/audit").then().statusCode(200)
                .body("items[0].action", equalTo("plugin.create"))
                .body("items[0].actor", equalTo(CurrentActor.ANONYMOUS));
    }
}
