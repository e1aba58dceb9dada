package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.tapline.common.config.TaplineConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import java.util.UUID;

/**
 * Every Kubernetes API call of the {@code kubernetes} executor, in the runs' namespace
 * ({@code tapline.kubernetes.namespace}, else the client's): create a run's Job and its Secret,
 * delete a run's Job (its pod gets SIGTERM; the Secret is garbage-collected with it), and inform
 * on the runner pods. Kept small so that the executor's logic is tested against an API server
 * (the fabric8 mock server) without a cluster.
 */
@ApplicationScoped
public class RunJobs {

    private final Instance<KubernetesClient> clients;
    private final TaplineConfig config;

    public RunJobs(Instance<KubernetesClient> clients, TaplineConfig config) {
        this.clients = clients;
        this.config = config;
    }

    /**
     * Creates the run's Job, then its Secret (owned by the Job); when the Secret cannot be
     * created the Job is deleted again.
     *
     * @param prepared the prepared run's JSON (decrypted plugin secrets)
     * @return the Job's name
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API refuses or is unreachable
     */
    public String launch(RunJobSpec.Launch l, String image, long terminateGraceSeconds, String prepared) {
        KubernetesClient c = client();
        String ns = namespace(c);
        Job job = c.batch().v1().jobs().inNamespace(ns)
                .resource(RunJobSpec.job(l, config.kubernetes(), image, terminateGraceSeconds)).create();
        try {
            c.secrets().inNamespace(ns).resource(RunJobSpec.secret(l, job, prepared)).create();
        } catch (RuntimeException e) {
            delete(l.runId());
            throw e;
        }
        return job.getMetadata().getName();
    }

    /** Deletes a run's Job (background propagation: its pod is stopped, its Secret collected); true when it existed. */
    public boolean delete(UUID runId) {
        KubernetesClient c = client();
        String ns = namespace(c);
        boolean deleted = !c.batch().v1().jobs().inNamespace(ns).withName(RunJobSpec.jobName(runId))
                .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete().isEmpty();
        // The garbage collector removes it too; deleting it now keeps the secrets' life short.
        c.secrets().inNamespace(ns).withName(RunJobSpec.jobName(runId)).delete();
        return deleted;
    }

    /** Informs {@code handler} about the runner pods (label {@code app.kubernetes.io/managed-by=tapline}). */
    public SharedIndexInformer<Pod> informPods(ResourceEventHandler<Pod> handler, long resyncMillis) {
        KubernetesClient c = client();
        return c.pods().inNamespace(namespace(c)).withLabel(RunJobSpec.MANAGED_BY, RunJobSpec.TAPLINE)
                .withLabel(RunJobSpec.RUN_ID).inform(handler, resyncMillis);
    }

    /** The runs' namespace. */
    public String namespace() {
        return namespace(client());
    }

    private String namespace(KubernetesClient c) {
        return config.kubernetes().namespace().orElseGet(() -> c.getNamespace() == null ? "default" : c.getNamespace());
    }

    private KubernetesClient client() {
        return clients.get();
    }
}
