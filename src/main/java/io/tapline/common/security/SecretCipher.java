package io.tapline.common.security;

import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * AES-256-GCM encryption of sensitive plugin values at rest, with key rotation. A sealed value is
 * the text {@code enc:v1:<keyId>:<base64(iv | ciphertext | tag)>}: a 12-byte random IV, the
 * ciphertext of the UTF-8 plaintext, and the 16-byte GCM tag; the prefix {@code enc:v1:<keyId>}
 * is authenticated as associated data, so a ciphertext cannot be relabelled with another key id.
 *
 * <p>New values are sealed with the current key ({@code tapline.secrets.encryption-key}, id
 * {@code tapline.secrets.encryption-key-id}); values sealed with a key listed in
 * {@code tapline.secrets.old-keys} still open. Without a current key nothing is sealed. Error
 * messages name key ids, never values or keys.
 */
@ApplicationScoped
public class SecretCipher {

    /** Prefix of every sealed value. */
    public static final String PREFIX = "enc:v1:";
    /** Allowed key ids. */
    public static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String currentId;
    private final SecretKey current;
    private final Map<String, SecretKey> keys;

    @Inject
    public SecretCipher(TaplineConfig config) {
        this(config.secrets().encryptionKey(), config.secrets().encryptionKeyId(),
                config.secrets().oldKeys().orElse(List.of()));
    }

    /**
     * @param key base64 of 32 bytes, or empty for "no encryption"
     * @param keyId id of {@code key}
     * @param oldKeys {@code id=base64} entries of earlier keys
     * @throws IllegalArgumentException naming the setting when a key or id is malformed
     */
    public SecretCipher(Optional<String> key, String keyId, List<String> oldKeys) {
        Map<String, SecretKey> all = new LinkedHashMap<>();
        for (String entry : oldKeys) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("tapline.secrets.old-keys: each entry must be id=base64-key");
            }
            String id = e.substring(0, eq).trim();
            checkId("tapline.secrets.old-keys", id);
            all.put(id, decodeKey("tapline.secrets.old-keys (" + id + ")", e.substring(eq + 1).trim()));
        }
        if (key.isPresent() && !key.get().isBlank()) {
            checkId("tapline.secrets.encryption-key-id", keyId);
            this.currentId = keyId;
            this.current = decodeKey("tapline.secrets.encryption-key", key.get().trim());
            all.put(keyId, current);
        } else {
            this.currentId = null;
            this.current = null;
        }
        this.keys = Map.copyOf(all);
    }

    /** True when a current key is configured, so {@link #seal} encrypts. */
    public boolean enabled() {
        return current != null;
    }

    /** True when {@code value} is a sealed value ({@code enc:v1:...}). */
    public static boolean isSealed(String value) {
        return value != null && value.startsWith(PREFIX);
    }

    /** The key id of a sealed value, or null when it is not one. */
    public static String keyIdOf(String value) {
        if (!isSealed(value)) {
            return null;
        }
        int colon = value.indexOf(':', PREFIX.length());
        return colon < 0 ? null : value.substring(PREFIX.length(), colon);
    }

    /** True when {@code value} is sealed with a key other than the current one (re-seal on save). */
    public boolean needsReseal(String value) {
        return current != null && isSealed(value) && !currentId.equals(keyIdOf(value));
    }

    /**
     * Encrypts {@code plaintext} with the current key.
     *
     * @return {@code enc:v1:<keyId>:<base64>}
     * @throws IllegalStateException when no key is configured
     */
    public String seal(String plaintext) {
        if (current == null) {
            throw new IllegalStateException("no encryption key is configured (tapline.secrets.encryption-key)");
        }
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        String prefix = PREFIX + currentId + ":";
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, current, new GCMParameterSpec(TAG_BITS, iv));
            c.updateAAD(prefix.getBytes(StandardCharsets.US_ASCII));
            byte[] ct = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            byte[] out = ByteBuffer.allocate(iv.length + ct.length).put(iv).put(ct).array();
            return prefix + Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available: " + e.getClass().getSimpleName());
        }
    }

    /**
     * Decrypts a sealed value.
     *
     * @param sealed {@code enc:v1:<keyId>:<base64>}
     * @return the plaintext
     * @throws SecretException naming the key id when the key is unknown or the value was altered
     */
    public String open(String sealed) {
        String id = keyIdOf(sealed);
        if (id == null) {
            throw new SecretException("is not an encrypted value");
        }
        SecretKey key = keys.get(id);
        if (key == null) {
            throw new SecretException("is encrypted with key '" + id + "', which is not configured (set it as"
                    + " tapline.secrets.encryption-key or list it in tapline.secrets.old-keys)");
        }
        String prefix = PREFIX + id + ":";
        byte[] data;
        try {
            data = Base64.getDecoder().decode(sealed.substring(prefix.length()));
        } catch (IllegalArgumentException e) {
            throw new SecretException("is not a valid encrypted value (bad base64)");
        }
        if (data.length < IV_BYTES + TAG_BITS / 8) {
            throw new SecretException("is not a valid encrypted value (too short)");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, 0, IV_BYTES));
            c.updateAAD(prefix.getBytes(StandardCharsets.US_ASCII));
            byte[] pt = c.doFinal(data, IV_BYTES, data.length - IV_BYTES);
            return new String(pt, StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new SecretException("cannot be decrypted with key '" + id + "' (wrong key, or the value was altered)");
        } catch (GeneralSecurityException e) {
            throw new SecretException("cannot be decrypted with key '" + id + "'");
        }
    }

    private static void checkId(String setting, String id) {
        if (id == null || !KEY_ID.matcher(id).matches()) {
            throw new IllegalArgumentException(setting + ": a key id must be 1 to 64 letters, digits, '-' or '_'");
        }
    }

    private static SecretKey decodeKey(String setting, String base64) {
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting + " must be base64 (e.g. the output of `openssl rand -base64 32`)");
        }
        if (raw.length != 32) {
            throw new IllegalArgumentException(setting + " must be 32 bytes (256 bits) in base64; it has " + raw.length
                    + " bytes");
        }
        return new SecretKeySpec(raw, "AES");
    }

    /** A sealed value that cannot be opened; the message says why, naming the key id only. */
    public static class SecretException extends RuntimeException {
        /** @param message what is wrong, phrased to follow the setting's name */
        public SecretException(String message) {
            super(message);
        }
    }
}
