package io.tapline.plugin;

import io.tapline.common.security.SecretCipher;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PluginSecretsTest {

    private static String key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return Base64.getEncoder().encodeToString(k);
    }

    private static Plugin plugin(String config, String sensitive, String env) {
        Plugin p = new Plugin();
        p.executable = "tap-x";
        p.config = config;
        p.sensitive = sensitive;
        p.env = env;
        return p;
    }

    @Test
    void sealsSensitiveValuesButNotReferencesOrOtherSettings() {
        SecretCipher c = new SecretCipher(Optional.of(key()), "k1", List.of());
        Plugin p = plugin("{\"user\":\"bob\",\"password\":\"pw-1\",\"api\":\"${env:API}\",\"db\":{\"pin\":1234},"
                + "\"file\":\"${file:/run/key}\",\"meltano\":\"$TOKEN\"}",
                "[\"password\",\"api\",\"db.pin\",\"file\",\"meltano\",\"PASS\"]", "{\"PASS\":\"envpw\",\"LANG\":\"C\"}");
        PluginSecrets.seal(p, c);
        assertFalse(p.config.contains("pw-1"), p.config);
        assertFalse(p.config.contains("1234"), p.config);
        assertTrue(p.config.contains("\"user\":\"bob\""), p.config);
        assertTrue(p.config.contains("\"api\":\"${env:API}\""), p.config);
        assertTrue(p.config.contains("\"file\":\"${file:/run/key}\""), p.config);
        assertTrue(p.config.contains("\"meltano\":\"$TOKEN\""), p.config);
        assertFalse(p.env.contains("envpw"), p.env);
        assertTrue(p.env.contains("\"LANG\":\"C\""), p.env);
        // Sealed values hold the JSON value, so types survive.
        String pin = io.tapline.common.json.Jsons.readObject(p.config).get("db").get("pin").asText();
        assertEquals(1234, PluginSecrets.open(pin, c).asInt());
        // Sealing again changes nothing.
        String once = p.config;
        PluginSecrets.seal(p, c);
        assertEquals(once, p.config);
    }

    @Test
    void valuesOfAnOldKeyAreResealedWithTheCurrentOne() {
        String k0 = key();
        SecretCipher old = new SecretCipher(Optional.of(k0), "k0", List.of());
        Plugin p = plugin("{\"password\":\"pw\"}", "[\"password\"]", "{}");
        PluginSecrets.seal(p, old);
        assertTrue(p.config.contains("enc:v1:k0:"), p.config);
        SecretCipher now = new SecretCipher(Optional.of(key()), "k1", List.of("k0=" + k0));
        PluginSecrets.seal(p, now);
        assertTrue(p.config.contains("enc:v1:k1:"), p.config);
        String sealed = io.tapline.common.json.Jsons.readObject(p.config).get("password").asText();
        assertEquals("pw", PluginSecrets.open(sealed, now).asText());
    }

    @Test
    void withoutAKeyValuesStayAsSent() {
        SecretCipher off = new SecretCipher(Optional.empty(), "k1", List.of());
        Plugin p = plugin("{\"password\":\"pw\"}", "[\"password\"]", "{}");
        PluginSecrets.seal(p, off);
        assertEquals("{\"password\":\"pw\"}", p.config);
    }

    @Test
    void theChangeSummaryNamesSettingsNeverValues() {
        SecretCipher c = new SecretCipher(Optional.of(key()), "k1", List.of());
        Plugin before = plugin("{\"password\":\"old-pw\",\"host\":\"a\",\"gone\":1}", "[\"password\"]", "{\"X\":\"1\"}");
        PluginSecrets.seal(before, c);
        Plugin after = plugin("{\"password\":\"new-pw\",\"host\":\"a\",\"port\":5432}", "[\"password\"]",
                "{\"X\":\"2\"}");
        after.executable = "tap-y";
        Map<String, Object> summary = PluginSecrets.summary(before, after, c);
        assertEquals(List.of("executable", "config", "env"), summary.get("changed"));
        assertEquals(Map.of("added", List.of("port"), "changed", List.of("password"), "removed", List.of("gone")),
                summary.get("config"));
        assertEquals(Map.of("changed", List.of("X")), summary.get("env"));
        assertFalse(summary.toString().contains("pw"), summary.toString());
        // The same secret sent again (sealed anew) is not a change.
        Plugin same = plugin("{\"password\":\"old-pw\",\"host\":\"a\",\"gone\":1}", "[\"password\"]", "{\"X\":\"1\"}");
        PluginSecrets.seal(same, c);
        assertEquals(List.of(), PluginSecrets.summary(before, same, c).get("changed"));
    }
}
