package io.tapline.plugin.install;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One install of a plugin's pip_url into its virtual environment on one replica. Status moves
 * RUNNING -> SUCCEEDED or RUNNING -> FAILED only (guarded updates in {@link PluginInstallRepository}).
 */
@Entity
@Table(name = "plugin_install")
public class PluginInstall {

    /** Status of an install. */
    public enum Status {
        RUNNING, SUCCEEDED, FAILED
    }

    /** What asked for it. */
    public enum Trigger {
        /** {@code POST /api/v1/plugins/{type}/{name}:install}. */
        API,
        /** A run whose plugin was not installed on its replica. */
        RUN
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "plugin_id", nullable = false)
    public Long pluginId;

    @Column(name = "plugin_type", nullable = false, length = 16)
    public String pluginType;

    @Column(name = "plugin_name", nullable = false, length = 100)
    public String pluginName;

    /** The replica (instance id) that installs. */
    @Column(name = "instance_id", nullable = false, length = 255)
    public String instanceId;

    /** The environment's path on that replica ({@code <plugins dir>/<type>/<name>/venv}). */
    @Column(nullable = false)
    public String environment;

    @Column(nullable = false, length = 8)
    @jakarta.persistence.Enumerated(jakarta.persistence.EnumType.STRING)
    public Trigger trigger;

    /** The run that needed it (trigger RUN), else null. */
    @Column(name = "run_id")
    public UUID runId;

    @Column(nullable = false, length = 16)
    @jakarta.persistence.Enumerated(jakarta.persistence.EnumType.STRING)
    public Status status;

    /** The pip_url installed, credentials in URLs masked. */
    @Column(name = "pip_url", nullable = false)
    public String pipUrl;

    /** The interpreter that built the environment. */
    @Column(nullable = false, length = 4096)
    public String python;

    /** {@link PluginEnvironment#fingerprint} of the pip_url and python. */
    @Column(nullable = false, length = 64)
    public String fingerprint;

    /** The distribution providing the executable, once known. */
    @Column(length = 200)
    public String distribution;

    @Column(name = "dist_version", length = 100)
    public String distVersion;

    /** {@code installation} when it failed, else null. */
    @Column(name = "failure_type", length = 32)
    public String failureType;

    /** Why it failed (pip's last error lines), else null. */
    public String reason;

    /** The newest part of the output (masked). */
    @Column(nullable = false)
    public String log = "";

    @Column(name = "requested_by", length = 200)
    public String requestedBy;

    @Column(name = "started_at", nullable = false)
    public OffsetDateTime startedAt;

    @Column(name = "ended_at")
    public OffsetDateTime endedAt;

    /** Last refresh by the JVM running it (every {@code tapline.runner.heartbeat-interval}) while RUNNING. */
    @Column(name = "heartbeat_at")
    public OffsetDateTime heartbeatAt;
}
