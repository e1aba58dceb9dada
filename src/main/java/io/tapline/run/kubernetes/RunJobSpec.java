package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.tapline.common.config.TaplineConfig;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The Job and the per-run Secret of a run on the {@code kubernetes} executor, built from the
 * {@code tapline.kubernetes.*} settings (pure: no API call).
 *
 * <p>The Job {@code tapline-run-<run-id>} runs the image's entrypoint with the runner-mode
 * arguments {@code run <run-id> --job <job> --prepared /var/run/tapline/run/prepared.json}, once
 * ({@code restartPolicy: Never}, {@code backoffLimit: 0}), non-root with a read-only root
 * filesystem and emptyDir volumes for the run directory and {@code /tmp}. No secret is in its
 * environment: the database credentials come from the existing Secret
 * {@code tapline.kubernetes.database-secret} mounted read-only at {@value #DATABASE_DIR}, one file
 * per key, which the runner reads as configuration ({@value #FILE_LOCATIONS}, SmallRye's
 * file-system config source: a file {@code QUARKUS_DATASOURCE_PASSWORD} is
 * {@code quarkus.datasource.password}); the run's resolved plugin configs and secrets come from the
 * Secret {@code tapline-run-<run-id>} mounted read-only, which the Job owns (garbage-collected with it).
 *
 * <p>With {@code tapline.kubernetes.connector-user} the runner runs as root with only
 * {@link #RUNNER_CAPABILITIES}, both Secrets are mode 0400 (root's only), and the runner starts the
 * connectors as that user ({@code TAPLINE_RUNNER_RUN_AS_USER}); without it the pod runs as the
 * image's non-root user with {@code fsGroup} {@value #FS_GROUP} and the Secrets are mode 0440, so
 * that user, and the connectors with it, can read them.
 */
public final class RunJobSpec {

    /** Label of every object of a run: the run id. */
    public static final String RUN_ID = "tapline.io/run-id";
    /** Label: the pipeline name (label-safe). */
    public static final String PIPELINE = "tapline.io/pipeline";
    /** Label: the state ID (label-safe). */
    public static final String STATE_ID = "tapline.io/state-id";
    /** Label that marks the objects the service manages. */
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    /** Value of {@link #MANAGED_BY}. */
    public static final String TAPLINE = "tapline";
    /** Name of the runner container. */
    public static final String CONTAINER = "runner";
    /** Where the per-run Secret is mounted. */
    public static final String PREPARED_DIR = "/var/run/tapline/run";
    /** The key (file) of the per-run Secret. */
    public static final String PREPARED_KEY = "prepared.json";
    /** Mount of the run directory (emptyDir). */
    public static final String WORK_DIR = "/var/lib/tapline";
    /** Where the database Secret is mounted, one file per key. */
    public static final String DATABASE_DIR = "/var/run/tapline/db";
    /** The variable that points SmallRye's file-system config source at {@link #DATABASE_DIR}. */
    public static final String FILE_LOCATIONS = "SMALLRYE_CONFIG_SOURCE_FILE_LOCATIONS";
    /** The group of the Secrets' files in a pod without a connector user (the pod's {@code fsGroup}). */
    public static final long FS_GROUP = 1001;
    /**
     * What a root runner keeps with a connector user: hand the run directory over (CHOWN), reach
     * and remove it afterwards (DAC_OVERRIDE), stop the connectors (KILL), start them as that user
     * (SETGID, SETUID).
     */
    public static final List<String> RUNNER_CAPABILITIES = List.of("CHOWN", "DAC_OVERRIDE", "KILL", "SETGID", "SETUID");
    /** Seconds a pod gets after SIGTERM on top of the runner's terminate grace, to store its last state. */
    static final long STOP_MARGIN_SECONDS = 30;

    /**
     * What a Job needs from the run.
     *
     * @param runId the run
     * @param pipeline the pipeline name
     * @param stateId the state ID
     * @param timeoutSeconds the pipeline's timeout, or null
     */
    public record Launch(UUID runId, String pipeline, String stateId, Integer timeoutSeconds) {
    }

    private RunJobSpec() {
    }

    /** The Job name of a run: {@code tapline-run-<run-id>} (48 characters). */
    public static String jobName(UUID runId) {
        return "tapline-run-" + runId;
    }

    /** The labels of a run's objects. */
    public static Map<String, String> labels(Launch l) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("app.kubernetes.io/name", "tapline-runner");
        m.put(MANAGED_BY, TAPLINE);
        m.put(RUN_ID, l.runId().toString());
        m.put(PIPELINE, labelValue(l.pipeline()));
        m.put(STATE_ID, labelValue(l.stateId()));
        return m;
    }

    /**
     * The Job of a run.
     *
     * @param image the runner image
     * @param terminateGraceSeconds the runner's {@code tapline.runner.terminate-grace}, in seconds
     */
    public static Job job(Launch l, TaplineConfig.Kubernetes k, String image, long terminateGraceSeconds) {
        String name = jobName(l.runId());
        Map<String, String> labels = labels(l);
        long deadline = l.timeoutSeconds() == null ? k.defaultDeadlineSeconds() : l.timeoutSeconds() + 120L;
        List<String> args = List.of("run", l.runId().toString(), "--job", name, "--prepared",
                PREPARED_DIR + "/" + PREPARED_KEY);
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder().withName("TAPLINE_RUNNER_RUNS_DIR").withValue(WORK_DIR + "/runs").build());
        env.add(new EnvVarBuilder().withName("TAPLINE_RUNNER_LOGS_DIR").withValue(WORK_DIR + "/logs").build());
        env.add(new EnvVarBuilder().withName("HOME").withValue(WORK_DIR + "/home").build());
        env.add(new EnvVarBuilder().withName("TMPDIR").withValue("/tmp").build());
        env.add(new EnvVarBuilder().withName(FILE_LOCATIONS).withValue(DATABASE_DIR).build());
        Optional<String> connectorUser = k.connectorUser().map(String::trim).filter(u -> !u.isEmpty());
        connectorUser.ifPresent(u -> env.add(new EnvVarBuilder().withName("TAPLINE_RUNNER_RUN_AS_USER").withValue(u)
                .build()));
        for (String kv : k.env().orElse(List.of())) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.add(new EnvVarBuilder().withName(kv.substring(0, eq).trim()).withValue(kv.substring(eq + 1)).build());
            }
        }
        boolean root = connectorUser.isPresent();
        int secretMode = root ? 0400 : 0440;
        PodSecurityContext pod = root
                ? new PodSecurityContextBuilder().withRunAsNonRoot(false).withRunAsUser(0L)
                        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build()
                : new PodSecurityContextBuilder().withRunAsNonRoot(true).withFsGroup(FS_GROUP)
                        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build();
        SecurityContext container = new SecurityContextBuilder().withReadOnlyRootFilesystem(true)
                .withAllowPrivilegeEscalation(false).withRunAsNonRoot(!root).withRunAsUser(root ? 0L : null)
                .withNewCapabilities().withDrop("ALL").withAdd(root ? RUNNER_CAPABILITIES : List.of()).endCapabilities()
                .build();
        Map<String, Quantity> requests = new LinkedHashMap<>();
        requests.put("cpu", new Quantity(k.cpuRequest()));
        requests.put("memory", new Quantity(k.memory()));
        Map<String, Quantity> limits = new LinkedHashMap<>();
        limits.put("memory", new Quantity(k.memory()));
        k.cpuLimit().ifPresent(c -> limits.put("cpu", new Quantity(c)));
        return new JobBuilder()
                .withNewMetadata().withName(name).withLabels(labels)
                    .addToAnnotations("tapline.io/pipeline", l.pipeline()).addToAnnotations("tapline.io/state-id", l.stateId())
                .endMetadata()
                .withNewSpec()
                    .withBackoffLimit(0).withActiveDeadlineSeconds(deadline)
                    .withTtlSecondsAfterFinished(k.ttlSecondsAfterFinished())
                    .withNewTemplate()
                        .withNewMetadata().withLabels(labels).endMetadata()
                        .withNewSpec()
                            .withRestartPolicy("Never")
                            .withServiceAccountName(k.serviceAccount())
                            .withAutomountServiceAccountToken(false)
                            .withTerminationGracePeriodSeconds(terminateGraceSeconds + STOP_MARGIN_SECONDS)
                            .withImagePullSecrets(k.imagePullSecrets().orElse(List.of()).stream()
                                    .map(LocalObjectReference::new).toList())
                            .withNodeSelector(pairs(k.nodeSelector().orElse(List.of())))
                            .withTolerations(tolerations(k.tolerations().orElse(List.of())))
                            .withSecurityContext(pod)
                            .addNewContainer()
                                .withName(CONTAINER).withImage(image).withImagePullPolicy(k.imagePullPolicy())
                                .withArgs(args).withEnv(env)
                                .withResources(new ResourceRequirementsBuilder().withRequests(requests)
                                        .withLimits(limits).build())
                                .withSecurityContext(container)
                                .addNewVolumeMount().withName("work").withMountPath(WORK_DIR).endVolumeMount()
                                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                                .addNewVolumeMount().withName("run").withMountPath(PREPARED_DIR).withReadOnly(true)
                                    .endVolumeMount()
                                .addNewVolumeMount().withName("db").withMountPath(DATABASE_DIR).withReadOnly(true)
                                    .endVolumeMount()
                            .endContainer()
                            .addNewVolume().withName("work").withNewEmptyDir().endEmptyDir().endVolume()
                            .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
                            .addNewVolume().withName("run").withNewSecret().withSecretName(name)
                                .withDefaultMode(secretMode).endSecret().endVolume()
                            .addNewVolume().withName("db").withNewSecret().withSecretName(k.databaseSecret())
                                .withDefaultMode(secretMode).endSecret().endVolume()
                        .endSpec()
                    .endTemplate()
                .endSpec()
                .build();
    }

    /**
     * The per-run Secret (same name as the Job), owned by the created Job so that it is deleted
     * with it.
     *
     * @param job the created Job (with its uid)
     * @param prepared the prepared run's JSON (decrypted plugin secrets)
     */
    public static Secret secret(Launch l, Job job, String prepared) {
        return new SecretBuilder()
                .withNewMetadata().withName(jobName(l.runId())).withLabels(labels(l))
                    .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                            .withName(job.getMetadata().getName()).withUid(job.getMetadata().getUid())
                            .withController(false).withBlockOwnerDeletion(false).build())
                .endMetadata()
                .withType("Opaque")
                .addToData(PREPARED_KEY, Base64.getEncoder().encodeToString(prepared.getBytes(StandardCharsets.UTF_8)))
                .build();
    }

    /** A label value: at most 63 of {@code [A-Za-z0-9._-]}, starting and ending alphanumeric. */
    static String labelValue(String s) {
        String v = s == null ? "" : s.replaceAll("[^A-Za-z0-9._-]", "_");
        if (v.length() > 63) {
            v = v.substring(0, 63);
        }
        v = v.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
        return v.toLowerCase(Locale.ROOT).isEmpty() ? "none" : v;
    }

    private static Map<String, String> pairs(List<String> items) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : items) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return m;
    }

    /** {@code key=value:Effect} (Equal) or {@code key:Effect} (Exists); the effect may be left out. */
    static List<Toleration> tolerations(List<String> items) {
        List<Toleration> out = new ArrayList<>();
        for (String item : items) {
            String s = item.trim();
            String effect = null;
            int colon = s.lastIndexOf(':');
            if (colon > 0) {
                effect = s.substring(colon + 1).trim();
                s = s.substring(0, colon);
            }
            int eq = s.indexOf('=');
            TolerationBuilder b = new TolerationBuilder().withEffect(effect == null || effect.isEmpty() ? null : effect);
            if (eq > 0) {
                b.withKey(s.substring(0, eq).trim()).withOperator("Equal").withValue(s.substring(eq + 1).trim());
            } else {
                b.withKey(s.trim()).withOperator("Exists");
            }
            out.add(b.build());
        }
        return out;
    }
}
