package io.tapline.run.kubernetes;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.tapline.invocation.FailureType;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Why a runner pod will not run (or stopped running) its run, from the pod's status, in
 * Kubernetes' own words: image pull errors and bad container config (type configuration),
 * unschedulable pods, OOMKilled containers and evictions (type resource). A pod that merely exits
 * (the runner records its own end) is none of these.
 *
 * @param type the run's failure type
 * @param reason readable reason, starting with Kubernetes' reason (e.g. {@code ErrImagePull: ...})
 */
public record PodFailure(FailureType type, String reason) {

    /** Waiting reasons that mean the container will not start without a change. */
    static final Set<String> NOT_STARTING = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError");

    /** The failure the pod's status shows, if any. */
    public static Optional<PodFailure> of(Pod pod) {
        PodStatus s = pod.getStatus();
        if (s == null) {
            return Optional.empty();
        }
        String pod0 = "pod " + pod.getMetadata().getName();
        if ("Failed".equals(s.getPhase()) && "Evicted".equals(s.getReason())) {
            return Optional.of(new PodFailure(FailureType.RESOURCE, "Evicted: " + pod0 + " was evicted"
                    + suffix(s.getMessage())));
        }
        for (ContainerStatus c : list(s.getContainerStatuses())) {
            if (c.getState() != null && c.getState().getWaiting() != null
                    && NOT_STARTING.contains(c.getState().getWaiting().getReason())) {
                return Optional.of(new PodFailure(FailureType.CONFIGURATION, c.getState().getWaiting().getReason()
                        + ": " + pod0 + " cannot start its container" + suffix(c.getState().getWaiting().getMessage())));
            }
            if (c.getState() != null && c.getState().getTerminated() != null
                    && "OOMKilled".equals(c.getState().getTerminated().getReason())) {
                return Optional.of(new PodFailure(FailureType.RESOURCE, "OOMKilled: " + pod0
                        + " ran out of memory (tapline.kubernetes.memory)"));
            }
        }
        for (PodCondition c : list(s.getConditions())) {
            if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())
                    && "Unschedulable".equals(c.getReason())) {
                return Optional.of(new PodFailure(FailureType.RESOURCE, "Unschedulable: " + pod0
                        + " cannot be scheduled" + suffix(c.getMessage())));
            }
        }
        return Optional.empty();
    }

    /** The exit code of the pod's terminated container, or null. */
    public static Integer exitCode(Pod pod) {
        PodStatus s = pod.getStatus();
        for (ContainerStatus c : list(s == null ? null : s.getContainerStatuses())) {
            if (c.getState() != null && c.getState().getTerminated() != null) {
                return c.getState().getTerminated().getExitCode();
            }
        }
        return null;
    }

    private static String suffix(String message) {
        return message == null || message.isBlank() ? "" : " (" + message.strip() + ")";
    }

    private static <T> List<T> list(List<T> l) {
        return l == null ? List.of() : l;
    }
}
