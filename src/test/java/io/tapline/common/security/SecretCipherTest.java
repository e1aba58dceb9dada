package io.tapline.common.security;

import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecretCipherTest {

    private static String key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return Base64.getEncoder().encodeToString(k);
    }

    @Test
    void sealsAndOpensWithARandomIvEachTime() {
        SecretCipher c = new SecretCipher(Optional.of(key()), "k1", List.of());
        String a = c.seal("\"hunter2\"");
        String b = c.seal("\"hunter2\"");
        assertTrue(a.startsWith("enc:v1:k1:"), a);
        assertNotEquals(a, b);
        assertFalse(a.contains("hunter2"));
        assertEquals("\"hunter2\"", c.open(a));
        assertEquals("\"hunter2\"", c.open(b));
        assertEquals("k1", SecretCipher.keyIdOf(a));
    }

    @Test
    void oldKeysStillOpenAndTheirValuesNeedResealing() {
        String k0 = key();
        SecretCipher before = new SecretCipher(Optional.of(k0), "k0", List.of());
        String sealed = before.seal("x-secret");
        SecretCipher after = new SecretCipher(Optional.of(key()), "k1", List.of("k0=" + k0));
        assertEquals("x-secret", after.open(sealed));
        assertTrue(after.needsReseal(sealed));
        assertFalse(after.needsReseal(after.seal("y")));
        SecretCipher.SecretException e = assertThrows(SecretCipher.SecretException.class,
                () -> new SecretCipher(Optional.of(key()), "k2", List.of()).open(sealed));
        assertTrue(e.getMessage().contains("key 'k0', which is not configured"), e.getMessage());
    }

    @Test
    void alteredValuesAndRelabelledKeyIdsDoNotOpen() {
        String k = key();
        SecretCipher c = new SecretCipher(Optional.of(k), "a", List.of("b=" + k));
        String sealed = c.seal("value");
        char[] chars = sealed.toCharArray();
        int i = chars.length - 5;
        chars[i] = chars[i] == 'A' ? 'B' : 'A';
        assertThrows(SecretCipher.SecretException.class, () -> c.open(new String(chars)));
        // Same key under another id: the id is authenticated, so the value does not open.
        assertThrows(SecretCipher.SecretException.class, () -> c.open(sealed.replace("enc:v1:a:", "enc:v1:b:")));
    }

    @Test
    void withoutAKeyNothingIsSealed() {
        SecretCipher c = new SecretCipher(Optional.empty(), "k1", List.of());
        assertFalse(c.enabled());
        assertThrows(IllegalStateException.class, () -> c.seal("x"));
    }

    @Test
    void malformedKeysNameTheSettingAndNeverTheKey() {
        IllegalArgumentException shortKey = assertThrows(IllegalArgumentException.class,
                () -> new SecretCipher(Optional.of(Base64.getEncoder().encodeToString(new byte[16])), "k1", List.of()));
        assertTrue(shortKey.getMessage().startsWith("tapline.secrets.encryption-key must be 32 bytes"), shortKey.getMessage());
        IllegalArgumentException notBase64 = assertThrows(IllegalArgumentException.class,
                () -> new SecretCipher(Optional.of("not base64 !!"), "k1", List.of()));
        assertFalse(notBase64.getMessage().contains("not base64 !!"));
        assertThrows(IllegalArgumentException.class, () -> new SecretCipher(Optional.of(key()), "bad id", List.of()));
        assertThrows(IllegalArgumentException.class, () -> new SecretCipher(Optional.empty(), "k1", List.of("nokey")));
    }
}
