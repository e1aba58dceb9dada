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

    /** Secret references in plugin config. */
    Secrets secrets();

    /** The demo pipeline seeded for local use. */
    Demo demo();

    /** Schedule ticker settings. */
    Scheduler scheduler();

    /** Pruning of old run history. */
    Retention retention();

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

    /** Where {@code ${secret:NAME}} references are read from. */
    interface Secrets {
        /** Directory of secret files (a mounted Kubernetes Secret); {@code ${secret:NAME}} reads {@code <dir>/NAME}. */
        Optional<Path> dir();
    }

    /** The demo of the README (on by default in dev mode). */
    interface Demo {
        /** Seed the demo plugins and pipeline at start when they do not exist. */
        @WithDefault("false")
        boolean enabled();

        /** Directory holding {@code tap-demo/}, {@code target-demo/} and {@code data/}. */
        @WithDefault("examples")
        Path examplesDir();

        /** Where the demo's input CSV and output files live. */
        @WithDefault(".tapline/demo")
        Path workDir();
    }

    /**
     * How scheduled runs are fired. Every replica runs the ticker; a unique index on
     * {@code (pipeline_id, scheduled_for)} keeps one run per pipeline and tick across the cluster.
     */
    interface Scheduler {
        /** Fire scheduled runs on this replica. Off, the replica still serves the API and runs queued runs. */
        @WithDefault("true")
        boolean enabled();

        /**
         * Longest time between two ticks. The ticker also wakes up at the next due fire time, so
         * this is a safety net rather than the firing precision.
         */
        @WithDefault("1s")
        Duration tickInterval();

        /**
         * How often each replica compares its in-memory schedules with the database (pipeline
         * versions), so that changes made through another replica take effect without a restart.
         * Changes made through this replica take effect at once.
         */
        @WithDefault("30s")
        Duration resyncInterval();

        /**
         * A tick noticed later than this after its instant (for example after a long pause of
         * the process) is not fired; missed ticks are never replayed, except for one catch-up run
         * when a pipeline's policy asks for it.
         */
        @WithDefault("60s")
        Duration misfireGrace();
    }

    /**
     * Pruning of old run history ({@code pipeline_run} rows) by {@link io.tapline.run.RunRetention}.
     * A terminal run (SUCCEEDED, FAILED, CANCELLED, SKIPPED) is deleted when it was created more
     * than {@code keep-days} ago and is not among the {@code keep-min-runs-per-pipeline} newest
     * runs of its pipeline. Active runs and Singer state (and its history) are never touched.
     */
    interface Retention {
        /** Runs created within this many days are kept. */
        @WithDefault("90")
        int keepDays();

        /** The newest runs of each pipeline (by name) that are kept whatever their age. */
        @WithDefault("100")
        int keepMinRunsPerPipeline();

        /** Runs deleted per transaction; each batch is its own short transaction. */
        @WithDefault("5000")
        int batchSize();

        /** How often each replica prunes (replicas split the work: rows locked by another are skipped). */
        @WithDefault("1h")
        Duration interval();
    }
}
