package io.tapline.common.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;

/**
 * Typed root of every {@code tapline.*} setting. Each key maps to an environment variable by the
 * usual MicroProfile rule ({@code tapline.api.max-page-size} = {@code TAPLINE_API_MAX_PAGE_SIZE}).
 * The configuration table in README.md lists them all.
 */
@ConfigMapping(prefix = "tapline")
public interface TaplineConfig {

    /** Database settings. */
    Database database();

    /** REST API settings. */
    Api api();

    /** Database wiring. */
    interface Database {
        /**
         * Start an embedded PostgreSQL and use it (local use). Read by
         * {@link io.tapline.common.db.EmbeddedPostgresConfigSourceFactory} before the datasource exists.
         */
        @WithDefault("false")
        boolean embedded();

        /** Data directory of the embedded PostgreSQL, kept between restarts. */
        @WithDefault(".tapline/pgdata")
        Path embeddedDir();

        /** Port of the embedded PostgreSQL on 127.0.0.1; 0 picks a free port. */
        @WithDefault("0")
        int embeddedPort();

        /** Schema that holds every Tapline table (never beside Meltano's own tables). */
        @WithDefault("tapline")
        String schema();
    }

    /** REST API limits. */
    interface Api {
        /** Page size of list endpoints when {@code limit} is not given. */
        @WithDefault("50")
        int defaultPageSize();

        /** Largest accepted {@code limit}; larger values are a 400. */
        @WithDefault("500")
        int maxPageSize();
    }
}
