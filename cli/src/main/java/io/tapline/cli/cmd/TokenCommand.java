package io.tapline.cli.cmd;

import io.tapline.cli.CliException;
import io.tapline.cli.ExitCodes;
import io.tapline.cli.out.Term;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code tapline token}: what the service jar's {@code token} sub-command does
 * ({@code io.tapline.common.security.TokenCommand}, README "Configuration"), without starting the
 * service jar: makes the local key pair in {@code .tapline/dev-keys} unless it exists (RSA 2048,
 * private key PKCS#8 PEM of mode 0600, public key X.509 PEM; the pair dev mode uses), and prints a
 * token signed with it (RS256, issuer {@value #ISSUER}, the same claims: {@code iss}, {@code sub},
 * {@code upn}, {@code groups}, {@code iat}, {@code exp}, {@code jti}). Talks to no service.
 * {@code TokenCommandParityTest} checks that both make the same token.
 */
@Command(name = "token", description = "Print a token for a local service that trusts .tapline/dev-keys (makes the"
        + " key pair if missing); the service jar's token command.", footerHeading = "%nExamples:%n",
        footer = {"  export TAPLINE_TOKEN=$(tapline token --role operator --days 7)",
                "  tapline token --role viewer --subject alice"})
public final class TokenCommand implements Callable<Integer> {

    /** Issuer of local tokens, what the service's dev profile requires ({@code DevKeys.ISSUER}). */
    public static final String ISSUER = "tapline-dev";
    private static final int MAX_DAYS = 3650;

    @Option(names = "--role", defaultValue = "admin", paramLabel = "ROLE", description = "admin (default), operator or viewer.")
    String role;

    @Option(names = "--days", defaultValue = "365", paramLabel = "N", description = "Valid for N days (1 to 3650; default 365).")
    int days;

    @Option(names = "--subject", paramLabel = "NAME",
            description = "The actor recorded for this token's changes (default local-ROLE: local-admin,"
                    + " local-operator or local-viewer).")
    String subject;

    @Option(names = "--keys-dir", defaultValue = ".tapline/dev-keys", paramLabel = "DIR",
            description = "The key pair's directory (default .tapline/dev-keys, as the service's).")
    Path dir;

    @Override
    public Integer call() {
        if (!List.of("admin", "operator", "viewer").contains(role)) {
            throw CliException.usage("--role must be admin, operator or viewer, not '" + role + "'.");
        }
        if (days < 1 || days > MAX_DAYS) {
            throw CliException.usage("--days must be a whole number from 1 to " + MAX_DAYS + ".");
        }
        if (subject == null) {
            subject = "local-" + role;
        }
        if (!subject.matches("[A-Za-z0-9._@-]{1,100}")) {
            throw CliException.usage("--subject must be 1 to 100 letters, digits, '.', '_', '@' or '-'.");
        }
        Path priv = dir.resolve("private.pem").toAbsolutePath();
        Path pub = dir.resolve("public.pem").toAbsolutePath();
        try {
            ensure(priv, pub);
            String token = sign(readPrivateKey(priv), subject, role, Instant.now(), Duration.ofDays(days));
            Term.out().println(token);
            Term.err().printf("Token for '%s' (role %s, valid %d days), signed with the key pair in %s.%n"
                            + "Start the service so that it trusts this key, for example:%n"
                            + "  TAPLINE_DATABASE_EMBEDDED=true MP_JWT_VERIFY_PUBLICKEY_LOCATION=file:%s"
                            + " MP_JWT_VERIFY_ISSUER=%s java -jar target/quarkus-app/quarkus-run.jar%n",
                    subject, role, days, pub.getParent(), pub, ISSUER);
            return ExitCodes.OK;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw new CliException(ExitCodes.FAILED, "Cannot make a token with the key pair in " + dir + ": "
                    + e.getMessage() + ".");
        }
    }

    /**
     * A compact JWS (RS256) with Tapline's claims; seconds since the epoch for {@code iat} and
     * {@code exp}.
     */
    static String sign(PrivateKey key, String subject, String role, Instant now, Duration lifetime)
            throws GeneralSecurityException {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String claims = "{\"iss\":\"" + ISSUER + "\",\"sub\":\"" + subject + "\",\"upn\":\"" + subject
                + "\",\"groups\":[\"" + role + "\"],\"iat\":" + now.getEpochSecond() + ",\"exp\":"
                + now.plus(lifetime).getEpochSecond() + ",\"jti\":\"" + UUID.randomUUID() + "\"}";
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String signingInput = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(key);
        s.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + b64.encodeToString(s.sign());
    }

    private static void ensure(Path priv, Path pub) throws IOException, GeneralSecurityException {
        if (Files.isRegularFile(priv) && Files.isRegularFile(pub)) {
            return;
        }
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair pair = g.generateKeyPair();
        Files.createDirectories(priv.getParent());
        write(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()), true);
        write(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()), false);
    }

    private static PrivateKey readPrivateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static void write(Path file, String content, boolean secret) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (secret && FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, content, StandardCharsets.US_ASCII);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
