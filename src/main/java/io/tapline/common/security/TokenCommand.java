package io.tapline.common.security;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * {@code java -jar quarkus-run.jar token [--role admin|operator|viewer] [--days N] [--subject NAME]}:
 * the local path to a first authenticated call without an identity provider. The subject (the
 * actor the audit trail records) is {@code local-<role>} unless {@code --subject} names one. Creates the key pair
 * of {@link DevKeys} in {@value DevKeys#DIR} unless it exists (the one dev mode uses), prints a
 * signed token (RS256, issuer {@value DevKeys#ISSUER}) on stdout, and on stderr the two settings
 * that make a packaged service trust the key. Needs no database and starts no service.
 *
 * <p>Plain JDK code (no configuration, no CDI), so it runs before Quarkus would start.
 */
public final class TokenCommand {

    /** The sub-command name, the first argument. */
    public static final String NAME = "token";
    /** Default token lifetime, in days. */
    public static final int DEFAULT_DAYS = 365;
    private static final int MAX_DAYS = 3650;
    private static final String USAGE = "Usage: java -jar quarkus-run.jar token [--role admin|operator|viewer]"
            + " [--days 1.." + MAX_DAYS + "] [--subject NAME]";

    private TokenCommand() {
    }

    /**
     * Runs the command.
     *
     * @param args the arguments after {@code token}
     * @param out receives the token alone (for {@code export TOKEN=$(...)})
     * @param err receives the explanation, or the usage on bad arguments
     * @return the exit code: 0, 2 for bad arguments, 1 when the key pair cannot be made or read
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String role = Roles.ADMIN;
        int days = DEFAULT_DAYS;
        String subject = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                err.println(USAGE);
                return 0;
            }
            if (i + 1 >= args.length || !List.of("--role", "--days", "--subject").contains(a)) {
                err.println("Unknown or incomplete argument '" + a + "'. " + USAGE);
                return 2;
            }
            String v = args[++i];
            switch (a) {
                case "--role" -> role = v;
                case "--days" -> days = parseDays(v);
                default -> subject = v;
            }
        }
        if (!List.of(Roles.ADMIN, Roles.OPERATOR, Roles.VIEWER).contains(role)) {
            err.println("--role must be admin, operator or viewer, not '" + role + "'. " + USAGE);
            return 2;
        }
        if (days < 1 || days > MAX_DAYS) {
            err.println("--days must be a whole number from 1 to " + MAX_DAYS + ". " + USAGE);
            return 2;
        }
        if (subject == null) {
            subject = defaultSubject(role);
        }
        if (!subject.matches("[A-Za-z0-9._@-]{1,100}")) {
            err.println("--subject must be 1 to 100 letters, digits, '.', '_', '@' or '-'. " + USAGE);
            return 2;
        }
        try {
            DevKeys.ensure();
            String token = sign(DevKeys.readPrivateKey(), subject, role, Instant.now(), Duration.ofDays(days));
            out.println(token);
            err.printf("Token for '%s' (role %s, valid %d days), signed with the key pair in %s.%n"
                            + "Start the service so that it trusts this key, for example:%n"
                            + "  TAPLINE_DATABASE_EMBEDDED=true MP_JWT_VERIFY_PUBLICKEY_LOCATION=file:%s"
                            + " MP_JWT_VERIFY_ISSUER=%s java -jar target/quarkus-app/quarkus-run.jar%n"
                            + "then: curl -H \"Authorization: Bearer $TOKEN\" localhost:8080/api/v1/pipelines%n",
                    subject, role, days, DevKeys.publicKey().getParent(), DevKeys.publicKey(), DevKeys.ISSUER);
            return 0;
        } catch (Exception e) {
            err.println("Cannot make a token: " + e.getMessage());
            return 1;
        }
    }

    /**
     * The subject of a token made without {@code --subject}: {@code local-admin},
     * {@code local-operator} or {@code local-viewer}, so the audit trail tells them apart.
     */
    public static String defaultSubject(String role) {
        return "local-" + role;
    }

    private static int parseDays(String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * A compact JWS (RS256) with the claims Tapline reads: {@code iss}, {@code sub}, {@code upn},
     * {@code groups}, {@code iat}, {@code exp} (seconds since the epoch) and a random {@code jti}.
     */
    static String sign(PrivateKey key, String subject, String role, Instant now, Duration lifetime)
            throws java.security.GeneralSecurityException {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String claims = "{\"iss\":\"" + DevKeys.ISSUER + "\",\"sub\":\"" + subject + "\",\"upn\":\"" + subject
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
}
