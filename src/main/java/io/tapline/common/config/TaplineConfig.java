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

        /**
         * A replica that cannot store a run's heartbeat stops the run's processes two thirds of
         * {@link #heartbeatTimeout()} after the last stored one (SIGTERM, the terminate grace), and
         * sends SIGKILL to whatever still runs at the latest this long before the timeout, so that
         * no process of the run is alive when another replica may take the run over. Start-up
         * refuses values that leave no room for that (docs/operations.md, "Fencing").
         */
        @WithDefault("2s")
        Duration fenceKillMargin();

        /** How often every replica looks for runs with a lost heartbeat. */
        @WithDefault("10s")
        Duration reaperInterval();

        /** Target state lines are persisted at most this often during a run (always at the end). */
        @WithDefault("1s")
        Duration statePersistInterval();

        /** Time between SIGTERM and SIGKILL when a run is cancelled, times out or the service stops. */
        @WithDefault("10s")
        Duration terminateGrace();

        /**
         * On service shutdown (SIGTERM), the time running connectors get between SIGTERM and SIGKILL
         * to flush and print their last state; unset: {@link #terminateGrace()}. The service then
         * stores the last acknowledged state and marks the runs CANCELLED ("service shutdown"), so
         * keep it well below the pod's terminationGracePeriodSeconds.
         */
        Optional<Duration> shutdownGrace();

        /**
         * How long the end of a run keeps retrying to store the final state and the run's outcome
         * while the database is unreachable (checkpoints during the run are retried at every
         * persist interval anyway). On service shutdown the retries stop at the shutdown deadline.
         */
        @WithDefault("60s")
        Duration stateStoreRetry();

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

        /**
         * Further variables of the service's environment that {@code ${env:NAME}} references in plugin
         * config may read (their values are masked in run logs). Unset: only the inherited ones;
         * {@code ${NAME}} and {@code $NAME} never read beyond the inherited ones.
         */
        Optional<List<String>> envReferences();

        /**
         * User (name or uid) that Singer connectors run as, through {@code setpriv}, when the service
         * runs as root: they then cannot read the service's environment ({@code /proc/<pid>/environ})
         * or files. Unset: connectors run as the service's user.
         */
        Optional<String> runAsUser();

        /**
         * How runs of pipelines with {@code executor: singer} execute: {@code singer} (processes on
         * the replica that claims them) or {@code kubernetes} (one Job per run). Pipelines with
         * {@code executor: kubernetes} or {@code meltano} are not affected.
         */
        @WithDefault("singer")
        String defaultExecutor();

        /**
         * Set by the {@code run <run-id>} sub-command (runner mode, one run then exit); never set it
         * by hand. In runner mode no HTTP server, scheduler or dispatcher runs.
         */
        @WithDefault("false")
        boolean singleRun();
    }

    /** The {@code kubernetes} executor: each run in its own Job, created by the replica that claims it. */
    interface Kubernetes {
        /** Namespace of the runs' Jobs, pods and Secrets; unset: the client's (the service's own). */
        Optional<String> namespace();

        /** Image of the runner pods (the service's image with the connectors layered); required by the executor. */
        Optional<String> image();

        /** Image pull policy of the runner pods. */
        @WithDefault("IfNotPresent")
        String imagePullPolicy();

        /** Service account of the runner pods. */
        @WithDefault("tapline-runner")
        String serviceAccount();

        /** Image pull secrets of the runner pods (names of existing Secrets). */
        Optional<List<String>> imagePullSecrets();

        /**
         * Existing Secret holding the database credentials of the runner pods, by reference: keys
         * {@code QUARKUS_DATASOURCE_JDBC_URL}, {@code QUARKUS_DATASOURCE_USERNAME},
         * {@code QUARKUS_DATASOURCE_PASSWORD}, mounted as files (one per key, read as configuration),
         * never passed as environment variables.
         */
        @WithDefault("tapline-db")
        String databaseSecret();

        /**
         * User that connectors run as inside the runner pods ({@code uid}, {@code uid:gid}, or a name
         * the runner image knows): the runner then runs as root with only CHOWN, DAC_OVERRIDE, KILL,
         * SETGID and SETUID, reads the database Secret (mode 0400) and the run's Secret, and starts
         * connectors through {@code setpriv} as this user, who can read neither, nor the runner's
         * environment or memory. Unset: the runner and its connectors share the image's non-root
         * user, so connectors can read the credentials file.
         */
        Optional<String> connectorUser();

        /** CPU request of the runner container (Kubernetes quantity). */
        @WithDefault("250m")
        String cpuRequest();

        /** Memory request (and limit) of the runner container (Kubernetes quantity). */
        @WithDefault("512Mi")
        String memory();

        /** CPU limit of the runner container; unset: none. */
        Optional<String> cpuLimit();

        /** Node selector of the runner pods, {@code key=value} pairs. */
        Optional<List<String>> nodeSelector();

        /**
         * Tolerations of the runner pods: {@code key=value:Effect} or {@code key:Effect}
         * ({@code Exists}) items.
         */
        Optional<List<String>> tolerations();

        /** {@code ttlSecondsAfterFinished} of the Jobs: how long a finished Job (and its Secret) stays. */
        @WithDefault("3600")
        int ttlSecondsAfterFinished();

        /**
         * {@code activeDeadlineSeconds} of a Job whose pipeline has no {@code timeoutSeconds};
         * pipelines with a timeout get the timeout plus two minutes.
         */
        @WithDefault("86400")
        long defaultDeadlineSeconds();

        /** Settings of the runner container besides the database: {@code NAME=value} pairs (not secrets). */
        Optional<List<String>> env();
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

    /**
     * The events outbox ({@link io.tapline.events.OutboxWriter}) and its delivery
     * ({@link io.tapline.events.delivery.DeliveryWorker}): state warnings computed when a run ends,
     * and how deliveries are retried. docs/events.md describes the events.
     */
    interface Events {
        /**
         * Successful runs with records whose state did not change, in a row, after which a state
         * counts as not advancing; a pipeline's {@code stateNotAdvancingRuns} overrides it.
         */
        @WithDefault("3")
        int notAdvancingRuns();

        /** A stored state larger than this (bytes, UTF-8 JSON) raises {@code state.large}. */
        @WithDefault("1048576")
        long stateLargeBytes();

        /** A state that grew by more than this factor in one run raises {@code state.large}... */
        @WithDefault("4")
        double stateGrowthFactor();

        /** ...when it is at least this large afterwards (bytes), so tiny states may double freely. */
        @WithDefault("65536")
        long stateGrowthMinBytes();

        /** Deliver due events from this replica (every replica may; each delivery goes out once). */
        @WithDefault("true")
        boolean deliver();

        /** How often this replica looks for due deliveries (1 s at the finest: the scheduler's resolution). */
        @WithDefault("1s")
        Duration pollInterval();

        /** Deliveries claimed per poll. */
        @WithDefault("20")
        int batchSize();

        /** Connect and response timeout of one delivery attempt. */
        @WithDefault("10s")
        Duration timeout();

        /** Delivery attempts this replica makes at once, in all. */
        @WithDefault("16")
        int maxConcurrent();

        /** Delivery attempts this replica makes at once to one receiver (host and port; OpenLineage is one). */
        @WithDefault("2")
        int maxConcurrentPerEndpoint();

        /** A claimed delivery is retried by any replica after this long (a replica died mid-attempt). */
        @WithDefault("2m")
        Duration lease();

        /** Wait after the first failed attempt; doubles with each further failure. */
        @WithDefault("30s")
        Duration backoffInitial();

        /** Longest wait between two attempts. */
        @WithDefault("1h")
        Duration backoffMax();

        /** A delivery not acknowledged within this long after its event is given up (FAILED). */
        @WithDefault("24h")
        Duration giveUpAfter();

        /** Events (and their delivery log) older than this many days are deleted. */
        @WithDefault("30")
        int keepDays();
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

    /** Managed virtual environments of plugins with a {@code pip_url}, as Meltano installs them. */
    interface Plugins {
        /** Root of the environments, {@code <dir>/<type>/<name>/venv} (Meltano: {@code .meltano/<type>/<name>/venv}); a cache each replica can rebuild. */
        @WithDefault(".tapline/plugins")
        Path dir();

        /** Interpreter that builds the environment of a plugin without its own {@code python}: a command on PATH or an absolute path. */
        @WithDefault("python3")
        String python();

        /** pip options placed before every pip_url (index, proxy, {@code --no-index}, {@code --find-links=...}); comma-separated. */
        Optional<List<String>> pipArgs();

        /**
         * Wheelhouses: directories (inside the pod: a mounted volume) or URLs of pages listing wheels
         * and sdists, each passed to pip and uv as {@code --find-links} on every install (beside
         * {@link #pipArgs()}, and to the build environments pip makes); comma-separated. With
         * {@code --no-index} in pip-args (or {@code PIP_NO_INDEX}), they are the only source: they
         * must hold every distribution the pip_urls need, and setuptools and wheel for source trees
         * and sdists (see {@link #buildIsolation()}).
         */
        Optional<List<String>> findLinks();

        /**
         * How pip builds a source tree or sdist: {@code on}, pip's default (build isolation: the
         * build's requirements, such as setuptools and wheel, are installed from the index or
         * {@link #findLinks()} into a separate build environment); {@code off}, setuptools and wheel
         * are installed into the plugin's environment first, from the wheelhouse or, failing that,
         * from the plugin's python's own site-packages, never from an index, and pip runs with
         * {@code --no-build-isolation}; {@code auto}, as {@code on}, and when pip could not get the
         * build requirements (offline, no index, a wheelhouse without them) the install is repeated
         * as {@code off}.
         */
        @WithDefault("auto")
        BuildIsolation buildIsolation();

        /** Install a plugin that a run needs and this replica has not installed, as a stage of the run. */
        @WithDefault("true")
        boolean autoInstall();

        /** Longest an install may take; it is stopped (and fails) beyond. */
        @WithDefault("15m")
        Duration installTimeout();

        /** {@code auto} (uv when on PATH, else venv + pip), {@code pip} or {@code uv}. */
        @WithDefault("auto")
        String installer();

        /** Characters of an install's output kept in its record (the newest; the run log gets every line). */
        @WithDefault("65536")
        int logMaxChars();

        /** Values of {@link #buildIsolation()}, written {@code auto}, {@code on}, {@code off}. */
        enum BuildIsolation {
            /** Isolated builds, and a build without isolation when the isolated one cannot get its requirements. */
            AUTO,
            /** Always pip's isolated builds. */
            ON,
            /** Never isolated: setuptools and wheel are put into the plugin's environment first. */
            OFF
        }
    }

    /** Catalog discovery ({@code --discover}), its cache, and {@code :test} / {@code /about} of plugins. */
    interface Catalog {
        /** Longest a {@code --discover} may take, in a run or under {@code :discover}; the tap is stopped beyond. */
        @WithDefault("10m")
        Duration discoveryTimeout();

        /** Longest a connection test ({@code :test}) or {@code --about} may take; the connector is stopped beyond. */
        @WithDefault("60s")
        Duration testTimeout();

        /**
         * Longest a plugin's {@code --about --format=json} may take when the plugin is asked for its
         * capabilities (a plugin without listed capabilities, before its first run, discovery or
         * test); beyond, it is stopped and counts as not answering.
         */
        @WithDefault("20s")
        Duration aboutTimeout();

        /**
         * Most connector probes ({@code :test}, {@code :discover}, {@code /about}) one caller has
         * running at once on this replica; 429 beyond.
         */
        @WithDefault("2")
        int probesPerCaller();

        /**
         * Most connector probes running at once on this replica, each on a thread of its own (never an
         * HTTP worker or event loop thread); 429 beyond.
         */
        @WithDefault("4")
        int maxProbes();

        /**
         * Bytes of rendered streams views ({@code GET .../streams}) kept, one per catalog version and
         * select/metadata; the least recently used go first. A view larger than this is rendered per request.
         */
        @WithDefault("33554432")
        long streamsCacheBytes();
    }
}
