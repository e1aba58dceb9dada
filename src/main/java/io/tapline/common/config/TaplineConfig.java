package io.tapline.common.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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

    /** Run engine settings. */
    Runner runner();

    /** State store settings. */
    State state();

    /** Secret references in plugin config, and encryption of sensitive values at rest. */
    Secrets secrets();

    /** Authentication switch and hardening of what plugins may start. */
    Security security();

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

    /** How runs are claimed, executed, watched and cleaned up. */
    interface Runner {
        /** Name of this replica in {@code ownerInstance}; default: host name plus a random suffix. */
        Optional<String> instanceId();

        /** Where private run directories (0700) are created; each is deleted after its run. */
        @WithDefault(".tapline/runs")
        Path runsDir();

        /** Where run logs are written (one file per run; the tail is also kept in the database). */
        @WithDefault(".tapline/logs")
        Path logsDir();

        /** Runs this replica executes at once; further claims wait. 0 disables running on this replica. */
        @WithDefault("4")
        int maxConcurrentRuns();

        /** How often a replica looks for queued runs (it also looks at once when it queues one itself). */
        @WithDefault("1s")
        Duration pollInterval();

        /** How often a replica refreshes the heartbeat of its runs and checks cancel requests. */
        @WithDefault("2s")
        Duration heartbeatInterval();

        /** A RUNNING run whose heartbeat is older than this is failed ("heartbeat lost") by any replica. */
        @WithDefault("60s")
        Duration heartbeatTimeout();

        /** How often every replica looks for runs with a lost heartbeat. */
        @WithDefault("10s")
        Duration reaperInterval();

        /** Target state lines are persisted at most this often during a run (always at the end). */
        @WithDefault("1s")
        Duration statePersistInterval();

        /** Time between SIGTERM and SIGKILL when a run is cancelled, times out or the service stops. */
        @WithDefault("10s")
        Duration terminateGrace();

        /** Longest accepted Singer message line, in bytes; a longer line fails the run. */
        @WithDefault("134217728")
        long maxLineLength();

        /** Bytes of each run log kept in the database (the tail). */
        @WithDefault("1048576")
        int logTailBytes();

        /** Largest run log file on disk, in bytes; beyond it, lines are dropped and counted. */
        @WithDefault("104857600")
        long logMaxBytes();

        /** Variables of the service's own environment passed on to connector processes. */
        @WithDefault("PATH,HOME,LANG,LC_ALL,TZ,TMPDIR,PYTHONPATH,VIRTUAL_ENV,SSL_CERT_FILE,REQUESTS_CA_BUNDLE")
        List<String> inheritEnv();
    }

    /** The Meltano-compatible state store and its file mirror. */
    interface State {
        /**
         * Root of a Meltano local-filesystem state backend ({@code state_backend.uri: file:///<dir>})
         * that Tapline keeps in sync: every change of a state ID rewrites {@code <dir>/<id>/state.json}.
         * Unset: no mirror.
         */
        Optional<Path> mirrorDir();

        /** Directories an admin may import a Meltano backend directory from (besides the mirror). */
        Optional<List<Path>> importDirs();

        /** Age after which a Meltano lock file is stale (Meltano's {@code lock_timeout_seconds}). */
        @WithDefault("10s")
        Duration lockTimeout();

        /** Largest accepted state body, in bytes (413 beyond). */
        @WithDefault("16777216")
        int maxBodyBytes();
    }

    /** Where {@code ${secret:NAME}} references are read from, and how sensitive values are encrypted at rest. */
    interface Secrets {
        /** Directory of secret files (a mounted Kubernetes Secret); {@code ${secret:NAME}} reads {@code <dir>/NAME}. */
        Optional<Path> dir();

        /**
         * AES-256 key (base64 of 32 bytes) that encrypts the values of sensitive settings in the
         * database ({@code enc:v1:<keyId>:...}). Unset: sensitive values are stored as sent.
         */
        Optional<String> encryptionKey();

        /** Identifier written into each ciphertext made with {@link #encryptionKey()}; letters, digits, '-' and '_'. */
        @WithDefault("k1")
        String encryptionKeyId();

        /**
         * Earlier keys that still decrypt, as {@code id=base64} entries ({@code k0=AAAA...,kx=BBBB...});
         * values they encrypted are re-encrypted with the current key when their plugin is next saved.
         */
        Optional<List<String>> oldKeys();
    }

    /** Authentication and what plugins may start. */
    interface Security {
        /**
         * Require a bearer token on {@code /api/v1}. {@code false} lets every caller act as admin
         * (local use only: the service logs a warning at start).
         */
        @WithDefault("true")
        boolean enabled();

        /**
         * Directories that plugin executables given as absolute paths must lie in, and that a
         * command name must resolve to on PATH when a run starts. Unset: any executable (the
         * service warns at start in the prod profile).
         */
        Optional<List<Path>> executableDirs();
    }
}
