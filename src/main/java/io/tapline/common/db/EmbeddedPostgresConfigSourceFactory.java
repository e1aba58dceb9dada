package io.tapline.common.db;

import io.smallrye.config.ConfigSourceContext;
import static io.tapline.common.config.ConfigSourceSupport.isBuildTime;
import static io.tapline.common.config.ConfigSourceSupport.value;
import io.smallrye.config.ConfigSourceFactory;
import io.tapline.common.config.StartupSettings;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.common.MapBackedConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Starts the embedded PostgreSQL before the datasource is created, when
 * {@code tapline.database.embedded=true} (env {@code TAPLINE_DATABASE_EMBEDDED}), and supplies
 * {@code quarkus.datasource.jdbc.url}, username and password for it at ordinal 275 (above
 * {@code application.properties}, below environment variables and system properties).
 *
 * <p>Registered through {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}. It only
 * acts when the runtime configuration is built (never during the Quarkus build), and does nothing
 * when embedded mode is off and a datasource URL is configured. With neither, the service refuses
 * to start with {@link #NO_DATABASE} (together with every other missing setting, see
 * {@link StartupSettings}). When another process holds the data directory (dev mode and the
 * packaged service share {@code .tapline/pgdata}), the start stops with one sentence naming the
 * directory and {@code TAPLINE_DATABASE_EMBEDDED_DIR}; dev mode exits instead of retrying.
 */
public class EmbeddedPostgresConfigSourceFactory implements ConfigSourceFactory {

    /** Config key of the switch. */
    public static final String EMBEDDED_KEY = "tapline.database.embedded";
    /** Config key of the data directory kept between restarts. */
    public static final String DIR_KEY = "tapline.database.embedded-dir";
    /** Config key of the TCP port (0 = any free port). */
    public static final String PORT_KEY = "tapline.database.embedded-port";

    private static final String URL_KEY = "quarkus.datasource.jdbc.url";
    /** The one sentence printed when the service has no database to use. */
    public static final String NO_DATABASE = "No database configured: set QUARKUS_DATASOURCE_JDBC_URL"
            + " (with QUARKUS_DATASOURCE_USERNAME and QUARKUS_DATASOURCE_PASSWORD) to use your PostgreSQL,"
            + " or TAPLINE_DATABASE_EMBEDDED=true to run an embedded one.";

    /**
     * True when neither embedded mode nor a datasource URL is configured (outside the test
     * profile, whose test resource supplies the database later).
     */
    public static boolean databaseMissing(ConfigSourceContext context) {
        return !Boolean.parseBoolean(value(context, EMBEDDED_KEY, "false")) && value(context, URL_KEY, "").isEmpty()
                && !context.getProfiles().contains("test");
    }

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (isBuildTime()) {
            return List.of();
        }
        StartupSettings.check(context);
        if (!Boolean.parseBoolean(value(context, EMBEDDED_KEY, "false"))) {
            return List.of();
        }
        Path dir = Path.of(value(context, DIR_KEY, ".tapline/pgdata"));
        int port = Integer.parseInt(value(context, PORT_KEY, "0"));
        String url;
        try {
            url = EmbeddedDatabase.start(dir, port);
        } catch (EmbeddedDatabase.DirectoryInUseException e) {
            if (context.getProfiles().contains("dev")) {
                // Dev mode would show an error page and retry on every reload; one sentence and out.
                System.err.println(e.getMessage());
                System.exit(1);
            }
            throw new ConfigValidationException(new ConfigValidationException.Problem[] {
                    new ConfigValidationException.Problem(e.getMessage())});
        }
        return List.of(new MapBackedConfigSource("tapline-embedded-postgres", Map.of(
                URL_KEY, url,
                "quarkus.datasource.username", EmbeddedDatabase.USER,
                "quarkus.datasource.password", EmbeddedDatabase.USER), 275) {
        });
    }


}
