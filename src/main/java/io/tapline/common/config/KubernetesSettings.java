package io.tapline.common.config;

import io.smallrye.config.WithDefault;

import java.util.List;
import java.util.Optional;

/**
 * The {@code kubernetes} executor: each run in its own Job, created by the replica that claims it.
 *
 * <p>Mapped under {@code tapline.kubernetes} as {@link TaplineConfig.Kubernetes}.
 */
public interface KubernetesSettings {
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
