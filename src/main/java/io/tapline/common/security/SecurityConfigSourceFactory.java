package io.tapline.common.security;

import io.smallrye.config.ConfigSourceContext;
import static io.tapline.common.config.ConfigSourceSupport.isBuildTime;
import static io.tapline.common.config.ConfigSourceSupport.value;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.tapline.common.config.StartupSettings;
import io.smallrye.config.common.MapBackedConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.List;
import java.util.Map;

/**
 * Settles where token verification keys come from before anything starts:
 * <ul>
 *   <li>the key is the dev key pair ({@link DevKeys#LOCATION}, set by the dev profile in
 *   application.properties): the pair is created unless it exists;</li>
 *   <li>another key is configured ({@code mp.jwt.verify.publickey}, {@code mp.jwt.verify.publickey.location},
 *   {@code smallrye.jwt.verify.key.location} or {@code smallrye.jwt.verify.secretkey}; {@code NONE}, the
 *   placeholder Quarkus's dev services write, does not count): nothing to do;</li>
 *   <li>{@code tapline.security.enabled=false}: the service binds to {@value #LOOPBACK} unless
 *   {@code quarkus.http.host} is set explicitly (then it warns at start, see {@link SecurityStartup});</li>
 *   <li>no key in the dev profile: the key pair of {@link DevKeys} is created or reused and
 *   supplied, with issuer {@value DevKeys#ISSUER}, at ordinal 275;</li>
 *   <li>any other profile: the service refuses to start with {@link #NO_KEY}, together with every
 *   other missing setting ({@link StartupSettings}).</li>
 * </ul>
 * Registered through {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}; does nothing
 * during the Quarkus build.
 */
public class SecurityConfigSourceFactory implements ConfigSourceFactory {

    /** The one sentence printed when the service has no way to verify tokens. */
    public static final String NO_KEY = "No token verification key configured: set MP_JWT_VERIFY_PUBLICKEY_LOCATION"
            + " (a PEM or JWK file, or your identity provider's JWKS URL) or MP_JWT_VERIFY_PUBLICKEY (the key itself),"
            + " and MP_JWT_VERIFY_ISSUER; or TAPLINE_SECURITY_ENABLED=false to run without authentication"
            + " (local use only).";

    static final List<String> KEY_SETTINGS = List.of("mp.jwt.verify.publickey", "mp.jwt.verify.publickey.location",
            "smallrye.jwt.verify.key.location", "smallrye.jwt.verify.secretkey");

    /** Host the service binds to when authentication is off and {@code quarkus.http.host} is not set. */
    public static final String LOOPBACK = "127.0.0.1";

    /**
     * True when tokens are checked, no verification key is configured, and the profile is not dev
     * (which generates one). Runner mode ({@code tapline.runner.single-run}) serves no HTTP and
     * needs no key.
     */
    public static boolean keyMissing(ConfigSourceContext context) {
        if (!Boolean.parseBoolean(value(context, "tapline.security.enabled", "true"))
                || context.getProfiles().contains("dev")
                || Boolean.parseBoolean(value(context, "tapline.runner.single-run", "false"))) {
            return false;
        }
        for (String key : KEY_SETTINGS) {
            String v = value(context, key, "");
            if (!v.isEmpty() && !v.equals("NONE")) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code quarkus.http.host} is set by the operator (any configuration source, not a default). */
    static boolean hostSetExplicitly(ConfigSourceContext context) {
        ConfigValue v = context.getValue("quarkus.http.host");
        return v != null && v.getValue() != null && !v.getValue().isBlank() && v.getSourceOrdinal() > 0;
    }

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (isBuildTime()) {
            return List.of();
        }
        StartupSettings.check(context);
        if (!Boolean.parseBoolean(value(context, "tapline.security.enabled", "true"))) {
            if (hostSetExplicitly(context)) {
                return List.of();
            }
            return List.of(new MapBackedConfigSource("tapline-security-off-loopback",
                    Map.of("quarkus.http.host", LOOPBACK), 275) {
            });
        }
        if (context.getProfiles().contains("dev")
                && DevKeys.isDevLocation(value(context, "mp.jwt.verify.publickey.location", ""))) {
            DevKeys.ensure();
            return List.of();
        }
        for (String key : KEY_SETTINGS) {
            String v = value(context, key, "");
            if (!v.isEmpty() && !v.equals("NONE")) {
                return List.of();
            }
        }
        if (context.getProfiles().contains("dev")) {
            DevKeys.ensure();
            return List.of(new MapBackedConfigSource("tapline-dev-keys", Map.of(
                    "mp.jwt.verify.publickey.location", "file:" + DevKeys.publicKey(),
                    "mp.jwt.verify.issuer", value(context, "mp.jwt.verify.issuer", DevKeys.ISSUER)), 275) {
            });
        }
        return List.of();
    }
}
