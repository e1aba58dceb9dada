package io.tapline.common.config;

import jakarta.enterprise.context.ApplicationScoped;

import java.net.InetAddress;
import java.util.UUID;

/**
 * The name of this replica, stored as a run's {@code ownerInstance}: {@code tapline.runner.instance-id},
 * else the host name (the pod name on Kubernetes) plus a random suffix, so a restarted pod never
 * mistakes the runs of its previous life for its own.
 */
@ApplicationScoped
public class InstanceId {

    private final String id;

    public InstanceId(TaplineConfig config) {
        this.id = config.runner().instanceId().orElseGet(() -> host() + "-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /** This replica's id. */
    public String get() {
        return id;
    }

    private static String host() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "tapline";
        }
    }
}
