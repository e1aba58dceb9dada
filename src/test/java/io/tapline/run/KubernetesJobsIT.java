package io.tapline.run;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.restassured.RestAssured;
import io.tapline.run.kubernetes.RunJobSpec;
import io.tapline.run.runner.RunnerCommand;
import io.tapline.support.Connectors;
import io.tapline.support.ItSupport;
import io.tapline.support.ServiceProcess;
import io.tapline.support.TestKubelet;
import io.tapline.support.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.tapline.support.ItSupport.row;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kubernetes executor end to end, except the cluster: the packaged service talks to the
 * fabric8 mock API server (CRUD mode), and {@link TestKubelet} runs each Job's container as the
 * packaged build in runner mode with the Job's environment. Success, a failing connector, an image
 * that cannot be pulled (ErrImagePull), a rolling restart of the service while a run is in its pod,
 * cancel (the Job deleted, the runner stops on SIGTERM) and a runner killed with SIGKILL (reaped).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubernetesJobsIT {

    private static final String NS = "runs";
    private static final Duration RUN = Duration.ofSeconds(120);

    private KubernetesMockServer api;
    private KubernetesClient client;
    private TestPostgres.Database db;
    private ServiceProcess service;
    private TestKubelet kubelet;
    private Path kubeletRoot;
    private final List<Long> orphans = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        api.init();
        client = api.createClient();
        db = TestPostgres.shared().createDatabase("it_k8s");
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("tapline-db")
                .endMetadata().addToStringData(Map.of(
                        "QUARKUS_DATASOURCE_JDBC_URL", db.url(),
                        "QUARKUS_DATASOURCE_USERNAME", db.user(),
                        "QUARKUS_DATASOURCE_PASSWORD", db.password() == null ? "" : db.password(),
                        "TAPLINE_DATABASE_SCHEMA", db.schema())).build()).create();
        service = startService("svc-1");
        kubeletRoot = Files.createDirectories(service.dir().resolve("kubelet"));
        kubelet = new TestKubelet(client, NS, kubeletRoot, Map.of("PATH", System.getenv("PATH")));
    }

    private ServiceProcess startService(String name) {
        return startService(name, Map.of());
    }

    private ServiceProcess startService(String name, Map<String, String> extra) {
        String url = "http://" + api.getHostName() + ":" + api.getPort();
        Map<String, String> settings = new HashMap<>(Map.of(
                "QUARKUS_KUBERNETES_CLIENT_API_SERVER_URL", url,
                "QUARKUS_KUBERNETES_CLIENT_NAMESPACE", NS,
                "TAPLINE_KUBERNETES_NAMESPACE", NS,
                "TAPLINE_KUBERNETES_IMAGE", "tapline-connectors:test",
                "TAPLINE_RUNNER_DEFAULT_EXECUTOR", "kubernetes",
                "TAPLINE_RUNNER_HEARTBEAT_TIMEOUT", "8s",
                "TAPLINE_RUNNER_REAPER_INTERVAL", "1s",
                "TAPLINE_RUNNER_TERMINATE_GRACE", "3s"));
        settings.putAll(extra);
        ServiceProcess s = ServiceProcess.start(name, db, settings);
        s.awaitReady(Duration.ofSeconds(180));
        ItSupport.use(s);
        return s;
    }

    @AfterEach
    void keepService() {
        ItSupport.use(service);
    }

    @AfterAll
    void stop() {
        if (kubelet != null) {
            kubelet.close();
        }
        if (service != null) {
            service.close();
        }
        ItSupport.killAll(orphans);
        ItSupport.reset();
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.destroy();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    @Order(1)
    void aRunExecutesInItsJobAndStoresItsState() throws Exception {
        String pipeline = Connectors.pipeline(Map.of("records", 3, "state_every", 1), Map.of(), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        String jobName = RunJobSpec.jobName(run);
        assertEquals("SUCCEEDED", Connectors.awaitEnd(run.toString(), RUN).then().extract().path("status"),
                kubelet.log(jobName));
        try (Connection c = db.connect()) {
            Map<String, Object> r = row(c, "select owner_instance, records_total from pipeline_run where id = ?", run)
                    .orElseThrow();
            assertTrue(((String) r.get("owner_instance")).startsWith(jobName + "-"), "the runner in the pod took it: " + r);
            assertEquals(3L, ((Number) r.get("records_total")).longValue());
        }
        assertTrue(Connectors.state(Connectors.stateId(pipeline)).replace(" ", "").contains("\"items\":{\"id\":3}"));
        assertEquals(RunnerCommand.OK, kubelet.process(jobName).exitValue());

        // The test kubelet writes the Job's status just after the pod's process exits.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Job j = client.batch().v1().jobs().inNamespace(NS).withName(jobName).get();
            return j.getStatus() != null && Integer.valueOf(1).equals(j.getStatus().getSucceeded());
        });
        Job job = client.batch().v1().jobs().inNamespace(NS).withName(jobName).get();
        assertEquals(0, job.getSpec().getBackoffLimit());
        assertEquals(3600, job.getSpec().getTtlSecondsAfterFinished());
        assertEquals(1, job.getStatus().getSucceeded());
        assertEquals(run.toString(), job.getMetadata().getLabels().get(RunJobSpec.RUN_ID));
        assertEquals(run.toString(), job.getSpec().getTemplate().getMetadata().getLabels().get(RunJobSpec.RUN_ID));
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertEquals("Never", pod.getRestartPolicy());
        assertEquals("tapline-runner", pod.getServiceAccountName());
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        Container ctr = pod.getContainers().get(0);
        assertEquals("tapline-connectors:test", ctr.getImage());
        assertEquals(List.of("run", run.toString(), "--job", jobName, "--prepared",
                RunJobSpec.PREPARED_DIR + "/" + RunJobSpec.PREPARED_KEY), ctr.getArgs());
        assertTrue(ctr.getSecurityContext().getReadOnlyRootFilesystem());
        // Issue 31 item 5: the database Secret is mounted as files the runner reads; no Secret value is a variable
        // of the Job's container, and the stand-in pod's process had none in its environment.
        assertTrue(ctr.getEnvFrom() == null || ctr.getEnvFrom().isEmpty(), "" + ctr.getEnvFrom());
        assertTrue(ctr.getEnv().stream().allMatch(e -> e.getValueFrom() == null), "" + ctr.getEnv());
        assertEquals("tapline-db", pod.getVolumes().stream().filter(v -> v.getName().equals("db")).findFirst()
                .orElseThrow().getSecret().getSecretName());
        Map<String, String> started = kubelet.environment(jobName);
        for (String secretValue : List.of(db.url(), db.password())) {
            assertFalse(started.containsValue(secretValue), "a database setting was a variable: " + started.keySet());
            assertTrue(ctr.getEnv().stream().noneMatch(e -> secretValue.equals(e.getValue())));
        }
        assertTrue(started.keySet().stream().noneMatch(k -> k.startsWith("QUARKUS_DATASOURCE")), "" + started.keySet());
        // The run's resolved configs are in its own Secret, owned by the Job; never in the Job spec.
        String spec = Serialization.asJson(job);
        assertFalse(spec.contains("state_every"), spec);
        Secret secret = client.secrets().inNamespace(NS).withName(jobName).get();
        assertNotNull(secret);
        assertEquals(job.getMetadata().getUid(), secret.getMetadata().getOwnerReferences().get(0).getUid());
        String prepared = new String(Base64.getDecoder().decode(secret.getData().get(RunJobSpec.PREPARED_KEY)),
                StandardCharsets.UTF_8);
        assertTrue(prepared.contains("\"state_every\":1"), prepared);
    }

    @Test
    @Order(2)
    void aFailingConnectorFailsTheRunAndTheRunnerExitsNonZero() {
        String pipeline = Connectors.pipeline(Map.of("mode", "crash-after-state"), Map.of(), Map.of());
        String run = Connectors.trigger(pipeline, Map.of());
        var end = Connectors.awaitEnd(run, RUN).then().extract();
        assertEquals("FAILED", end.path("status"), kubelet.log(RunJobSpec.jobName(UUID.fromString(run))));
        assertEquals("connector_exit", end.path("failure.type"));
        await().atMost(Duration.ofSeconds(30)).until(() -> !kubelet.process(RunJobSpec.jobName(UUID.fromString(run)))
                .isAlive());
        assertEquals(RunnerCommand.RUN_FAILED, kubelet.process(RunJobSpec.jobName(UUID.fromString(run))).exitValue());
    }

    @Test
    @Order(3)
    void anImageThatCannotBePulledFailsTheRunWithinSeconds() {
        kubelet.unpullable(true);
        try {
            String pipeline = Connectors.pipeline(Map.of("records", 1), Map.of(), Map.of());
            String run = Connectors.trigger(pipeline, Map.of());
            long t0 = System.nanoTime();
            var end = Connectors.awaitEnd(run, Duration.ofSeconds(30)).then().extract();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals("FAILED", end.path("status"));
            assertEquals("configuration", end.path("failure.type"));
            assertTrue(((String) end.path("errorSummary")).startsWith("Kubernetes: ErrImagePull: "), end.asString());
            assertTrue(ms < 8000, "failed in " + ms + " ms, before the 8 s heartbeat timeout");
            await().atMost(Duration.ofSeconds(10)).until(() -> client.batch().v1().jobs().inNamespace(NS)
                    .withName(RunJobSpec.jobName(UUID.fromString(run))).get() == null);
        } finally {
            kubelet.unpullable(false);
        }
    }

    @Test
    @Order(4)
    void aRollingRestartLeavesTheRunInItsPodAndCancelDeletesTheJob() throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        String pipeline = Connectors.pipeline(Map.of("mode", "hang", "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        String jobName = RunJobSpec.jobName(run);
        try (Connection c = db.connect()) {
            awaitOwner(c, run, jobName + "-");
            await("connector pids").atMost(Duration.ofSeconds(60)).until(() -> ItSupport.pids(pids).size() == 2);
            orphans.addAll(ItSupport.pids(pids));

            service.sigterm();
            service.awaitExit(Duration.ofSeconds(60));
            assertEquals("RUNNING", row(c, "select status from pipeline_run where id = ?", run).orElseThrow()
                    .get("status"));
            assertTrue(kubelet.process(jobName).isAlive(), "the runner survives the service's shutdown");
            service.close();
            service = startService("svc-2");
            assertEquals("RUNNING", row(c, "select status from pipeline_run where id = ?", run).orElseThrow()
                    .get("status"));

            // without a body, and so without RestAssured's default text/plain, which CrossSiteRequests refuses
            RestAssured.given().contentType("application/json").post("/api/v1/runs/" + run + "/cancel")
                    .then().statusCode(202);
            var end = Connectors.awaitEnd(run.toString(), Duration.ofSeconds(60)).then().extract();
            assertEquals("CANCELLED", end.path("status"), kubelet.log(jobName));
            // The runner's last heartbeat on SIGTERM picked the cancel request up: its reason, not a shutdown.
            assertTrue(((String) end.path("errorSummary")).startsWith("cancelled by "), end.asString());
            await("the Job is deleted").atMost(Duration.ofSeconds(10)).until(() -> client.batch().v1().jobs()
                    .inNamespace(NS).withName(jobName).get() == null);
            Process p = kubelet.stopped(jobName);
            assertNotNull(p, "the kubelet stopped the deleted Job's process");
            await("the runner exits on SIGTERM").atMost(Duration.ofSeconds(60)).until(() -> !p.isAlive());
            ItSupport.awaitGone(ItSupport.pids(pids), Duration.ofSeconds(30));
        }
    }

    @Test
    @Order(5)
    void aRunnerKilledWithSigkillIsReaped() throws Exception {
        Path pids = Files.createTempFile(service.dir(), "pids", ".txt");
        String pipeline = Connectors.pipeline(Map.of("mode", "hang", "pid_file", pids.toString()),
                Map.of("pid_file", pids.toString()), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        String jobName = RunJobSpec.jobName(run);
        try (Connection c = db.connect()) {
            awaitOwner(c, run, jobName + "-");
            await("connector pids").atMost(Duration.ofSeconds(60)).until(() -> ItSupport.pids(pids).size() == 2);
            orphans.addAll(ItSupport.pids(pids));
            kubelet.process(jobName).destroyForcibly();
            var end = Connectors.awaitEnd(run.toString(), Duration.ofSeconds(60)).then().extract();
            assertEquals("FAILED", end.path("status"));
            assertEquals(RunMonitor.HEARTBEAT_LOST, end.path("errorSummary"));
            assertEquals("lost_instance", end.path("failure.type"));
        }
    }

    /**
     * Issue 31 item 5 with {@code tapline.kubernetes.connector-user}: the runner (root in the pod, as
     * the test is) reads the database credentials from the Secret's files and connects; its
     * connectors run as {@code nobody} and can read neither those files, nor the run's Secret, nor
     * the runner's environment. Needs root and {@code setpriv}.
     */
    @Test
    @Order(6)
    void withAConnectorUserTheConnectorsCannotReadTheRunnersCredentials() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "the runner must run as root");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv");
        service.close();
        service = startService("svc-3", Map.of("TAPLINE_KUBERNETES_CONNECTOR_USER", "nobody"));
        Path peek = Path.of("src/test/resources/connectors/secret_peek_tap.py").toAbsolutePath();
        // The stand-in pods' volumes: <kubelet root>/<pod>/<volume>/<key>
        String pipeline = Connectors.pipeline(peek, List.of(), Map.of("peek", List.of(
                kubeletRoot + "/*/db/*", kubeletRoot + "/*/run/*")), Connectors.TARGET, Map.of(), Map.of());
        UUID run = UUID.fromString(Connectors.trigger(pipeline, Map.of()));
        String jobName = RunJobSpec.jobName(run);
        assertEquals("SUCCEEDED", Connectors.awaitEnd(run.toString(), RUN).then().extract().path("status"),
                kubelet.log(jobName));
        // The runner's lines are in the log tail it stored (the claiming replica's own log file has only its lines).
        String log;
        try (Connection c = db.connect()) {
            log = (String) row(c, "select log_tail from pipeline_run where id = ?", run).orElseThrow().get("log_tail");
        }
        assertTrue(log.contains("extractor | UID 65534"), log);
        assertTrue(log.contains("extractor | ENVIRON DENIED errno 13"), log);
        assertTrue(log.contains("extractor | CONFIG READ"), log);
        for (String file : List.of("QUARKUS_DATASOURCE_PASSWORD", "QUARKUS_DATASOURCE_JDBC_URL", "prepared.json")) {
            assertTrue(log.contains("extractor | PEEK " + file + " DENIED errno 13"), log);
        }
        assertFalse(log.contains("READABLE"), log);
        Job job = client.batch().v1().jobs().inNamespace(NS).withName(jobName).get();
        Container ctr = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(0L, ctr.getSecurityContext().getRunAsUser());
        assertTrue(ctr.getEnv().stream().anyMatch(e -> e.getName().equals("TAPLINE_RUNNER_RUN_AS_USER")
                && e.getValue().equals("nobody")));
        assertTrue(kubelet.environment(jobName).keySet().stream().noneMatch(k -> k.startsWith("QUARKUS_DATASOURCE")));
    }

    private static void awaitOwner(Connection c, UUID run, String ownerPrefix) {
        await("run RUNNING in its pod").atMost(RUN).pollInterval(Duration.ofMillis(200))
                .until(() -> row(c, "select status, owner_instance from pipeline_run where id = ?", run)
                        .map(r -> "RUNNING".equals(r.get("status")) && r.get("owner_instance") != null
                                && ((String) r.get("owner_instance")).startsWith(ownerPrefix))
                        .orElse(false));
    }
}
