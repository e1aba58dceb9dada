package io.tapline.common.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValidationException;
import io.tapline.common.db.EmbeddedPostgresConfigSourceFactory;
import io.tapline.common.security.SecurityConfigSourceFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings without which the service cannot start, checked together so that a first start
 * names every missing one in one message (instead of one per attempt): a database
 * ({@link EmbeddedPostgresConfigSourceFactory#NO_DATABASE}) and a token verification key
 * ({@link SecurityConfigSourceFactory#NO_KEY}). Both configuration source factories call
 * {@link #check} before they do anything else (the embedded PostgreSQL is not started when the
 * start would fail anyway).
 */
public final class StartupSettings {

    private StartupSettings() {
    }

    /** The sentence of each missing setting, in the order database, key; empty when none is missing. */
    public static List<String> missing(ConfigSourceContext context) {
        List<String> missing = new ArrayList<>();
        if (EmbeddedPostgresConfigSourceFactory.databaseMissing(context)) {
            missing.add(EmbeddedPostgresConfigSourceFactory.NO_DATABASE);
        }
        if (SecurityConfigSourceFactory.keyMissing(context)) {
            missing.add(SecurityConfigSourceFactory.NO_KEY);
        }
        return missing;
    }

    /**
     * Refuses the start when a required setting is missing.
     *
     * @throws ConfigValidationException with one problem whose message joins every missing setting's sentence
     */
    public static void check(ConfigSourceContext context) {
        List<String> missing = missing(context);
        if (!missing.isEmpty()) {
            throw new ConfigValidationException(new ConfigValidationException.Problem[] {
                    new ConfigValidationException.Problem(String.join(" ", missing))});
        }
    }
}
