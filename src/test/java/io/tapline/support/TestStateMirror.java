package io.tapline.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Empties the tests' state mirror directory ({@code %test.tapline.state.mirror-dir}) before each
 * test application starts: every application has a fresh database, and files left by an earlier
 * one would otherwise be read back as changes made by Meltano.
 */
public class TestStateMirror implements QuarkusTestResourceLifecycleManager {

    /** The directory of {@code %test.tapline.state.mirror-dir}. */
    public static final Path DIR = Path.of("target/test-state-mirror");

    @Override
    public Map<String, String> start() {
        if (Files.isDirectory(DIR)) {
            try (Stream<Path> walk = Files.walk(DIR)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    if (!p.equals(DIR)) {
                        Files.deleteIfExists(p);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Map.of();
    }

    @Override
    public void stop() {
    }
}
