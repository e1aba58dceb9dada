package io.tapline.deploy;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;
import io.tapline.common.config.TaplineConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Checks the Kubernetes manifests under {@code k8s/} without a cluster, so that a typo fails the
 * build instead of a rollout.
 *
 * <p>Every YAML document under {@code k8s/} (all files, several documents per file allowed) is
 * read into its fabric8 model class, chosen by {@code apiVersion} and {@code kind}; an unknown
 * pair fails. fabric8 models keep fields they do not know in {@code additionalProperties}
 * instead of failing, so that map must be empty everywhere in every object. Scalars are not
 * coerced ({@code port: "8080"} or an unquoted {@code true} as a ConfigMap value fail, as
 * the API server would refuse them). Kustomization files are checked as plain YAML. The
 * Deployment is then checked against the application: probe paths and port, the Service's
 * target port, the security context, volumes, and the ConfigMap's {@code TAPLINE_*} keys
 * against {@link TaplineConfig}. When {@code kubectl} is on the PATH, each overlay is also
 * rendered with {@code kubectl kustomize} and the result checked the same way.
 */
class KubernetesManifestsTest {

    private static final Path K8S = Path.of("k8s");
    private static final Path BASE = K8S.resolve("base");
    private static final Path OVERLAYS = K8S.resolve("overlays");
    private static final Path APPLICATION_PROPERTIES = Path.of("src/main/resources/application.properties");

    private static final String READY_PATH = "/q/health/ready";
    private static final String LIVE_PATH = "/q/health/live";
    private static final String CONFIG_MAP = "tapline-config";
    private static final String SECRET = "tapline-config-creds";
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Minimum terminationGracePeriodSeconds, and the margin above the connectors' own grace. */
    private static final long MIN_POD_GRACE_SECONDS = 60;
    private static final long SHUTDOWN_MARGIN_SECONDS = 30;

    /** Kinds the manifests may use, by "apiVersion/kind". */
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/ConfigMap", ConfigMap.class,
            "v1/Secret", Secret.class,
            "v1/Service", Service.class,
            "v1/ServiceAccount", ServiceAccount.class,
            "apps/v1/Deployment", Deployment.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class,
            // The jobs overlay (KubernetesJobsManifestsTest); namespaced RBAC only, never Cluster*.
            "rbac.authorization.k8s.io/v1/Role", io.fabric8.kubernetes.api.model.rbac.Role.class,
            "rbac.authorization.k8s.io/v1/RoleBinding", io.fabric8.kubernetes.api.model.rbac.RoleBinding.class);

    private static final String KUSTOMIZATION_API = "kustomize.config.k8s.io/v1beta1";
    /** Top-level fields of a kustomize v5 Kustomization (a misspelled one is ignored by nobody). */
    private static final Set<String> KUSTOMIZATION_FIELDS = Set.of("apiVersion", "kind", "metadata", "resources",
            "components", "patches", "images", "labels", "commonLabels", "commonAnnotations", "namePrefix",
            "nameSuffix", "namespace", "configMapGenerator", "secretGenerator", "generatorOptions", "replicas",
            "replacements", "transformers", "generators", "validators", "crds", "openapi", "buildMetadata",
            "sortOptions", "helmCharts", "helmGlobals");

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            // A string field (a ConfigMap value, an annotation) never takes an unquoted number or
            // boolean: the API server refuses those, so must we.
            .withCoercionConfig(LogicalType.Textual, text -> text
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail))
            .build();

    /** One YAML document of one file under k8s/. */
    record Doc(Path file, int index, JsonNode tree, HasMetadata model) {
        String where() {
            return file + " document " + (index + 1);
        }

        String kind() {
            return tree.path("kind").asText();
        }

        String name() {
            return tree.path("metadata").path("name").asText();
        }
    }

    private static List<Doc> docs;
    private static Map<Path, List<Doc>> docsByFile;

    @BeforeAll
    static void loadEveryDocument() throws IOException {
        assertTrue(Files.isDirectory(K8S), "run from the project root: no " + K8S.toAbsolutePath());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(K8S)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        docs = new ArrayList<>();
        docsByFile = new LinkedHashMap<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            assertTrue(name.endsWith(".yaml"), file + ": only .yaml files belong under k8s/");
            List<Doc> inFile = parse(file, Files.readString(file, StandardCharsets.UTF_8));
            assertFalse(inFile.isEmpty(), file + " holds no YAML document");
            docsByFile.put(file.normalize(), inFile);
            docs.addAll(inFile);
        }
    }

    /** Parses every document of one YAML stream; Kustomizations stay trees (model null). */
    private static List<Doc> parse(Path file, String yaml) throws IOException {
        List<Doc> out = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            int index = 0;
            while (it.hasNextValue()) {
                JsonNode tree = it.nextValue();
                int i = index++;
                if (tree == null || tree.isNull() || tree.isMissingNode()) {
                    continue;
                }
                String where = file + " document " + (i + 1);
                assertTrue(tree.isObject(), where + ": not a mapping");
                String apiVersion = tree.path("apiVersion").asText();
                String kind = tree.path("kind").asText();
                if ("Kustomization".equals(kind)) {
                    assertEquals(KUSTOMIZATION_API, apiVersion, where);
                    out.add(new Doc(file, i, tree, null));
                    continue;
                }
                Class<? extends HasMetadata> type = KINDS.get(apiVersion + "/" + kind);
                assertNotNull(type, where + ": unexpected apiVersion/kind " + apiVersion + "/" + kind
                        + " (known: " + new TreeSet<>(KINDS.keySet()) + ")");
                HasMetadata model;
                try {
                    model = YAML.treeToValue(tree, type);
                } catch (IOException e) {
                    throw new AssertionError(where + ": not a valid " + kind + ": " + e.getMessage(), e);
                }
                assertFalse(model.getMetadata() == null || model.getMetadata().getName() == null,
                        where + ": metadata.name is missing");
                out.add(new Doc(file, i, tree, model));
            }
        }
        return out;
    }

    // ---- Every object -----------------------------------------------------------------------------

    @Test
    void noObjectHasFieldsItsKindDoesNotKnow() {
        List<String> unknown = new ArrayList<>();
        for (Doc doc : docs) {
            if (doc.model() != null) {
                collectUnknownFields(doc.model(), doc.where() + " " + doc.kind(), unknown);
            }
        }
        assertTrue(unknown.isEmpty(), "misspelled or misplaced fields:\n" + String.join("\n", unknown));
    }

    @Test
    void unknownFieldsAreFoundWhereverTheyAre() throws IOException {
        // The safety net itself: a misspelled probe field deep inside a Deployment is reported.
        Doc doc = parse(Path.of("inline.yaml"), """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: x}
                spec:
                  template:
                    spec:
                      containers:
                        - name: x
                          readinessProbe:
                            httpGet: {path: /q/health/ready, port: http}
                            initialDelaySecond: 5
                """).get(0);
        List<String> unknown = new ArrayList<>();
        collectUnknownFields(doc.model(), "inline", unknown);
        assertEquals(List.of("inline.spec.template.spec.containers[0].readinessProbe: unknown field(s)"
                + " [initialDelaySecond]"), unknown);
        assertThrowsOnParse("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: x}
                data:
                  TAPLINE_DATABASE_EMBEDDED: false
                """);
        assertThrowsOnParse("""
                apiVersion: v1
                kind: Service
                metadata: {name: x}
                metadata: {name: y}
                """);
    }

    private static void assertThrowsOnParse(String yaml) {
        try {
            parse(Path.of("inline.yaml"), yaml);
        } catch (IOException | AssertionError expected) {
            return;
        }
        fail("accepted:\n" + yaml);
    }

    /**
     * Walks a fabric8 model object through its fields and reports every non-empty
     * {@code additionalProperties} map with its path.
     */
    private static void collectUnknownFields(Object value, String path, List<String> out) {
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                collectUnknownFields(item, path + "[" + i++ + "]", out);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, item) -> collectUnknownFields(item, path + "." + key, out));
            return;
        }
        if (value == null || !value.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                Object fieldValue;
                try {
                    field.setAccessible(true);
                    fieldValue = field.get(value);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new AssertionError("cannot read " + type.getName() + "." + field.getName(), e);
                }
                if ("additionalProperties".equals(field.getName())) {
                    if (fieldValue instanceof Map<?, ?> extra && !extra.isEmpty()) {
                        out.add(path + ": unknown field(s) " + new TreeSet<>(extra.keySet().stream()
                                .map(String::valueOf).toList()));
                    }
                } else {
                    collectUnknownFields(fieldValue, path + "." + field.getName(), out);
                }
            }
        }
    }

    // ---- The base and the rendered overlays ----------------------------------------------------

    @Test
    void baseMatchesTheApplication() {
        checkWorkload(resourcesOf(BASE), "k8s/base");
    }

    static Stream<Path> overlays() throws IOException {
        try (Stream<Path> list = Files.list(OVERLAYS)) {
            return list.filter(Files::isDirectory).sorted().toList().stream();
        }
    }

    /** The overlays as kustomize renders them, when kubectl is installed (it is not required). */
    @ParameterizedTest
    @MethodSource("overlays")
    void renderedOverlayMatchesTheApplication(Path overlay) throws Exception {
        assumeTrue(onPath("kubectl"), "kubectl is not on the PATH: rendered overlays not checked");
        Process process = new ProcessBuilder("kubectl", "kustomize", overlay.toString())
                .redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kubectl kustomize " + overlay + " did not finish");
        assertEquals(0, process.exitValue(), "kubectl kustomize " + overlay + ":\n" + output);
        List<Doc> rendered = parse(overlay.resolve("(rendered)"), output);
        List<String> unknown = new ArrayList<>();
        rendered.forEach(d -> collectUnknownFields(d.model(), d.where(), unknown));
        assertTrue(unknown.isEmpty(), String.join("\n", unknown));
        checkWorkload(rendered, overlay + " (rendered)");
        rendered.stream().map(Doc::model).forEach(m -> {
            Map<String, String> labels = Optional.ofNullable(m.getMetadata().getLabels()).orElse(Map.of());
            assertEquals("tapline", labels.get("app.kubernetes.io/name"), m.getKind() + " label name");
            assertEquals("tapline", labels.get("app.kubernetes.io/part-of"), m.getKind() + " label part-of");
        });
    }

    private static boolean onPath(String command) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        return Stream.of(path.split(java.io.File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }

    /** Every check of a set of resources that together make one Tapline installation. */
    private static void checkWorkload(List<Doc> resources, String what) {
        Deployment deployment = single(resources, Deployment.class, what);
        ConfigMap configMap = single(resources, ConfigMap.class, what);
        Service service = single(resources, Service.class, what);
        PodDisruptionBudget pdb = single(resources, PodDisruptionBudget.class, what);
        NetworkPolicy networkPolicy = single(resources, NetworkPolicy.class, what);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        // The service's own account (the jobs overlay adds the runners' account beside it).
        List<ServiceAccount> accounts = resources.stream().map(Doc::model).filter(ServiceAccount.class::isInstance)
                .map(ServiceAccount.class::cast)
                .filter(a -> a.getMetadata().getName().equals(pod.getServiceAccountName())).toList();
        assertEquals(1, accounts.size(), what + ": expected one ServiceAccount named by the Deployment");
        ServiceAccount serviceAccount = accounts.get(0);
        boolean callsApi = resources.stream().map(Doc::model)
                .filter(io.fabric8.kubernetes.api.model.rbac.RoleBinding.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.rbac.RoleBinding.class::cast)
                .anyMatch(b -> b.getSubjects().stream().anyMatch(x -> x.getName().equals(pod.getServiceAccountName())));

        Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        assertEquals(1, pod.getContainers().size(), what + ": one container expected");
        Container container = pod.getContainers().get(0);
        assertNotNull(container.getImage(), what + ": container without image");

        int appPort = applicationHttpPort();
        ContainerPort http = container.getPorts().stream()
                .filter(p -> p.getContainerPort() == appPort).findFirst()
                .orElseThrow(() -> new AssertionError(what + ": no container port " + appPort
                        + " (quarkus.http.port)"));
        assertEquals("http", http.getName(), what + ": container port " + appPort + " is named http");

        checkProbe(container.getReadinessProbe(), READY_PATH, container, appPort, what + " readinessProbe");
        checkProbe(container.getLivenessProbe(), LIVE_PATH, container, appPort, what + " livenessProbe");
        if (container.getStartupProbe() != null) {
            checkProbe(container.getStartupProbe(), null, container, appPort, what + " startupProbe");
        }

        // Service -> the same port, selecting these pods.
        assertEquals("ClusterIP", Optional.ofNullable(service.getSpec().getType()).orElse("ClusterIP"));
        for (ServicePort port : service.getSpec().getPorts()) {
            assertEquals(appPort, portNumber(port.getTargetPort(), container, what + " Service targetPort"),
                    what + ": Service port " + port.getPort() + " must reach quarkus.http.port");
        }
        assertSelects(service.getSpec().getSelector(), podLabels, what + " Service selector");
        assertSelects(deployment.getSpec().getSelector().getMatchLabels(), podLabels, what + " Deployment selector");
        assertSelects(pdb.getSpec().getSelector().getMatchLabels(), podLabels, what + " PDB selector");
        assertSelects(networkPolicy.getSpec().getPodSelector().getMatchLabels(), podLabels,
                what + " NetworkPolicy podSelector");
        assertTrue(networkPolicy.getSpec().getIngress().stream()
                        .flatMap(rule -> rule.getPorts().stream())
                        .anyMatch(p -> portNumber(p.getPort(), container, what + " NetworkPolicy") == appPort),
                what + ": the NetworkPolicy must admit traffic to " + appPort);

        // PDB: a node drain must stay possible.
        int replicas = Optional.ofNullable(deployment.getSpec().getReplicas()).orElse(1);
        IntOrString minAvailable = pdb.getSpec().getMinAvailable();
        if (minAvailable != null && minAvailable.getIntVal() != null) {
            assertTrue(minAvailable.getIntVal() < replicas, what + ": PDB minAvailable " + minAvailable.getIntVal()
                    + " with " + replicas + " replica(s) blocks every eviction");
        }

        // Identity and security.
        assertEquals(serviceAccount.getMetadata().getName(), pod.getServiceAccountName(), what + " serviceAccountName");
        // The token is mounted only when a RoleBinding gives the account API rights (the jobs overlay).
        assertEquals(callsApi, serviceAccount.getAutomountServiceAccountToken(), what + " SA token");
        PodSecurityContext podSecurity = Optional.ofNullable(pod.getSecurityContext()).orElseGet(PodSecurityContext::new);
        SecurityContext security = Optional.ofNullable(container.getSecurityContext()).orElseGet(SecurityContext::new);
        assertEquals(Boolean.TRUE, firstNonNull(security.getRunAsNonRoot(), podSecurity.getRunAsNonRoot()),
                what + ": runAsNonRoot");
        Long uid = firstNonNull(security.getRunAsUser(), podSecurity.getRunAsUser());
        assertTrue(uid != null && uid != 0, what + ": runAsUser must be a non-root uid");
        assertEquals(Boolean.TRUE, security.getReadOnlyRootFilesystem(), what + ": readOnlyRootFilesystem");
        assertEquals(Boolean.FALSE, security.getAllowPrivilegeEscalation(), what + ": allowPrivilegeEscalation");
        assertTrue(security.getCapabilities() != null && security.getCapabilities().getDrop().contains("ALL"),
                what + ": capabilities must drop ALL");

        // Volumes: every mount has a volume; with a read-only root, every directory Tapline
        // writes to (the ConfigMap's *_DIR settings) and /tmp lie on a mounted volume.
        Set<String> volumes = new TreeSet<>();
        for (Volume volume : pod.getVolumes()) {
            assertTrue(volumes.add(volume.getName()), what + ": volume " + volume.getName() + " declared twice");
        }
        List<VolumeMount> mounts = container.getVolumeMounts();
        for (VolumeMount mount : mounts) {
            assertTrue(volumes.contains(mount.getName()),
                    what + ": volumeMount " + mount.getName() + " has no volume (have " + volumes + ")");
        }
        Map<String, String> config = Optional.ofNullable(configMap.getData()).orElse(Map.of());
        List<String> writable = new ArrayList<>(List.of("/tmp"));
        config.forEach((key, value) -> {
            if (key.endsWith("_DIR")) {
                writable.add(value);
            }
        });
        assertTrue(config.containsKey("TAPLINE_RUNNER_RUNS_DIR") && config.containsKey("TAPLINE_RUNNER_LOGS_DIR"),
                what + ": the ConfigMap must move the run and log directories onto volumes");
        for (String dir : writable) {
            assertTrue(mounts.stream().anyMatch(m -> isUnder(dir, m.getMountPath())),
                    what + ": " + dir + " is written to but not on a mounted volume");
        }

        // Configuration sources.
        Set<String> configMaps = new TreeSet<>();
        Set<String> secrets = new TreeSet<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            if (from.getConfigMapRef() != null) {
                configMaps.add(from.getConfigMapRef().getName());
            }
            if (from.getSecretRef() != null) {
                secrets.add(from.getSecretRef().getName());
            }
        }
        assertEquals(Set.of(CONFIG_MAP), configMaps, what + ": envFrom ConfigMaps");
        assertEquals(CONFIG_MAP, configMap.getMetadata().getName(), what + ": ConfigMap name");
        // Issue 31 item 5: no Secret value is an environment variable (a process of the pod's user could
        // read it in /proc/<pid>/environ); the Secret is a volume of files read as configuration.
        assertEquals(Set.of(), secrets, what + ": Secrets must not be passed with envFrom");
        for (io.fabric8.kubernetes.api.model.EnvVar v : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
            assertTrue(v.getValueFrom() == null || v.getValueFrom().getSecretKeyRef() == null,
                    what + ": " + v.getName() + " takes a Secret value as a variable");
        }
        Volume secretVolume = pod.getVolumes().stream()
                .filter(v -> v.getSecret() != null && SECRET.equals(v.getSecret().getSecretName())).findFirst()
                .orElseThrow(() -> new AssertionError(what + ": the Secret " + SECRET + " must be a volume"));
        assertEquals(0, secretVolume.getSecret().getDefaultMode() & 0007, what + ": the Secret's files are"
                + " readable by others (defaultMode " + Integer.toOctalString(secretVolume.getSecret().getDefaultMode())
                + ")");
        VolumeMount secretMount = mounts.stream().filter(m -> m.getName().equals(secretVolume.getName())).findFirst()
                .orElseThrow(() -> new AssertionError(what + ": the Secret's volume is not mounted"));
        assertEquals(List.of(secretMount.getMountPath()), container.getEnv().stream()
                .filter(v -> v.getName().equals("SMALLRYE_CONFIG_SOURCE_FILE_LOCATIONS")).map(v -> v.getValue())
                .toList(), what + ": the service must read the Secret's files as configuration");
        assertFalse(config.keySet().stream().anyMatch(k -> k.contains("PASSWORD") || k.endsWith("_KEY")),
                what + ": the ConfigMap holds a credential: " + config.keySet());
        assertEquals("false", config.get("TAPLINE_DATABASE_EMBEDDED"), what + ": no embedded database in a cluster");

        // Graceful stop: connectors get TAPLINE_RUNNER_SHUTDOWN_GRACE (default: the terminate
        // grace) between SIGTERM and SIGKILL; the pod needs that plus time to save state and mark
        // the runs.
        Long podGrace = pod.getTerminationGracePeriodSeconds();
        assertNotNull(podGrace, what + ": terminationGracePeriodSeconds (the default 30s is too short)");
        Duration connectorGrace = parseDuration(Optional.ofNullable(config.get("TAPLINE_RUNNER_SHUTDOWN_GRACE"))
                .or(() -> Optional.ofNullable(config.get("TAPLINE_RUNNER_TERMINATE_GRACE")))
                .orElseGet(() -> defaultOf("runner", "terminateGrace")));
        assertTrue(podGrace >= MIN_POD_GRACE_SECONDS, what + ": terminationGracePeriodSeconds " + podGrace);
        assertTrue(podGrace >= connectorGrace.toSeconds() + SHUTDOWN_MARGIN_SECONDS,
                what + ": terminationGracePeriodSeconds " + podGrace + " leaves too little after the connectors'"
                        + " grace of " + connectorGrace.toSeconds() + "s");
    }

    private static void checkProbe(Probe probe, String path, Container container, int appPort, String what) {
        assertNotNull(probe, what + " is missing");
        assertNotNull(probe.getHttpGet(), what + " must be an httpGet probe");
        if (path != null) {
            assertEquals(path, probe.getHttpGet().getPath(), what + " path");
        }
        IntOrString port = probe.getHttpGet().getPort();
        assertNotNull(port.getStrVal(), what + " must name its port");
        assertEquals(appPort, portNumber(port, container, what), what + " port");
    }

    /** The container port a numeric or named port designates. */
    private static int portNumber(IntOrString port, Container container, String what) {
        assertNotNull(port, what + ": no port");
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return container.getPorts().stream()
                .filter(p -> port.getStrVal().equals(p.getName()))
                .mapToInt(ContainerPort::getContainerPort)
                .findFirst()
                .orElseThrow(() -> new AssertionError(what + ": no container port named " + port.getStrVal()));
    }

    private static void assertSelects(Map<String, String> selector, Map<String, String> labels, String what) {
        assertTrue(selector != null && !selector.isEmpty(), what + " is empty");
        assertTrue(labels.entrySet().containsAll(selector.entrySet()),
                what + " " + selector + " does not select the pod labels " + labels);
    }

    private static boolean isUnder(String dir, String mountPath) {
        Path d = Path.of(dir).normalize();
        return d.isAbsolute() && d.startsWith(Path.of(mountPath).normalize());
    }

    @SafeVarargs
    private static <T> T firstNonNull(T... values) {
        return Stream.of(values).filter(v -> v != null).findFirst().orElse(null);
    }

    private static <T extends HasMetadata> T single(List<Doc> resources, Class<T> type, String what) {
        List<T> found = resources.stream().map(Doc::model).filter(type::isInstance).map(type::cast).toList();
        assertEquals(1, found.size(), what + ": expected one " + type.getSimpleName());
        return found.get(0);
    }

    /** {@code quarkus.http.port} from application.properties (Quarkus' default 8080 when absent). */
    private static int applicationHttpPort() {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(APPLICATION_PROPERTIES)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Integer.parseInt(properties.getProperty("quarkus.http.port", "8080").trim());
    }

    // ---- ConfigMap and Secret keys ---------------------------------------------------------------

    @Test
    void configMapKeysAreTaplineSettings() {
        Set<String> known = taplineEnvNames();
        List<ConfigMap> configMaps = docs.stream().map(Doc::model)
                .filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast).toList();
        assertFalse(configMaps.isEmpty(), "no ConfigMap under k8s/");
        for (ConfigMap configMap : configMaps) {
            Map<String, String> data = Optional.ofNullable(configMap.getData()).orElse(Map.of());
            for (String key : data.keySet()) {
                assertTrue(ENV_NAME.matcher(key).matches(), "ConfigMap key " + key + " is not an env var name");
                if (key.startsWith("TAPLINE_")) {
                    assertTrue(known.contains(key), "ConfigMap key " + key + " is no Tapline setting; known: " + known);
                }
            }
        }
    }

    @Test
    void secretExampleHasOnlyPlaceholders() {
        List<Doc> secrets = docs.stream().filter(d -> d.model() instanceof Secret).toList();
        assertEquals(1, secrets.size(), "one example Secret expected");
        Doc doc = secrets.get(0);
        Secret secret = (Secret) doc.model();
        assertTrue(doc.file().getFileName().toString().endsWith(".example.yaml"), doc.where());
        assertEquals(SECRET, secret.getMetadata().getName());
        assertTrue(secret.getData() == null || secret.getData().isEmpty(), "use stringData for the example");
        Map<String, String> values = secret.getStringData();
        assertTrue(values.keySet().containsAll(Set.of("QUARKUS_DATASOURCE_JDBC_URL", "QUARKUS_DATASOURCE_USERNAME",
                "QUARKUS_DATASOURCE_PASSWORD")), "the datasource keys: " + values.keySet());
        values.forEach((key, value) -> {
            assertTrue(ENV_NAME.matcher(key).matches(), "Secret key " + key + " is not an env var name");
            assertTrue(value.contains("REPLACE-ME"), "Secret example value of " + key + " must be a placeholder");
        });
    }

    @Test
    void taplineEnvNamesFollowTheMicroProfileRule() {
        Set<String> names = taplineEnvNames();
        assertTrue(names.containsAll(Set.of("TAPLINE_API_MAX_PAGE_SIZE", "TAPLINE_DATABASE_EMBEDDED_DIR",
                "TAPLINE_RUNNER_RUNS_DIR", "TAPLINE_RUNNER_INHERIT_ENV")), names.toString());
        assertFalse(names.contains("TAPLINE_DATABASE"), "groups are not settings");
    }

    /**
     * The environment-variable names of every {@link TaplineConfig} setting: each method of the
     * mapping and of its nested groups gives a kebab-case path segment (or its {@code @WithName});
     * the MicroProfile rule then upper-cases the property name and replaces every
     * non-alphanumeric character with {@code _}.
     */
    static Set<String> taplineEnvNames() {
        Set<String> properties = new TreeSet<>();
        collectProperties(TaplineConfig.class.getAnnotation(ConfigMapping.class).prefix(), TaplineConfig.class,
                properties);
        Set<String> names = new TreeSet<>();
        for (String property : properties) {
            names.add(property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT));
        }
        return names;
    }

    private static void collectProperties(String prefix, Class<?> group, Set<String> out) {
        for (Method method : group.getMethods()) {
            if (method.getParameterCount() != 0 || method.isDefault() || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            String name = method.isAnnotationPresent(WithParentName.class) ? prefix
                    : prefix + "." + Optional.ofNullable(method.getAnnotation(WithName.class)).map(WithName::value)
                    .orElseGet(() -> kebab(method.getName()));
            Class<?> type = valueType(method.getGenericReturnType());
            if (isGroup(type)) {
                collectProperties(name, type, out);
            } else {
                out.add(name);
            }
        }
    }

    /** The type of a setting, looking through Optional. */
    private static Class<?> valueType(Type type) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            if (raw == Optional.class) {
                return valueType(p.getActualTypeArguments()[0]);
            }
            return raw;
        }
        return type instanceof Class<?> c ? c : Object.class;
    }

    private static boolean isGroup(Class<?> type) {
        return type.isInterface() && !type.getName().startsWith("java.");
    }

    /** SmallRye's default naming of a mapping method: {@code maxPageSize} becomes {@code max-page-size}. */
    private static String kebab(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static String defaultOf(String group, String method) {
        try {
            Class<?> type = TaplineConfig.class.getMethod(group).getReturnType();
            return type.getMethod(method).getAnnotation(WithDefault.class).value();
        } catch (NoSuchMethodException e) {
            throw new AssertionError("TaplineConfig." + group + "()." + method + "() is gone", e);
        }
    }

    /** A duration as SmallRye writes it: {@code 60s}, {@code 500ms}, {@code 2m}, or ISO-8601. */
    private static Duration parseDuration(String text) {
        Matcher m = Pattern.compile("(\\d+)(ms|s|m|h|d)?").matcher(text.trim());
        if (!m.matches()) {
            return Duration.parse(text.trim());
        }
        long n = Long.parseLong(m.group(1));
        return switch (Optional.ofNullable(m.group(2)).orElse("s")) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofSeconds(n);
        };
    }

    // ---- Kustomizations ----------------------------------------------------------------------------

    @Test
    void kustomizationsReferOnlyToWhatExists() {
        List<Doc> kustomizations = docs.stream().filter(d -> d.model() == null).toList();
        assertTrue(kustomizations.stream().anyMatch(d -> d.file().normalize().equals(BASE.resolve("kustomization.yaml"))),
                "k8s/base/kustomization.yaml is missing");
        for (Doc k : kustomizations) {
            Path dir = k.file().getParent();
            assertEquals("kustomization.yaml", k.file().getFileName().toString(), k.where());
            k.tree().fieldNames().forEachRemaining(field ->
                    assertTrue(KUSTOMIZATION_FIELDS.contains(field), k.where() + ": unknown field " + field));

            Set<Path> used = new LinkedHashSet<>();
            used.add(k.file().normalize());
            for (JsonNode entry : k.tree().path("resources")) {
                Path target = dir.resolve(entry.asText()).normalize();
                assertTrue(Files.isRegularFile(target) || Files.isRegularFile(target.resolve("kustomization.yaml")),
                        k.where() + ": resource " + entry.asText() + " does not exist");
                used.add(target);
            }

            List<Doc> resources = resourcesOf(dir);
            for (JsonNode patch : k.tree().path("patches")) {
                String patchPath = patch.isTextual() ? patch.asText() : patch.path("path").asText(null);
                if (patchPath == null) {
                    assertTrue(patch.has("patch"), k.where() + ": patch without path or inline patch");
                    continue;
                }
                Path file = dir.resolve(patchPath).normalize();
                assertTrue(Files.isRegularFile(file), k.where() + ": patch " + patchPath + " does not exist");
                used.add(file);
                for (Doc patchDoc : docsByFile.get(file)) {
                    checkPatchTarget(patchDoc, resources);
                }
            }

            Set<String> images = resources.stream().map(Doc::model).filter(Deployment.class::isInstance)
                    .flatMap(d -> ((Deployment) d).getSpec().getTemplate().getSpec().getContainers().stream())
                    .map(c -> c.getImage().replaceFirst("[:@].*$", ""))
                    .collect(java.util.stream.Collectors.toSet());
            for (JsonNode image : k.tree().path("images")) {
                assertTrue(images.contains(image.path("name").asText()),
                        k.where() + ": images entry " + image.path("name") + " matches no container image " + images);
            }

            // Nothing in the directory is forgotten: each file is used or is an example.
            try (Stream<Path> list = Files.list(dir)) {
                list.filter(Files::isRegularFile).map(Path::normalize)
                        .filter(f -> !f.getFileName().toString().endsWith(".example.yaml"))
                        .forEach(f -> assertTrue(used.contains(f), f + " is not listed in " + k.file()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** A strategic-merge patch must name an object, and containers, that its base has. */
    private static void checkPatchTarget(Doc patch, List<Doc> resources) {
        Doc target = resources.stream()
                .filter(r -> r.kind().equals(patch.kind()) && r.name().equals(patch.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError(patch.where() + ": patches " + patch.kind() + " "
                        + patch.name() + ", which its base does not have"));
        if (patch.model() instanceof Deployment deployment && deployment.getSpec().getTemplate() != null
                && deployment.getSpec().getTemplate().getSpec() != null) {
            Set<String> containers = new TreeSet<>();
            ((Deployment) target.model()).getSpec().getTemplate().getSpec().getContainers()
                    .forEach(c -> containers.add(c.getName()));
            for (Container c : deployment.getSpec().getTemplate().getSpec().getContainers()) {
                assertTrue(containers.contains(c.getName()), patch.where() + ": container " + c.getName()
                        + " is not in the base " + containers + " (a patch would add it)");
            }
        }
    }

    /** The documents a kustomization directory lists as resources, following directories. */
    private static List<Doc> resourcesOf(Path dir) {
        Path file = dir.resolve("kustomization.yaml").normalize();
        List<Doc> kustomization = docsByFile.get(file);
        assertNotNull(kustomization, "no " + file);
        List<Doc> out = new ArrayList<>();
        for (JsonNode entry : kustomization.get(0).tree().path("resources")) {
            Path target = dir.resolve(entry.asText()).normalize();
            if (Files.isDirectory(target)) {
                out.addAll(resourcesOf(target));
            } else {
                out.addAll(Optional.ofNullable(docsByFile.get(target))
                        .orElseThrow(() -> new AssertionError(file + ": resource " + target + " is missing")));
            }
        }
        return out;
    }

    // ---- Overlays ----------------------------------------------------------------------------------

    @Test
    void overlaysScaleAsDocumented() {
        assertEquals(1, replicas("dev"), "dev runs one replica");
        assertEquals(3, replicas("prod"), "prod runs three replicas");
        assertEquals(2, minAvailable("prod"), "prod keeps two replicas through a drain");
        JsonNode prodImages = docsByFile.get(OVERLAYS.resolve("prod/kustomization.yaml")).get(0).tree().path("images");
        assertTrue(prodImages.size() > 0, "prod pins the image");
        for (JsonNode image : prodImages) {
            String tag = image.path("newTag").asText("");
            assertTrue(image.has("digest") || !(tag.isEmpty() || tag.equals("latest")),
                    "prod must pin the image tag, not " + image);
        }
    }

    /** Without kubectl too: in every overlay, the PDB still lets a node drain evict a pod. */
    @ParameterizedTest
    @MethodSource("overlays")
    void overlayLeavesRoomForEvictions(Path overlay) {
        String name = overlay.getFileName().toString();
        assertTrue(minAvailable(name) < replicas(name), overlay + ": PDB minAvailable " + minAvailable(name)
                + " with " + replicas(name) + " replica(s) blocks every eviction");
    }

    /** Replicas of an overlay: its Deployment patch's, else the base's (one level of patching). */
    private static int replicas(String overlay) {
        return patchedOrBase(overlay, Deployment.class, d -> d.getSpec().getReplicas());
    }

    private static int minAvailable(String overlay) {
        return patchedOrBase(overlay, PodDisruptionBudget.class, p -> p.getSpec().getMinAvailable() == null ? null
                : p.getSpec().getMinAvailable().getIntVal());
    }

    private static <T extends HasMetadata> int patchedOrBase(String overlay, Class<T> type,
            java.util.function.Function<T, Integer> value) {
        Path dir = OVERLAYS.resolve(overlay);
        List<Doc> patches = new ArrayList<>();
        for (JsonNode patch : docsByFile.get(dir.resolve("kustomization.yaml")).get(0).tree().path("patches")) {
            Path file = dir.resolve(patch.isTextual() ? patch.asText() : patch.path("path").asText()).normalize();
            patches.addAll(Optional.ofNullable(docsByFile.get(file)).orElse(List.of()));
        }
        return Stream.concat(patches.stream(), resourcesOf(dir).stream())
                .map(Doc::model).filter(type::isInstance).map(type::cast)
                .map(value).filter(v -> v != null).findFirst()
                .orElseThrow(() -> new AssertionError(overlay + ": no " + type.getSimpleName() + " value"));
    }
}
