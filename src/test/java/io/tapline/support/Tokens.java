package io.tapline.support;

import io.smallrye.jwt.build.Jwt;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;

/**
 * Bearer tokens for tests, signed with the test key pair under {@code src/test/resources/security}
 * whose public key the {@code %test} profile trusts, with the {@code %test} issuer.
 */
public final class Tokens {

    /** Issuer the {@code %test} profile requires ({@code mp.jwt.verify.issuer}). */
    public static final String ISSUER = "https://tapline.test/issuer";
    /** Subject of {@link #admin()}, which becomes the actor of every change the tests make. */
    public static final String ADMIN_SUBJECT = "test-admin";

    private static final Path PRIVATE_KEY = Path.of("src/test/resources/security/test-jwt-private.pem");
    private static String admin;

    private Tokens() {
    }

    /** An admin token valid for a day (made once per test JVM). */
    public static synchronized String admin() {
        if (admin == null) {
            admin = of(ADMIN_SUBJECT, "admin");
        }
        return admin;
    }

    /** A token of {@code subject} with the given groups, valid for an hour. */
    public static String of(String subject, String... groups) {
        return Jwt.issuer(ISSUER).subject(subject).groups(Set.of(groups)).expiresIn(86400).sign(privateKey());
    }

    /** An admin token that expired 20 minutes ago (beyond the verifier's clock skew). */
    public static String expired() {
        Instant now = Instant.now();
        return Jwt.issuer(ISSUER).subject("late-admin").groups(Set.of("admin"))
                .issuedAt(now.minusSeconds(3600)).expiresAt(now.minusSeconds(1200)).sign(privateKey());
    }

    /** An admin token signed by a key the service does not trust. */
    public static String foreignKey() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return Jwt.issuer(ISSUER).subject("intruder").groups(Set.of("admin")).expiresIn(3600)
                    .sign(g.generateKeyPair().getPrivate());
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code Authorization} header value for a token. */
    public static String bearer(String token) {
        return "Bearer " + token;
    }

    /** The test issuer's signing key, for tokens with unusual claims. */
    public static PrivateKey privateKey() {
        try {
            String pem = Files.readString(PRIVATE_KEY, StandardCharsets.US_ASCII);
            String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the test signing key " + PRIVATE_KEY, e);
        }
    }
}
