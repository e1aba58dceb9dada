package io.tapline.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tapline.common.config.TaplineConfig;
import io.tapline.run.kubernetes.RunJobSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code jobs} overlay (the kubernetes executor): the service's ServiceAccount is bound to a
 * namespaced Role granting exactly what {@link io.tapline.run.kubernetes.RunJobs} calls (jobs,
 * pods, pods/log, secrets), nothing cluster-wide anywhere under {@code k8s/}; the runner's
 * ServiceAccount exists, may call no API, and is the one the ConfigMap names; the ConfigMap turns
 * the executor on with an image and the database Secret. Parsing and the unknown-field check of
 * every document are {@link KubernetesManifestsTest}'s.
 */
class KubernetesJobsManifestsTest {

    private static final Path JOBS = Path.of("k8s/overlays/jobs");
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void theServiceMayManageRunJobsInItsNamespaceOnly() throws IOException {
        Role role = one(JOBS.resolve("rbac.yaml"), "Role", Role.class);
        RoleBinding binding = one(JOBS.resolve("rbac.yaml"), "RoleBinding", RoleBinding.class);
        assertEquals("Role", binding.getRoleRef().getKind());
        assertEquals(role.getMetadata().getName(), binding.getRoleRef().getName());
        Deployment d = one(Path.of("k8s/base/deployment.yaml"), "Deployment", Deployment.class);
        String serviceAccount = d.getSpec().getTemplate().getSpec().getServiceAccountName();
        assertEquals(1, binding.getSubjects().size());
        assertEquals("ServiceAccount", binding.getSubjects().get(0).getKind());
        assertEquals(serviceAccount, binding.getSubjects().get(0).getName());
        assertEquals(null, binding.getSubjects().get(0).getNamespace(), "the binding's own namespace");

        assertEquals(Set.of("create", "get", "list", "watch", "delete"), verbs(role, "batch", "jobs"));
        assertEquals(Set.of("get", "list", "watch"), verbs(role, "", "pods"));
        assertEquals(Set.of("get"), verbs(role, "", "pods/log"));
        assertEquals(Set.of("create", "get", "delete"), verbs(role, "", "secrets"));
        Set<String> resources = new TreeSet<>();
        role.getRules().forEach(r -> resources.addAll(r.getResources()));
        assertEquals(new TreeSet<>(Set.of("jobs", "pods", "pods/log", "secrets")), resources, "nothing else");
        role.getRules().forEach(r -> assertFalse(r.getVerbs().contains("*") || r.getResources().contains("*"), "" + r));

        try (Stream<Path> walk = Files.walk(Path.of("k8s"))) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                for (JsonNode doc : docs(f)) {
                    String kind = doc.path("kind").asText();
                    assertFalse(kind.startsWith("Cluster"), f + ": " + kind + " is cluster-wide");
                }
            }
        }
        ServiceAccount sa = one(JOBS.resolve("serviceaccount-patch.yaml"), "ServiceAccount", ServiceAccount.class);
        assertEquals(serviceAccount, sa.getMetadata().getName());
        assertTrue(sa.getAutomountServiceAccountToken(), "the service needs its token to call the API");
    }

    @Test
    void theRunnersHaveTheirOwnAccountAndTheConfigMapTurnsTheExecutorOn() throws IOException {
        ConfigMap cm = one(JOBS.resolve("configmap-patch.yaml"), "ConfigMap", ConfigMap.class);
        assertEquals("tapline-config", cm.getMetadata().getName());
        Map<String, String> data = cm.getData();
        assertEquals("kubernetes", data.get("TAPLINE_RUNNER_DEFAULT_EXECUTOR"));
        assertFalse(data.getOrDefault("TAPLINE_KUBERNETES_IMAGE", "").isBlank(), "the runner image is set");
        assertNotNull(data.get("TAPLINE_KUBERNETES_DATABASE_SECRET"));
        ServiceAccount runner = one(JOBS.resolve("runner-serviceaccount.yaml"), "ServiceAccount", ServiceAccount.class);
        assertEquals(data.get("TAPLINE_KUBERNETES_SERVICE_ACCOUNT"), runner.getMetadata().getName());
        assertFalse(runner.getAutomountServiceAccountToken(), "runners call no API");

        JsonNode k = docs(JOBS.resolve("kustomization.yaml")).get(0);
        List<String> resources = new ArrayList<>();
        k.path("resources").forEach(r -> resources.add(r.asText()));
        assertTrue(resources.containsAll(List.of("../prod", "rbac.yaml", "runner-serviceaccount.yaml")), "" + resources);
        List<String> patches = new ArrayList<>();
        k.path("patches").forEach(p -> patches.add(p.path("path").asText()));
        assertEquals(List.of("configmap-patch.yaml", "serviceaccount-patch.yaml"), patches);
        // The Job's container runs as the runner account, with the emptyDir run directory the
        // ConfigMap's runner settings expect.
        assertTrue(RunJobSpec.WORK_DIR.startsWith("/var/lib/tapline"));
    }

    /**
     * Issue 31 item 5: the Job spec the service builds from the overlay's settings (the ConfigMap
     * read as the service reads its environment) passes no Secret as a variable; the database
     * Secret is a volume only the runner reads (0400, the runner root), and connectors run as the
     * overlay's connector user.
     */
    @Test
    void theRunnersJobSpecMountsTheDatabaseSecretForTheRunnerAloneAndNoSecretIsAVariable() throws IOException {
        Map<String, String> data = new HashMap<>();
        for (Path f : List.of(Path.of("k8s/base/configmap.yaml"), JOBS.resolve("configmap-patch.yaml"))) {
            data.putAll(one(f, "ConfigMap", ConfigMap.class).getData());
        }
        assertEquals("1001", data.get("TAPLINE_KUBERNETES_CONNECTOR_USER"), "connectors run as their own user");
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(TaplineConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new EnvConfigSource(data, 300)).build();
        TaplineConfig.Kubernetes k = config.getConfigMapping(
                TaplineConfig.class).kubernetes();
        RunJobSpec.Launch l = new RunJobSpec.Launch(UUID.randomUUID(), "p", "dev:tap-to-target", null);
        Job job = RunJobSpec.job(l, k, k.image().orElseThrow(), 60);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().get(0);
        assertTrue(c.getEnvFrom() == null || c.getEnvFrom().isEmpty(), "no envFrom: " + c.getEnvFrom());
        for (EnvVar v : c.getEnv()) {
            assertEquals(null, v.getValueFrom(), v.getName() + " takes its value from elsewhere");
            assertFalse(v.getName().contains("PASSWORD") || v.getName().startsWith("QUARKUS_DATASOURCE"), v.getName());
        }
        Volume db = pod.getVolumes().stream()
                .filter(v -> v.getSecret() != null && data.get("TAPLINE_KUBERNETES_DATABASE_SECRET")
                        .equals(v.getSecret().getSecretName())).findFirst().orElseThrow();
        assertEquals(0400, db.getSecret().getDefaultMode());
        assertTrue(c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(db.getName())
                && m.getMountPath().equals(RunJobSpec.DATABASE_DIR) && m.getReadOnly()));
        assertTrue(c.getEnv().stream().anyMatch(v -> v.getName().equals(RunJobSpec.FILE_LOCATIONS)
                && v.getValue().equals(RunJobSpec.DATABASE_DIR)));
        assertTrue(c.getEnv().stream().anyMatch(v -> v.getName().equals("TAPLINE_RUNNER_RUN_AS_USER")
                && v.getValue().equals("1001")));
        assertEquals(0L, c.getSecurityContext().getRunAsUser());
        assertEquals(RunJobSpec.RUNNER_CAPABILITIES, c.getSecurityContext().getCapabilities().getAdd());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
    }

    private static Set<String> verbs(Role role, String group, String resource) {
        Set<String> out = new TreeSet<>();
        for (PolicyRule r : role.getRules()) {
            if (r.getApiGroups().contains(group) && r.getResources().contains(resource)) {
                out.addAll(r.getVerbs());
            }
        }
        return out;
    }

    private static <T> T one(Path file, String kind, Class<T> type) throws IOException {
        List<T> out = new ArrayList<>();
        for (JsonNode doc : docs(file)) {
            if (kind.equals(doc.path("kind").asText())) {
                out.add(YAML.treeToValue(doc, type));
            }
        }
        assertEquals(1, out.size(), file + ": one " + kind);
        return out.get(0);
    }

    private static List<JsonNode> docs(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(Files.readString(file))) {
            while (it.hasNextValue()) {
                JsonNode n = it.nextValue();
                if (n != null && !n.isNull() && !n.isMissingNode()) {
                    out.add(n);
                }
            }
        }
        return out;
    }
}
