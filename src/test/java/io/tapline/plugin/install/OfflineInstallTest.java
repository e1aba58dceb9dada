package io.tapline.plugin.install;

import io.tapline.common.config.TaplineConfig.Plugins.BuildIsolation;
import io.tapline.common.security.RunAsUser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 26 item 9: installs of a local source tree (the setuptools backend) without an index, with
 * real pip in real virtual environments (this machine has no package index: the air-gapped case).
 * pip sees no configuration file and none of the service's {@code PIP_*} variables, so the
 * wheelhouse of the spec is the only source. Needs python3 with venv, setuptools and wheel (Debian:
 * python3-venv, python3-setuptools, python3-wheel); skipped with a message without them.
 */
class OfflineInstallTest {

    private static final Path DIR = Path.of("target/test-plugins-offline").toAbsolutePath();
    private static final List<String> NO_INDEX = List.of("--no-index");
    private static String python;

    @BeforeAll
    static void interpreter() {
        String found;
        try {
            found = TestPackages.buildPython();
            Process p = new ProcessBuilder(found, "-c", "import venv, ensurepip").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            found = p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 ? found : null;
        } catch (Exception e) {
            found = null;
        }
        assumeTrue(found != null, "skipped: needs python3 with venv, setuptools and wheel (Debian: python3-venv"
                + " python3-setuptools python3-wheel)");
        python = found;
    }

    /** A builder whose installs see only PATH and HOME of this JVM (no pip configuration, no PIP_* variables). */
    private static EnvironmentBuilder builder() {
        return new EnvironmentBuilder(Clock.systemUTC(), new RunAsUser(Optional.empty()), Map.of(
                "PATH", System.getenv().getOrDefault("PATH", InstallEnv.DEFAULT_PATH),
                "HOME", DIR.resolve(".home").toString(), "PIP_CONFIG_FILE", "/dev/null", "PIP_NO_CACHE_DIR", "1"));
    }

    private static EnvironmentBuilder.Spec spec(PluginEnvironment env, Path src, List<String> findLinks,
                                                BuildIsolation isolation) {
        return new EnvironmentBuilder.Spec(env, python, PipUrl.parse(src.toString()).pipUrl(), src.toString(), NO_INDEX,
                findLinks, isolation, null, "tap-offline", Path.of("").toAbsolutePath(), Duration.ofMinutes(3), null);
    }

    private static PluginEnvironment env(String name) {
        return PluginEnvironment.of(DIR, "extractors", name + "-" + System.nanoTime());
    }

    private static void assertTapRuns(PluginEnvironment env) throws Exception {
        String out = TestPackages.runTap(env.bin("tap-offline"));
        assertTrue(out.contains("\"type\": \"RECORD\""), out);
    }

    @Test
    void aSourceTreeBuildsIsolatedWithSetuptoolsAndWheelFromTheWheelhouse() throws Exception {
        Path wheelhouse = TestPackages.wheelhouse();
        Path src = TestPackages.setuptoolsSource("tap-offline-wheelhouse");
        PluginEnvironment env = env("tap-wheelhouse");
        List<String> log = new CopyOnWriteArrayList<>();

        PluginEnvironment.Marker m = builder().build(spec(env, src, List.of(wheelhouse.toString()), BuildIsolation.ON),
                log::add, () -> false, () -> { }).marker();

        assertEquals("tap-offline", m.distribution());
        assertEquals("3.0.0", m.version());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("$ ") && l.contains(" -m pip install ")
                && l.contains(" --no-index --find-links=" + wheelhouse + " " + src)), log.toString());
        assertTrue(log.stream().noneMatch(l -> l.contains("--no-build-isolation")), log.toString());
        assertTrue(log.stream().anyMatch(l -> l.contains("Installing build dependencies")), "an isolated build");
        assertTapRuns(env);
        assertFalse(Files.exists(env.dir().resolve(BuildRequirements.SCRATCH)));
    }

    @Test
    void withoutAWheelhouseAutoBuildsWithoutIsolationWithThePythonsOwnSetuptoolsAndWheel() throws Exception {
        Path src = TestPackages.setuptoolsSource("tap-offline-auto");
        PluginEnvironment env = env("tap-auto");
        List<String> log = new CopyOnWriteArrayList<>();

        PluginEnvironment.Marker m = builder().build(spec(env, src, List.of(), BuildIsolation.AUTO), log::add,
                () -> false, () -> { }).marker();

        assertEquals("3.0.0", m.version());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("the isolated build could not get its build requirements"
                + " (build isolation: pip could not install") && l.endsWith(
                "tapline.plugins.build-isolation is auto: building without build isolation")), log.toString());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("packed wheel ")), log.toString());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("$ ") && l.endsWith(" --no-index --no-build-isolation "
                + src)), log.toString());
        assertTapRuns(env);
        assertFalse(Files.exists(env.dir().resolve(BuildRequirements.SCRATCH)), "the packed wheels are removed");
    }

    @Test
    void offNeverTriesAnIsolatedBuild() throws Exception {
        Path src = TestPackages.setuptoolsSource("tap-offline-off");
        PluginEnvironment env = env("tap-off");
        List<String> log = new CopyOnWriteArrayList<>();

        assertEquals("3.0.0", builder().build(spec(env, src, List.of(), BuildIsolation.OFF), log::add, () -> false,
                () -> { }).marker().version());

        assertTrue(log.stream().noneMatch(l -> l.contains("Installing build dependencies")), log.toString());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("building without build isolation: installing setuptools"
                + " and wheel")), log.toString());
        assertTapRuns(env);
    }

    /**
     * Regression: the isolated build's missing setuptools was reported as "pip found no
     * distribution matching 'setuptools' (unknown package name or version on the configured index)".
     */
    @Test
    void anIsolatedBuildWithoutSetuptoolsFailsNamingBuildIsolationAndTheFix() throws Exception {
        Path src = TestPackages.setuptoolsSource("tap-offline-on");
        PluginEnvironment env = env("tap-on");

        EnvironmentBuilder.InstallFailure f = assertThrows(EnvironmentBuilder.InstallFailure.class, () ->
                builder().build(spec(env, src, List.of(), BuildIsolation.ON), l -> { }, () -> false, () -> { }));

        assertEquals("build isolation: pip could not install the build requirements of a source tree or sdist (no"
                + " distribution of 'setuptools' on the index or in the wheelhouses); offline, put wheels of"
                + " setuptools and wheel (and of any other build backend) into a directory of"
                + " tapline.plugins.find-links, or set tapline.plugins.build-isolation to auto or off to build with"
                + " the setuptools and wheel of the wheelhouses or of the plugin's python: ERROR: Could not find a"
                + " version that satisfies the requirement setuptools (from versions: none) / ERROR: No matching"
                + " distribution found for setuptools / error: subprocess-exited-with-error", f.getMessage());
        assertTrue(env.marker().isEmpty());
    }
}
