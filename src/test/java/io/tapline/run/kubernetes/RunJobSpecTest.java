package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.tapline.common.config.TaplineConfig;
import io.tapline.invocation.FailureType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Job and per-run Secret of {@link RunJobSpec}, and the pod failures of {@link PodFailure}. */
class RunJobSpecTest {

    private static final UUID RUN = UUID.fromString("01a23133-eb8a-7087-b2b1-2bd3e7b9b0b0");

    @Test
    void theJobRunsTheRunnerOnceNonRootWithTheSettings() {
        RunJobSpec.Launch l = new RunJobSpec.Launch(RUN, "orders", "prod:tap-orders-to-target-pg", 600);
        Job job = RunJobSpec.job(l, settings(), "registry/tapline-connectors:1", 60);
        assertEquals("tapline-run-" + RUN, job.getMetadata().getName());
        assertEquals(0, job.getSpec().getBackoffLimit());
        assertEquals(720L, job.getSpec().getActiveDeadlineSeconds(), "timeout + 120 s");
        assertEquals(1800, job.getSpec().getTtlSecondsAfterFinished());
        assertEquals(Map.of("app.kubernetes.io/name", "tapline-runner", "app.kubernetes.io/managed-by", "tapline",
                RunJobSpec.RUN_ID, RUN.toString(), RunJobSpec.PIPELINE, "orders",
                RunJobSpec.STATE_ID, "prod_tap-orders-to-target-pg"), job.getMetadata().getLabels());
        assertEquals("prod:tap-orders-to-target-pg", job.getMetadata().getAnnotations().get("tapline.io/state-id"));
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertEquals("Never", pod.getRestartPolicy());
        assertEquals("runner-sa", pod.getServiceAccountName());
        assertFalse(pod.getAutomountServiceAccountToken());
        assertEquals(90L, pod.getTerminationGracePeriodSeconds(), "runner grace + 30 s to store the state");
        assertEquals("pull-secret", pod.getImagePullSecrets().get(0).getName());
        assertEquals(Map.of("pool", "runs"), pod.getNodeSelector());
        assertEquals(List.of(new Toleration("NoSchedule", "dedicated", "Equal", null, "runs"),
                new Toleration(null, "spot", "Exists", null, null)), pod.getTolerations());
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        Container c = pod.getContainers().get(0);
        assertEquals("registry/tapline-connectors:1", c.getImage());
        assertEquals(List.of("run", RUN.toString(), "--job", "tapline-run-" + RUN, "--prepared",
                "/var/run/tapline/run/prepared.json"), c.getArgs());
        assertTrue(c.getCommand() == null || c.getCommand().isEmpty(), "the image's entrypoint runs the jar");
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        // The database Secret is a volume of files the runner reads as configuration, never variables.
        assertTrue(c.getEnvFrom() == null || c.getEnvFrom().isEmpty(), "" + c.getEnvFrom());
        assertTrue(c.getEnv().stream().allMatch(e -> e.getValueFrom() == null), "" + c.getEnv());
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals(RunJobSpec.FILE_LOCATIONS)
                && e.getValue().equals(RunJobSpec.DATABASE_DIR)));
        assertEquals(1001L, pod.getSecurityContext().getFsGroup(), "the image's user reads the Secrets by group");
        assertEquals(List.of(), c.getSecurityContext().getCapabilities().getAdd());
        assertTrue(c.getEnv().stream().noneMatch(e -> e.getName().equals("TAPLINE_RUNNER_RUN_AS_USER")));
        assertEquals("1Gi", c.getResources().getLimits().get("memory").toString());
        assertEquals("500m", c.getResources().getRequests().get("cpu").toString());
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("TAPLINE_RUNNER_RUNS_DIR")
                && e.getValue().equals("/var/lib/tapline/runs")));
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("FOO") && e.getValue().equals("a=b")));
        assertEquals(List.of("work", "tmp", "run", "db"), pod.getVolumes().stream().map(v -> v.getName()).toList());
        assertEquals("tapline-run-" + RUN, pod.getVolumes().get(2).getSecret().getSecretName());
        assertEquals("db-creds", pod.getVolumes().get(3).getSecret().getSecretName());
        assertEquals(0440, pod.getVolumes().get(3).getSecret().getDefaultMode());
        assertTrue(c.getVolumeMounts().get(2).getReadOnly());
        assertEquals(RunJobSpec.DATABASE_DIR, c.getVolumeMounts().get(3).getMountPath());
        assertTrue(c.getVolumeMounts().get(3).getReadOnly());
    }

    /**
     * Issue 31 item 5: with a connector user the runner is root with five capabilities, the Secrets
     * are its alone (0400), and the connectors run as that user.
     */
    @Test
    void withAConnectorUserTheRunnerAloneReadsTheSecretsAndConnectorsRunAsThatUser() {
        RunJobSpec.Launch l = new RunJobSpec.Launch(RUN, "orders", "s", null);
        Job job = RunJobSpec.job(l, settings(Optional.of("1001")), "img", 60);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().get(0);
        assertFalse(pod.getSecurityContext().getRunAsNonRoot());
        assertEquals(0L, pod.getSecurityContext().getRunAsUser());
        assertEquals(0L, c.getSecurityContext().getRunAsUser());
        assertFalse(c.getSecurityContext().getRunAsNonRoot());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertEquals(List.of("CHOWN", "DAC_OVERRIDE", "KILL", "SETGID", "SETUID"),
                c.getSecurityContext().getCapabilities().getAdd());
        assertEquals(List.of(0400, 0400), pod.getVolumes().stream().filter(v -> v.getSecret() != null)
                .map(v -> v.getSecret().getDefaultMode()).toList());
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("TAPLINE_RUNNER_RUN_AS_USER")
                && e.getValue().equals("1001")));
        assertTrue(c.getEnvFrom() == null || c.getEnvFrom().isEmpty());
    }

    @Test
    void theSecretHoldsThePreparedRunAndIsOwnedByTheJob() {
        RunJobSpec.Launch l = new RunJobSpec.Launch(RUN, "p", "s", null);
        Job job = RunJobSpec.job(l, settings(), "img", 10);
        assertEquals(86400L, job.getSpec().getActiveDeadlineSeconds(), "no timeout: the default deadline");
        job.getMetadata().setUid("uid-1");
        Secret s = RunJobSpec.secret(l, job, "{\"password\":\"hunter2\"}");
        assertEquals("uid-1", s.getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals("Job", s.getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals("{\"password\":\"hunter2\"}", new String(Base64.getDecoder().decode(
                s.getData().get("prepared.json")), StandardCharsets.UTF_8));
        assertFalse(Serialization.asJson(job).contains("hunter2"));
    }

    @Test
    void labelValuesAreShortenedAndCleaned() {
        assertEquals("none", RunJobSpec.labelValue("::"));
        assertEquals(63, RunJobSpec.labelValue("a".repeat(80)).length());
        assertEquals("dev_tap-a-to-b_x", RunJobSpec.labelValue("dev:tap-a-to-b:x"));
    }

    @Test
    void podFailuresCarryKubernetesReasons() {
        Pod pull = pod().editStatus().addNewContainerStatus().withName("runner").withNewState().withNewWaiting()
                .withReason("ImagePullBackOff").withMessage("Back-off pulling image \"x\"").endWaiting().endState()
                .endContainerStatus().endStatus().build();
        PodFailure f = PodFailure.of(pull).orElseThrow();
        assertEquals(FailureType.CONFIGURATION, f.type());
        assertEquals("ImagePullBackOff: pod p-1 cannot start its container (Back-off pulling image \"x\")", f.reason());

        Pod oom = pod().editStatus().withPhase("Failed").addNewContainerStatus().withName("runner").withNewState()
                .withNewTerminated().withReason("OOMKilled").withExitCode(137).endTerminated().endState()
                .endContainerStatus().endStatus().build();
        assertEquals(new PodFailure(FailureType.RESOURCE, "OOMKilled: pod p-1 ran out of memory"
                + " (tapline.kubernetes.memory)"), PodFailure.of(oom).orElseThrow());
        assertEquals(137, PodFailure.exitCode(oom));

        Pod evicted = pod().editStatus().withPhase("Failed").withReason("Evicted")
                .withMessage("The node was low on resource: memory.").endStatus().build();
        assertEquals("Evicted: pod p-1 was evicted (The node was low on resource: memory.)",
                PodFailure.of(evicted).orElseThrow().reason());

        Pod unschedulable = pod().editStatus().addNewCondition().withType("PodScheduled").withStatus("False")
                .withReason("Unschedulable").withMessage("0/3 nodes are available: 3 Insufficient memory.")
                .endCondition().endStatus().build();
        assertEquals(new PodFailure(FailureType.RESOURCE, "Unschedulable: pod p-1 cannot be scheduled"
                + " (0/3 nodes are available: 3 Insufficient memory.)"), PodFailure.of(unschedulable).orElseThrow());

        Pod exited = pod().editStatus().withPhase("Failed").addNewContainerStatus().withName("runner").withNewState()
                .withNewTerminated().withReason("Error").withExitCode(1).endTerminated().endState()
                .endContainerStatus().endStatus().build();
        assertEquals(Optional.empty(), PodFailure.of(exited), "the runner records its own end");
        assertEquals(Optional.empty(), PodFailure.of(pod().build()));
    }

    private static PodBuilder pod() {
        return new PodBuilder().withNewMetadata().withName("p-1").endMetadata().withNewStatus().withPhase("Pending")
                .endStatus();
    }

    private static TaplineConfig.Kubernetes settings() {
        return settings(Optional.empty());
    }

    private static TaplineConfig.Kubernetes settings(Optional<String> connectorUser) {
        return new TaplineConfig.Kubernetes() {
            public Optional<String> namespace() { return Optional.empty(); }
            public Optional<String> image() { return Optional.of("img"); }
            public String imagePullPolicy() { return "IfNotPresent"; }
            public String serviceAccount() { return "runner-sa"; }
            public Optional<List<String>> imagePullSecrets() { return Optional.of(List.of("pull-secret")); }
            public String databaseSecret() { return "db-creds"; }
            public String cpuRequest() { return "500m"; }
            public String memory() { return "1Gi"; }
            public Optional<String> cpuLimit() { return Optional.empty(); }
            public Optional<List<String>> nodeSelector() { return Optional.of(List.of("pool=runs")); }
            public Optional<List<String>> tolerations() {
                return Optional.of(List.of("dedicated=runs:NoSchedule", "spot"));
            }
            public int ttlSecondsAfterFinished() { return 1800; }
            public long defaultDeadlineSeconds() { return 86400; }
            public Optional<List<String>> env() { return Optional.of(List.of("FOO=a=b")); }
            public Optional<String> connectorUser() { return connectorUser; }
        };
    }
}
