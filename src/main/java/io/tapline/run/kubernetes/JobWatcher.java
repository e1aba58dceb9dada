package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tapline.common.config.TaplineConfig;
import io.tapline.invocation.FailedComponent;
import io.tapline.invocation.FailureType;
import io.tapline.run.RunEnd;
import io.tapline.run.RunEndService;
import io.tapline.run.RunRepository;
import io.tapline.run.RunService;
import io.tapline.run.RunStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The service side of runs in Kubernetes Jobs, on every replica (each write is a guarded update,
 * so replicas watching the same pods do not conflict):
 * <ul>
 *   <li>a runner pod that cannot start or was killed by Kubernetes ({@link PodFailure}: image pull
 *       error, unschedulable, OOMKilled, evicted) fails its run at once, with Kubernetes' reason,
 *       and its Job is deleted;</li>
 *   <li>while a pod is pending or starting (its run handed to the Job, owner {@code job:<name>})
 *       the run's heartbeat is refreshed at each informer resync ({@code tapline.runner.heartbeat-interval}),
 *       so slow image pulls are not reaped; a pod that ends before its runner took the run over
 *       fails the run at once; once the runner took it over, the runner heartbeats, and a runner
 *       that died silently is reaped as any run;</li>
 *   <li>a cancel request deletes the run's Job (the runner gets SIGTERM, stores its last
 *       acknowledged state and records the cancel); a run whose pod never took it over is
 *       cancelled here.</li>
 * </ul>
 * Active only when {@code tapline.kubernetes.image} is set, and never in runner mode.
 */
@ApplicationScoped
public class JobWatcher {

    private static final Logger LOG = Logger.getLogger(JobWatcher.class);
    /** Owner of a run handed to its Job, until the runner in the pod takes it over. */
    public static final String JOB_OWNER_PREFIX = "job:";

    private final RunJobs jobs;
    private final RunRepository runs;
    private final RunEndService ends;
    private final TaplineConfig config;
    private final Clock clock;
    private final ExecutorService calls = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kubernetes-runs");
        t.setDaemon(true);
        return t;
    });
    private volatile SharedIndexInformer<Pod> informer;

    public JobWatcher(RunJobs jobs, RunRepository runs, RunEndService ends, TaplineConfig config, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.ends = ends;
        this.config = config;
        this.clock = clock;
    }

    /** The owner of a run handed to its Job. */
    public static String jobOwner(UUID runId) {
        return JOB_OWNER_PREFIX + RunJobSpec.jobName(runId);
    }

    /** True when runs may go to Kubernetes from this process (the image is set, not runner mode). */
    public boolean enabled() {
        return config.kubernetes().image().isPresent() && !config.runner().singleRun();
    }

    void onStart(@Observes StartupEvent event) {
        if (!enabled()) {
            return;
        }
        try {
            informer = jobs.informPods(new ResourceEventHandler<>() {
                @Override
                public void onAdd(Pod pod) {
                    seen(pod);
                }

                @Override
                public void onUpdate(Pod old, Pod pod) {
                    seen(pod);
                }

                @Override
                public void onDelete(Pod pod, boolean unknownFinalState) {
                }
            }, config.runner().heartbeatInterval().toMillis());
            LOG.infof("Watching runner pods in namespace %s", jobs.namespace());
        } catch (RuntimeException e) {
            LOG.errorf("Watching runner pods failed; failed pods are reaped after the heartbeat timeout: %s",
                    e.getMessage());
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        SharedIndexInformer<Pod> i = informer;
        if (i != null) {
            i.close();
        }
        calls.shutdownNow();
    }

    /** What a pod's status means for its run; package-private for tests. */
    void seen(Pod pod) {
        String label = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(RunJobSpec.RUN_ID);
        UUID runId;
        try {
            runId = UUID.fromString(label);
        } catch (RuntimeException e) {
            return;
        }
        try {
            Optional<PodFailure> failure = PodFailure.of(pod);
            String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
            if (failure.isPresent()) {
                fail(runId, failure.get(), null);
            } else if ("Pending".equals(phase) || "Running".equals(phase)) {
                // Until the runner took the run over, the live pod vouches for it.
                QuarkusTransaction.requiringNew().run(() -> runs.heartbeat(List.of(runId), jobOwner(runId),
                        OffsetDateTime.now(clock)));
            } else if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
                // Only matches while the run is still the Job's: the runner ended before taking it over.
                fail(runId, new PodFailure(FailureType.CONFIGURATION, "pod " + pod.getMetadata().getName()
                        + " ended (" + phase + ", exit code " + PodFailure.exitCode(pod)
                        + ") before its runner took the run over; see the pod's log"), jobOwner(runId));
            }
        } catch (RuntimeException e) {
            LOG.warnf("Handling pod %s of run %s failed: %s", pod.getMetadata().getName(), runId, e.getMessage());
        }
    }

    /** Fails a RUNNING run (of {@code owner}, when not null) and deletes its Job. */
    private void fail(UUID runId, PodFailure f, String owner) {
        boolean ended = ends.end(runId, new RunEnd.Guard(RunStatus.RUNNING, owner, null),
                RunEnd.of(RunStatus.FAILED, FailedComponent.SERVICE, f.type(), "Kubernetes: " + f.reason()));
        if (ended) {
            LOG.warnf("Run %s failed: Kubernetes: %s", runId, f.reason());
            calls.execute(() -> deleteQuietly(runId));
        }
    }

    void onCancel(@Observes(during = TransactionPhase.AFTER_SUCCESS) RunService.CancelRequested event) {
        if (!enabled()) {
            return;
        }
        calls.execute(() -> {
            if (!deleteQuietly(event.id())) {
                return;
            }
            LOG.infof("Run %s: cancel deleted its Job", event.id());
            // A pod that never took the run over records nothing: the cancel is recorded here.
            ends.end(event.id(), new RunEnd.Guard(RunStatus.RUNNING, jobOwner(event.id()), null),
                    RunEnd.of(RunStatus.CANCELLED, null, FailureType.CANCELLED,
                            event.reason() == null ? "cancelled" : event.reason()));
        });
    }

    private boolean deleteQuietly(UUID runId) {
        try {
            return jobs.delete(runId);
        } catch (RuntimeException e) {
            LOG.warnf("Deleting the Job of run %s failed: %s", runId, e.getMessage());
            return false;
        }
    }
}
