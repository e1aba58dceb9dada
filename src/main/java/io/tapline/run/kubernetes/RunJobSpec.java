package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
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
import java.util.UUID;

/**
 * The Job and the per-run Secret of a run on the {@code kubernetes} executor, built from the
 * {@code tapline.kubernetes.*} settings (pure: no API call).
 *
 * <p>The Job {@code tapline-run-<run-id>} runs the image's entrypoint with the runner-mode
 * arguments {@code run <run-id> --job <job> --prepared /var/run/tapline/run/prepared.json}, once
 * ({@code restartPolicy: Never}, {@code backoffLimit: 0}), non-root with a read-only root
 * filesystem and emptyDir volumes for the run directory and {@code /tmp}. The database
 * credentials come from the existing Secret {@code tapline.kubernetes.database-secret}
 * ({@code envFrom}); the run's resolved plugin configs and secrets come from the Secret
 * {@code tapline-run-<run-id>} mounted read-only, which the Job owns (garbage-collected with it).
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
        for (String kv : k.env().orElse(List.of())) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                env.add(new EnvVarBuilder().withName(kv.substring(0, eq).trim()).withValue(kv.substring(eq + 1)).build());
            }
        }
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
                            .withNewSecurityContext().withRunAsNonRoot(true)
                                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                            .endSecurityContext()
                            .addNewContainer()
                                .withName(CONTAINER).withImage(image).withImagePullPolicy(k.imagePullPolicy())
                                .withArgs(args).withEnv(env)
                                .addNewEnvFrom().withNewSecretRef().withName(k.databaseSecret()).endSecretRef().endEnvFrom()
                                .withResources(new ResourceRequirementsBuilder().withRequests(requests)
                                        .withLimits(limits).build())
                                .withNewSecurityContext().withReadOnlyRootFilesystem(true)
                                    .withAllowPrivilegeEscalation(false).withRunAsNonRoot(true)
                                    .withNewCapabilities().withDrop("ALL").endCapabilities()
                                .endSecurityContext()
                                .addNewVolumeMount().withName("work").withMountPath(WORK_DIR).endVolumeMount()
                                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount()
                                .addNewVolumeMount().withName("run").withMountPath(PREPARED_DIR).withReadOnly(true)
                                    .endVolumeMount()
                            .endContainer()
                            .addNewVolume().withName("work").withNewEmptyDir().endEmptyDir().endVolume()
                            .addNewVolume().withName("tmp").withNewEmptyDir().endEmptyDir().endVolume()
                            .addNewVolume().withName("run").withNewSecret().withSecretName(name)
                                .withDefaultMode(0400).endSecret().endVolume()
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
