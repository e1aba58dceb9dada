package io.tapline.common.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Helpers for Tapline's {@code ConfigSourceFactory} implementations, which run while the
 * configuration itself is being built (no {@link TaplineConfig} mapping exists yet).
 */
public final class ConfigSourceSupport {

    private ConfigSourceSupport() {
    }

    /** The setting naming the directories of SmallRye's file-system config source (one file per key). */
    public static final String FILE_LOCATIONS = "smallrye.config.source.file.locations";

    /**
     * The trimmed value of {@code key} as seen so far, else as the files of {@link #FILE_LOCATIONS}
     * give it ({@link #fromFiles}), or {@code fallback} when unset or blank.
     */
    public static String value(ConfigSourceContext context, String key, String fallback) {
        ConfigValue v = context.getValue(key);
        if (v != null && v.getValue() != null && !v.getValue().isBlank()) {
            return v.getValue().trim();
        }
        return fromFiles(context, key).orElse(fallback);
    }

    /**
     * The value of {@code key} in the directories of {@link #FILE_LOCATIONS} (a Kubernetes Secret
     * mounted as files), found as SmallRye's {@code FileSystemConfigSource} finds it: a file named as
     * the key, else with every character but letters, digits and {@code _} replaced by {@code _},
     * else that upper-cased ({@code QUARKUS_DATASOURCE_JDBC_URL}); its lines joined, trimmed. The
     * service reads those files at run time, but SmallRye gives a factory's context none of the
     * sources of other factories, so a factory's own checks look here.
     *
     * @return empty when no location is set or no such file is readable and non-blank
     */
    public static Optional<String> fromFiles(ConfigSourceContext context, String key) {
        ConfigValue locations = context.getValue(FILE_LOCATIONS);
        if (locations == null || locations.getValue() == null || locations.getValue().isBlank()) {
            return Optional.empty();
        }
        String sanitized = key.replaceAll("[^a-zA-Z0-9_]", "_");
        for (String dir : locations.getValue().split(",")) {
            if (dir.isBlank()) {
                continue;
            }
            for (String name : List.of(key, sanitized, sanitized.toUpperCase(Locale.ROOT))) {
                Path file = Path.of(dir.trim()).resolve(name);
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                try {
                    String text = String.join("", Files.readAllLines(file)).trim();
                    if (!text.isEmpty()) {
                        return Optional.of(text);
                    }
                } catch (IOException | UncheckedIOException e) {
                    // unreadable: as if missing
                }
            }
        }
        return Optional.empty();
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
