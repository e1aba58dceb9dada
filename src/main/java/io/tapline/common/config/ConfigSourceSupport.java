package io.tapline.common.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;

/**
 * Helpers for Tapline's {@code ConfigSourceFactory} implementations, which run while the
 * configuration itself is being built (no {@link TaplineConfig} mapping exists yet).
 */
public final class ConfigSourceSupport {

    private ConfigSourceSupport() {
    }

    /** The trimmed value of {@code key} as seen so far, or {@code fallback} when unset or blank. */
    public static String value(ConfigSourceContext context, String key, String fallback) {
        ConfigValue v = context.getValue(key);
        return v == null || v.getValue() == null || v.getValue().isBlank() ? fallback : v.getValue().trim();
    }

    /**
     * True while the Quarkus build (augmentation) runs, where a factory must neither start
     * anything nor fail for missing runtime settings.
     */
    public static boolean isBuildTime() {
        for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
            String c = e.getClassName();
            if (c.startsWith("io.quarkus.deployment.") || c.startsWith("io.quarkus.maven.")) {
                return true;
            }
        }
        return false;
    }
}
