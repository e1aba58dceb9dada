package io.tapline.support;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in kubelet and Job controller for the kubernetes executor's tests, against the fabric8
 * mock API server (CRUD mode): when a Job appears in the namespace it creates the Job's pod,
 * materialises the pod's volumes (emptyDir: a fresh directory; secret: the Secret's keys as
 * files with the volume's {@code defaultMode}, owned by the test's user, waiting for the Secret as a
 * kubelet does), and starts the container as a local process
 * with the Job's environment ({@code env} and {@code envFrom} Secrets; paths under a volume's
 * mount path rewritten to the local directory). The container's command is its {@code command},
 * else the image's entrypoint: the packaged build ({@link ServiceProcess#packagedCommand}).
 * Status goes back as a kubelet writes it: pod Pending → Running → Succeeded/Failed with the exit
 * code, the Job's succeeded/failed counts and condition. An image whose name contains
 * {@value #UNPULLABLE} (or any image while {@link #unpullable} is on) is never started: its pod
 * waits in {@code ErrImagePull}. A Job that is
 * deleted gets its process SIGTERM, then SIGKILL after the pod's grace period.
 */
public final class TestKubelet implements AutoCloseable {

    /** Images whose name contains this cannot be pulled. */
    public static final String UNPULLABLE = "unpullable";

    private final KubernetesClient client;
    private final String namespace;
    private final Path root;
    private final Map<String, String> imageEnv;
    private final Map<String, Process> processes = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> environments = new ConcurrentHashMap<>();
    private final Map<String, Process> stopping = new ConcurrentHashMap<>();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final Thread loop;
    private volatile boolean running = true;
    private volatile boolean unpullable;

    /**
     * @param imageEnv variables every container gets first, as an image's {@code ENV} (PATH, ...)
     */
    public TestKubelet(KubernetesClient client, String namespace, Path root, Map<String, String> imageEnv) {
        this.client = client;
        this.namespace = namespace;
        this.root = root;
        this.imageEnv = imageEnv;
        this.loop = new Thread(this::loop, "test-kubelet");
        this.loop.setDaemon(true);
        this.loop.start();
    }

    /** From now on, every image cannot be pulled ({@code true}), or every image can again. */
    public void unpullable(boolean on) {
        unpullable = on;
    }

    /** The process of a Job's container, if started. */
    public Process process(String job) {
        return processes.get(job);
    }

    /** The environment a Job's container was started with, if started. */
    public Map<String, String> environment(String job) {
        return environments.get(job);
    }

    /** The output of a Job's container. */
    public String log(String job) {
        try {
            Path f = root.resolve(job + ".log");
            return Files.exists(f) ? Files.readString(f) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void loop() {
        while (running) {
            try {
                List<Job> jobs = client.batch().v1().jobs().inNamespace(namespace).list().getItems();
                Set<String> names = ConcurrentHashMap.newKeySet();
                for (Job j : jobs) {
                    String name = j.getMetadata().getName();
                    names.add(name);
                    if (seen.add(name)) {
                        Thread t = new Thread(() -> start(j), "test-kubelet-" + name);
                        t.setDaemon(true);
                        t.start();
                    }
                }
                for (Map.Entry<String, Process> e : processes.entrySet()) {
                    if (!names.contains(e.getKey()) && e.getValue().isAlive()) {
                        stop(e.getKey(), e.getValue());
                    }
                }
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (running) {
                    System.err.println("test kubelet: " + e);
                }
            }
        }
    }

    private void start(Job job) {
        String jobName = job.getMetadata().getName();
        String podName = jobName + "-" + Long.toString(System.nanoTime() % 100000, 36);
        Pod pod = new PodBuilder().withNewMetadata().withName(podName).withNamespace(namespace)
                .withLabels(job.getSpec().getTemplate().getMetadata().getLabels())
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                        .withName(jobName).withUid(job.getMetadata().getUid()).build())
                .endMetadata().withSpec(job.getSpec().getTemplate().getSpec())
                .withStatus(new PodStatusBuilder().withPhase("Pending").build()).build();
        client.pods().inNamespace(namespace).resource(pod).create();
        Container c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        if (c.getImage().contains(UNPULLABLE) || unpullable) {
            status(podName, "Pending", new ContainerStateBuilder().withNewWaiting().withReason("ErrImagePull")
                    .withMessage("rpc error: pull access denied for " + c.getImage()).endWaiting().build());
            return;
        }
        try {
            Map<String, Path> mounts = mounts(job, c, podName);
            List<String> cmd = new ArrayList<>(c.getCommand() == null || c.getCommand().isEmpty()
                    ? ServiceProcess.packagedCommand() : c.getCommand());
            for (String a : c.getArgs() == null ? List.<String>of() : c.getArgs()) {
                cmd.add(local(a, mounts));
            }
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile());
            Map<String, String> env = pb.environment();
            env.clear();
            env.putAll(imageEnv);
            for (EnvFromSource from : c.getEnvFrom() == null ? List.<EnvFromSource>of() : c.getEnvFrom()) {
                secretData(from.getSecretRef().getName()).forEach(env::put);
            }
            for (EnvVar v : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
                env.put(v.getName(), local(v.getValue(), mounts));
            }
            env.put("HOSTNAME", podName);
            environments.put(jobName, Map.copyOf(env));
            pb.redirectErrorStream(true).redirectOutput(root.resolve(jobName + ".log").toFile());
            Process p = pb.start();
            processes.put(jobName, p);
            status(podName, "Running", new ContainerStateBuilder().withNewRunning().endRunning().build());
            int code = p.waitFor();
            String reason = code == 0 ? "Completed" : "Error";
            status(podName, code == 0 ? "Succeeded" : "Failed", new ContainerStateBuilder().withNewTerminated()
                    .withExitCode(code).withReason(reason).endTerminated().build());
            if (client.batch().v1().jobs().inNamespace(namespace).withName(jobName).get() == null) {
                // Deleted: the garbage collector takes its pod.
                client.pods().inNamespace(namespace).withName(podName).delete();
                return;
            }
            client.batch().v1().jobs().inNamespace(namespace).withName(jobName).editStatus(j -> {
                j.setStatus(new JobStatusBuilder().withSucceeded(code == 0 ? 1 : 0).withFailed(code == 0 ? 0 : 1)
                        .withConditions(new JobConditionBuilder().withType(code == 0 ? "Complete" : "Failed")
                                .withStatus("True").withReason(code == 0 ? null : "BackoffLimitExceeded").build())
                        .build());
                return j;
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (running) {
                System.err.println("test kubelet: job " + jobName + ": " + e);
            }
        }
    }

    /** Local directories for the container's volume mounts, by mount path. */
    private Map<String, Path> mounts(Job job, Container c, String podName) throws IOException, InterruptedException {
        Map<String, Path> out = new LinkedHashMap<>();
        for (VolumeMount m : c.getVolumeMounts()) {
            Volume v = job.getSpec().getTemplate().getSpec().getVolumes().stream()
                    .filter(x -> x.getName().equals(m.getName())).findFirst().orElseThrow();
            Path dir = Files.createDirectories(root.resolve(podName).resolve(m.getName()));
            if (v.getSecret() != null) {
                Map<String, String> data = awaitSecret(v.getSecret().getSecretName());
                Integer mode = v.getSecret().getDefaultMode();
                for (Map.Entry<String, String> e : data.entrySet()) {
                    Path f = Files.writeString(dir.resolve(e.getKey()), e.getValue());
                    if (mode != null) {
                        Files.setPosixFilePermissions(f, permissions(mode));
                    }
                }
            }
            out.put(m.getMountPath(), dir);
        }
        return out;
    }

    /** The permissions of a numeric file mode such as 0400. */
    private static Set<java.nio.file.attribute.PosixFilePermission> permissions(int mode) {
        Set<java.nio.file.attribute.PosixFilePermission> out = java.util.EnumSet.noneOf(
                java.nio.file.attribute.PosixFilePermission.class);
        java.nio.file.attribute.PosixFilePermission[] all = java.nio.file.attribute.PosixFilePermission.values();
        for (int i = 0; i < 9; i++) {
            if ((mode & (1 << (8 - i))) != 0) {
                out.add(all[i]);
            }
        }
        return out;
    }

    private Map<String, String> awaitSecret(String name) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Secret s = client.secrets().inNamespace(namespace).withName(name).get();
            if (s != null) {
                return decode(s);
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("secret " + name + " never appeared");
    }

    private Map<String, String> secretData(String name) {
        Secret s = client.secrets().inNamespace(namespace).withName(name).get();
        if (s == null) {
            throw new IllegalStateException("secret " + name + " is missing");
        }
        return decode(s);
    }

    private static Map<String, String> decode(Secret s) {
        Map<String, String> out = new LinkedHashMap<>();
        if (s.getData() != null) {
            s.getData().forEach((k, v) -> out.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        }
        if (s.getStringData() != null) {
            out.putAll(s.getStringData());
        }
        return out;
    }

    private static String local(String value, Map<String, Path> mounts) {
        if (value == null) {
            return "";
        }
        for (Map.Entry<String, Path> m : mounts.entrySet()) {
            if (value.equals(m.getKey()) || value.startsWith(m.getKey() + "/")) {
                return m.getValue() + value.substring(m.getKey().length());
            }
        }
        return value;
    }

    private void status(String pod, String phase, io.fabric8.kubernetes.api.model.ContainerState state) {
        client.pods().inNamespace(namespace).withName(pod).editStatus(p -> {
            PodStatus s = new PodStatusBuilder().withPhase(phase).withContainerStatuses(new ContainerStatusBuilder()
                    .withName("runner").withState(state).withReady("Running".equals(phase)).build()).build();
            p.setStatus(s);
            return p;
        });
    }

    /** A deleted Job: SIGTERM to its process, SIGKILL after the pod's grace period; the pod goes too. */
    private void stop(String job, Process p) {
        Thread t = new Thread(() -> {
            p.destroy();
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "test-kubelet-stop-" + job);
        t.setDaemon(true);
        t.start();
        processes.remove(job, p);
        stopping.put(job, p);
    }

    /** The process of a deleted Job, while it is being stopped (or after). */
    public Process stopped(String job) {
        return stopping.get(job);
    }

    @Override
    public void close() {
        running = false;
        loop.interrupt();
        processes.values().forEach(Process::destroyForcibly);
        stopping.values().forEach(Process::destroyForcibly);
    }
}
