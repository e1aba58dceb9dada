package io.tapline.common.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link ConfigSourceSupport#value}: what Tapline's configuration source factories see of a Secret
 * mounted as files ({@code smallrye.config.source.file.locations}), which SmallRye leaves out of a
 * factory's context; found by the names SmallRye's file-system source finds them by.
 */
class ConfigSourceSupportTest {

    @Test
    void aSettingInAMountedSecretIsSeenByItsEnvironmentName(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("QUARKUS_DATASOURCE_JDBC_URL"), "jdbc:postgresql://db:5432/tapline\n");
        Files.writeString(dir.resolve("MP_JWT_VERIFY_PUBLICKEY"), "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n");
        Files.writeString(dir.resolve("tapline.database.schema"), "runs");
        Files.writeString(dir.resolve("TAPLINE_DATABASE_EMBEDDED"), "  \n");
        ConfigSourceContext c = context(Map.of(ConfigSourceSupport.FILE_LOCATIONS, "/nowhere," + dir,
                "tapline.security.enabled", "false"));

        assertEquals("jdbc:postgresql://db:5432/tapline", ConfigSourceSupport.value(c, "quarkus.datasource.jdbc.url", ""));
        assertEquals("-----BEGIN PUBLIC KEY-----MIIB-----END PUBLIC KEY-----",
                ConfigSourceSupport.value(c, "mp.jwt.verify.publickey", ""), "lines joined, as SmallRye reads it");
        assertEquals("runs", ConfigSourceSupport.value(c, "tapline.database.schema", "tapline"));
        assertEquals("false", ConfigSourceSupport.value(c, "tapline.database.embedded", "false"), "blank: unset");
        assertEquals("fallback", ConfigSourceSupport.value(c, "quarkus.datasource.password", "fallback"));
        // What the context has wins (an environment variable over the file, as at run time).
        assertEquals("false", ConfigSourceSupport.value(c, "tapline.security.enabled", "true"));
        assertEquals("x", ConfigSourceSupport.value(context(Map.of()), "quarkus.datasource.jdbc.url", "x"));
    }

    private static ConfigSourceContext context(Map<String, String> values) {
        return new ConfigSourceContext() {
            @Override
            public ConfigValue getValue(String name) {
                String v = values.get(name);
                return v == null ? null : ConfigValue.builder().withName(name).withValue(v).build();
            }

            @Override
            public Iterator<String> iterateNames() {
                return values.keySet().iterator();
            }
        };
    }
}
