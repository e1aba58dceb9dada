package io.tapline.common.config;

import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How runs are claimed, executed, watched and cleaned up.
 *
 * <p>Mapped under {@code tapline.runner} as {@link TaplineConfig.Runner}.
 */
public interface RunnerSettings {
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
