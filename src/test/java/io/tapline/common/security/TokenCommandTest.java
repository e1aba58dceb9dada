package io.tapline.common.security;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

import static io.tapline.support.Api.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code quarkus-run.jar token}: makes the key pair if missing, prints a token the service accepts
 * when it trusts that key (as the README's packaged-run section configures it), and refuses bad
 * arguments.
 */
@QuarkusTest
@TestProfile(TokenCommandTest.TrustsTheLocalKey.class)
class TokenCommandTest {

    /** The service trusts the key pair of {@code .tapline/dev-keys}, as the README's packaged run sets it. */
    public static class TrustsTheLocalKey implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            DevKeys.ensure();
            return Map.of("mp.jwt.verify.publickey.location", "file:" + DevKeys.publicKey(),
                    "mp.jwt.verify.issuer", DevKeys.ISSUER);
        }
    }

    private record Result(int code, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = TokenCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8).trim(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theTokenIsAcceptedWithItsRole() {
        Result admin = run();
        assertEquals(0, admin.code(), admin.err());
        assertTrue(Files.isRegularFile(DevKeys.privateKey()));
        assertTrue(admin.err().contains("MP_JWT_VERIFY_PUBLICKEY_LOCATION=file:" + DevKeys.publicKey()), admin.err());
        as(admin.out()).get("/api/v1/pipelines").then().statusCode(200);
        as(admin.out()).get("/api/v1/audit").then().statusCode(200);

        Result viewer = run("--role", "viewer", "--days", "1", "--subject", "ana");
        assertEquals(0, viewer.code(), viewer.err());
        as(viewer.out()).get("/api/v1/pipelines").then().statusCode(200);
        as(viewer.out()).get("/api/v1/audit").then().statusCode(403);
    }

    @Test
    void theSubjectFollowsTheRoleUnlessNamed() {
        assertEquals("local-admin", claims(run().out()).path("sub").asText());
        assertEquals("local-viewer", claims(run("--role", "viewer").out()).path("sub").asText());
        assertEquals("local-operator", claims(run("--role", "operator").out()).path("sub").asText());
        assertEquals("ana", claims(run("--role", "viewer", "--subject", "ana").out()).path("sub").asText());
    }

    private static com.fasterxml.jackson.databind.JsonNode claims(String token) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                    java.util.Base64.getUrlDecoder().decode(token.split("\\.")[1]));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheUsage() {
        for (String[] args : new String[][] {{"--role", "root"}, {"--days", "0"}, {"--days", "x"}, {"--role"},
                {"--colour", "blue"}, {"--subject", "a b"}}) {
            Result r = run(args);
            assertEquals(2, r.code(), String.join(" ", args));
            assertEquals("", r.out());
            assertTrue(r.err().contains("Usage: java -jar quarkus-run.jar token"), r.err());
        }
    }
}
