package io.tapline.common.security;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.jwt.build.Jwt;
import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;

/**
 * Security checks and notices at start:
 * <ul>
 *   <li>a loud warning when authentication is off ({@code tapline.security.enabled=false}), and another
 *   when {@code quarkus.http.host} then names a non-loopback address (the service binds to
 *   {@value SecurityConfigSourceFactory#LOOPBACK} in that mode unless the host is set explicitly);</li>
 *   <li>in the prod profile, warnings when plugins may start any executable
 *   ({@code tapline.security.executable-dirs} unset) or sensitive values are stored unencrypted
 *   ({@code tapline.secrets.encryption-key} unset), and when runner pods of the {@code kubernetes} executor
 *   would share their user with their connectors ({@code tapline.kubernetes.connector-user} unset);</li>
 *   <li>a malformed encryption key stops the start with a message naming the setting;</li>
 *   <li>in dev mode with the generated key pair ({@link DevKeys}), an admin token valid for
 *   {@link #DEV_TOKEN_DAYS} days is logged with a curl example and written to {@value #DEV_TOKEN_FILE}.</li>
 * </ul>
 */
@ApplicationScoped
public class SecurityStartup {

    private static final Logger LOG = Logger.getLogger(SecurityStartup.class);
    /** Lifetime of the dev-mode admin token, in days. */
    public static final int DEV_TOKEN_DAYS = 365;
    /** File the dev-mode admin token is written to (mode 0600). */
    public static final String DEV_TOKEN_FILE = ".tapline/dev-token";

    private final TaplineConfig config;
    private final SecretCipher cipher;

    public SecurityStartup(TaplineConfig config, SecretCipher cipher) {
        this.config = config;
        this.cipher = cipher;
    }

    void onStart(@Observes StartupEvent event) {
        boolean encrypting = cipher.enabled(); // fails the start when the key is malformed
        if (!config.security().enabled()) {
            LOG.warn("**************************************************************************************");
            LOG.warn("AUTHENTICATION IS OFF (tapline.security.enabled=false): every caller acts as admin.");
            LOG.warn("For local use only. Never expose this service to a network in this mode.");
            LOG.warn("**************************************************************************************");
            String host = ConfigProvider.getConfig().getOptionalValue("quarkus.http.host", String.class).orElse("");
            if (!isLoopback(host)) {
                LOG.warnf("quarkus.http.host=%s is set explicitly: this service without authentication is reachable"
                        + " from other hosts. Unset it to listen on %s only.", host,
                        SecurityConfigSourceFactory.LOOPBACK);
            }
        }
        if (LaunchMode.current() == LaunchMode.NORMAL) {
            if (config.security().executableDirs().map(java.util.List::isEmpty).orElse(true)) {
                LOG.warn("tapline.security.executable-dirs is not set: plugins may start any executable on this host;"
                        + " set it (TAPLINE_SECURITY_EXECUTABLE_DIRS) to the directories that hold your connectors.");
            }
            if (!encrypting) {
                LOG.warn("tapline.secrets.encryption-key is not set: values of sensitive plugin settings are stored"
                        + " unencrypted in the database; set TAPLINE_SECRETS_ENCRYPTION_KEY (base64 of 32 random bytes)"
                        + " or give them as ${env:...}/${secret:...} references.");
            }
            if (config.kubernetes().image().isPresent() && !config.runner().singleRun()
                    && config.kubernetes().connectorUser().map(String::isBlank).orElse(true)) {
                LOG.warn("tapline.kubernetes.connector-user is not set: connectors in runner pods run as the runner's"
                        + " user and can read its database credentials; set TAPLINE_KUBERNETES_CONNECTOR_USER (for"
                        + " example 1001) where runner pods may run as root with a few capabilities.");
            }
        }
        if (LaunchMode.current() == LaunchMode.DEVELOPMENT && config.security().enabled() && usesDevKeys()) {
            printDevToken();
        }
    }

    /** True for hosts that only this machine reaches (127.0.0.0/8, ::1, localhost). */
    static boolean isLoopback(String host) {
        String h = host.trim();
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
    }

    private static boolean usesDevKeys() {
        return ConfigProvider.getConfig().getOptionalValue("mp.jwt.verify.publickey.location", String.class)
                .map(DevKeys::isDevLocation).orElse(false);
    }

    private void printDevToken() {
        try {
            String issuer = ConfigProvider.getConfig().getOptionalValue("mp.jwt.verify.issuer", String.class)
                    .orElse(DevKeys.ISSUER);
            String token = Jwt.issuer(issuer).subject("dev-admin").upn("dev-admin")
                    .groups(Set.of(Roles.ADMIN)).expiresIn(Duration.ofDays(DEV_TOKEN_DAYS))
                    .sign(DevKeys.readPrivateKey());
            Path file = Path.of(DEV_TOKEN_FILE).toAbsolutePath();
            Files.deleteIfExists(file);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, token + "\n", StandardCharsets.US_ASCII);
            int port = ConfigProvider.getConfig().getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
            LOG.infof("Dev mode: admin token (valid %d days, signed with the dev key in %s), also in %s:%n%s%n"
                            + "Try: export TOKEN=$(cat %s)%n     curl -H \"Authorization: Bearer $TOKEN\" localhost:%d/api/v1/pipelines",
                    DEV_TOKEN_DAYS, DevKeys.DIR, DEV_TOKEN_FILE, token, DEV_TOKEN_FILE, port);
        } catch (Exception e) {
            LOG.warnf("Dev mode: could not make an admin token: %s", e.getMessage());
        }
    }
}
