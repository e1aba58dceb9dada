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

    /** The demo pipeline seeded for local use. */
    Demo demo();

    /** Schedule ticker settings. */
    Scheduler scheduler();

    /** Authentication switch and hardening of what plugins may start. */
    Security security();

    /** The meltano.yml import, assessment and export. */
    Projects projects();

    /** The Meltano-CLI executor ({@code executor: meltano} pipelines). */
    Meltano meltano();

    /** Pruning of old run history. */
    Retention retention();

    // --- Events out (issue 21): the outbox, its delivery, webhooks and OpenLineage ---

    /** Run and state events: state warnings and the delivery of the outbox. */
    Events events();

    /** Webhook subscriptions: which hosts they may call. */
    Webhooks webhooks();

    /** OpenLineage run events. */
    OpenLineage openlineage();

    /** Managed installs of plugins that have a pip_url (io.tapline.plugin.install). */
    Plugins plugins();

    /** The catalog cache, catalog discovery and connection tests (io.tapline.catalog). */
    Catalog catalog();

    /** The {@code kubernetes} executor: runs as Jobs. */
    Kubernetes kubernetes();

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

        /** Most followers ({@code GET /api/v1/runs/{id}/log?follow=true}) of one run on this replica; 429 beyond. */
        @WithDefault("200")
        int logFollowersPerRun();

        /** Most run logs one caller (token subject) follows at once on this replica; 429 beyond. */
        @WithDefault("20")
        int logFollowersPerCaller();

        /** Most run log followers on this replica in total; 429 beyond. */
        @WithDefault("2000")
        int maxLogFollowers();

        /** Longest time a request body may take to arrive; slower uploads get 408 and their connection is closed. */
        @WithDefault("60s")
        Duration bodyTimeout();

        /** Most request bodies one caller (bearer token, else client address) may send at once; 429 beyond. */
        @WithDefault("32")
        int maxUploadsPerCaller();

        /**
         * Size in bytes from which a read is a large read: a state whose stored text (completed plus
         * partial) is larger, a history page whose entries are; the state export and an extractor's
         * streams always are. History pages are loaded at most this much at a time.
         */
        @WithDefault("1048576")
        long largeReadBytes();

        /** Most large reads one caller (token subject, else client address) has answered at once; 429 beyond. */
        @WithDefault("2")
        int largeReadsPerCaller();

        /** Most large reads this replica answers at once; 429 beyond. */
        @WithDefault("4")
        int maxLargeReads();
    }

    /** The {@code tapline.runner.*} settings, declared in {@link RunnerSettings}. */
    interface Runner extends RunnerSettings {
    }

    /** The {@code tapline.kubernetes.*} settings, declared in {@link KubernetesSettings}. */
    interface Kubernetes extends KubernetesSettings {
    }

    /** The Meltano-compatible state store and its file mirror. */
    interface State {
        /**
         * Root of a Meltano local-filesystem state backend ({@code state_backend.uri: file:///<dir>})
         * shared with Meltano both ways: every change of a state ID rewrites {@code <dir>/<id>/state.json},
         * and a file changed there by Meltano is imported (source MELTANO). Unset: no mirror.
         */
        Optional<Path> mirrorDir();

        /** Directories an admin may import a Meltano backend directory from (besides the mirror). */
        Optional<List<Path>> importDirs();

        /** Age after which a Meltano lock file is stale (Meltano's {@code lock_timeout_seconds}). */
        @WithDefault("10s")
        Duration lockTimeout();

        /**
         * How often every replica scans the mirror directory for {@code state.json} files changed
         * outside Tapline (by Meltano) and imports them; writes and runs also check first.
         */
        @WithDefault("30s")
        Duration mirrorScanInterval();

        /** Largest accepted request body of the API, in bytes, with a Content-Length or chunked (413 beyond). */
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

    /** Limits and paths of {@code POST /api/v1/projects:import}. */
    interface Projects {
        /**
         * Directory that relative plugin executables ({@code executable: ./tap.py}) are resolved
         * against; unset: such executables are rejected.
         */
        Optional<Path> baseDir();

        /** Largest accepted meltano.yml, in characters (SnakeYAML's code point limit). */
        @WithDefault("1048576")
        int maxDocumentChars();

        /** Most aliases of collections a document may use (SnakeYAML {@code maxAliasesForCollections}). */
        @WithDefault("50")
        int maxAliases();

        /** Deepest nesting of collections (SnakeYAML {@code nestingDepthLimit}). */
        @WithDefault("50")
        int maxDepth();

        /** Most nodes the document may have once aliases are expanded (against alias bombs). */
        @WithDefault("200000")
        int maxNodes();

        /**
         * Most characters of keys and values the document may have once aliases are expanded (one
         * large value referenced many times passes the alias and node limits).
         */
        @WithDefault("2097152")
        long maxExpandedChars();
    }

    /** How {@code meltano run} is started for {@code executor: meltano} pipelines. */
    interface Meltano {
        /** The {@code meltano} program: a command on PATH or an absolute path. */
        @WithDefault("meltano")
        String executable();

        /**
         * Root of the file state backend ({@code MELTANO_STATE_BACKEND_URI=file://<dir>}) through
         * which state is handed to Meltano and read back; unset: a private directory per run.
         */
        Optional<Path> stateBackendDir();

        /**
         * Directories a pipeline's {@code meltanoProjectDir} must lie in (checked at create/update and
         * when a run starts). Unset: any absolute path.
         */
        Optional<List<Path>> projectDirs();

        /**
         * Directories a pipeline's own {@code meltanoStateBackendDir} must lie in: the service creates,
         * writes (0600) and cleans state files there. Unset: no pipeline may name one.
         */
        Optional<List<Path>> stateBackendRoots();
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

    /** The {@code tapline.events.*} settings, declared in {@link EventsSettings}. */
    interface Events extends EventsSettings {
    }

    /** Webhook subscriptions ({@code /api/v1/webhooks}). */
    interface Webhooks {
        /**
         * Hosts webhook URLs may name: host names ({@code hooks.slack.com}), {@code *.example.com},
         * IP addresses or CIDR ranges. Unset: any host whose every address is public (no loopback,
         * private, link-local, CGNAT, multicast or cloud metadata address), checked at create and
         * at each delivery. Set: only the listed hosts, whatever they resolve to.
         */
        Optional<List<String>> allowedHosts();
    }

    /** OpenLineage run events, delivered through the outbox. */
    interface OpenLineage {
        /** Base URL of the OpenLineage backend (Marquez: {@code http://marquez:5000}); unset: none sent. */
        Optional<java.net.URI> url();

        /** Path appended to the URL. */
        @WithDefault("/api/v1/lineage")
        String endpoint();

        /** Namespace of the jobs (one job per pipeline). */
        @WithDefault("tapline")
        String namespace();

        /** Sent as {@code Authorization: Bearer <key>} when set. */
        Optional<String> apiKey();
    }

    /** The {@code tapline.plugins.*} settings, declared in {@link PluginsSettings}. */
    interface Plugins extends PluginsSettings {
    }

    /** The {@code tapline.catalog.*} settings, declared in {@link CatalogSettings}. */
    interface Catalog extends CatalogSettings {
    }
}
