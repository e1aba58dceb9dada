package io.tapline.common.security;

import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The prod profile has no default key: without one (and without opting out) the service does not start. */
class SecurityConfigSourceFactoryTest {

    /** Builds the configuration with a database configured (the key is what these tests are about). */
    private static SmallRyeConfig build(String profile, Map<String, String> props) {
        Map<String, String> withDatabase = new java.util.HashMap<>(props);
        withDatabase.putIfAbsent("quarkus.datasource.jdbc.url", "jdbc:postgresql://db:5432/tapline");
        return buildAsGiven(profile, withDatabase);
    }

    private static SmallRyeConfig buildAsGiven(String profile, Map<String, String> props) {
        return new SmallRyeConfigBuilder().withProfile(profile)
                .withSources(new PropertiesConfigSource(props, "test", 250))
                .withSources(new SecurityConfigSourceFactory())
                .build();
    }

    @Test
    void prodWithoutAVerificationKeyRefusesToStartWithOneSentence() {
        ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> build("prod", Map.of()));
        assertEquals(1, e.getProblemCount());
        assertEquals(SecurityConfigSourceFactory.NO_KEY, e.getProblem(0).getMessage());
        assertTrue(SecurityConfigSourceFactory.NO_KEY.contains("MP_JWT_VERIFY_PUBLICKEY_LOCATION"));
        assertTrue(SecurityConfigSourceFactory.NO_KEY.contains("MP_JWT_VERIFY_PUBLICKEY "));
    }

    @Test
    void prodStartsWithAKeyOrWhenAuthenticationIsExplicitlyOff() {
        assertDoesNotThrow(() -> build("prod", Map.of("mp.jwt.verify.publickey.location",
                "https://idp.example/realms/x/protocol/openid-connect/certs")));
        assertDoesNotThrow(() -> build("prod", Map.of("mp.jwt.verify.publickey", "MIIBIjANBgkq...")));
        assertDoesNotThrow(() -> build("prod", Map.of("tapline.security.enabled", "false")));
        // Quarkus's dev-services placeholder does not count, nor does a dev-profile property in prod.
        assertThrows(ConfigValidationException.class, () -> build("prod", Map.of("mp.jwt.verify.publickey", "NONE")));
        assertThrows(ConfigValidationException.class, () -> build("prod",
                Map.of("%dev.mp.jwt.verify.publickey.location", "file:/x.pem")));
    }

    @Test
    void everyMissingSettingIsNamedInOneMessage() {
        ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> buildAsGiven("prod", Map.of()));
        assertEquals(1, e.getProblemCount());
        assertEquals(io.tapline.common.db.EmbeddedPostgresConfigSourceFactory.NO_DATABASE + " "
                + SecurityConfigSourceFactory.NO_KEY, e.getProblem(0).getMessage());
    }

    @Test
    void withAuthenticationOffTheServiceListensOnLoopbackUnlessTheHostIsSetExplicitly() {
        assertEquals("127.0.0.1", build("prod", Map.of("tapline.security.enabled", "false"))
                .getValue("quarkus.http.host", String.class));
        assertEquals("0.0.0.0", build("prod", Map.of("tapline.security.enabled", "false",
                "quarkus.http.host", "0.0.0.0")).getValue("quarkus.http.host", String.class));
        // With authentication on nothing is changed.
        assertEquals(java.util.Optional.empty(), build("prod", Map.of("mp.jwt.verify.publickey", "MIIB..."))
                .getOptionalValue("quarkus.http.host", String.class));
        assertTrue(SecurityStartup.isLoopback("127.0.0.1") && SecurityStartup.isLoopback("localhost")
                && !SecurityStartup.isLoopback("0.0.0.0"));
    }
}
