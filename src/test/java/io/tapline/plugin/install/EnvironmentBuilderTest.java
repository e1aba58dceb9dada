package io.tapline.plugin.install;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EnvironmentBuilder} with real interpreters and real packages, offline: the layout and
 * marker, the fingerprint, and a process killed mid-install (the service dying) leaving the plugin
 * not installed until the next install cleans up and builds it.
 */
class EnvironmentBuilderTest {

    private static final List<String> OFFLINE = List.of("--isolated", "--no-index");
    private static final Path DIR = Path.of("target/test-plugins-unit").toAbsolutePath();

    private static EnvironmentBuilder.Spec spec(PluginEnvironment env, String pipUrl, String exe) {
        return new EnvironmentBuilder.Spec(env, "python3", PipUrl.parse(pipUrl).pipUrl(), pipUrl, OFFLINE, null, exe,
                Path.of("").toAbsolutePath(), Duration.ofMinutes(3), null);
    }

    @Test
    void buildsTheMeltanoLayoutWithTheMarkerAndTheDistributionVersion() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        PluginEnvironment env = PluginEnvironment.of(DIR, "extractors", "tap-tiny-" + System.nanoTime());
        List<String> log = new CopyOnWriteArrayList<>();
        assertTrue(env.installed("python3", wheel).isEmpty());

        PluginEnvironment.Marker m = new EnvironmentBuilder(Clock.systemUTC()).build(spec(env, wheel, "tap-tiny"),
                log::add, () -> false, () -> { }).marker();

        assertEquals("tap-tiny", m.distribution());
        assertEquals("1.0.0", m.version());
        assertTrue(Files.isSymbolicLink(env.venv()), "venv is the link swapped into place");
        assertTrue(Files.isExecutable(env.bin("tap-tiny")));
        assertEquals(PluginEnvironment.fingerprint("python3", wheel), env.installed("python3", wheel).get().fingerprint());
        // A change of pip_url or python invalidates it.
        assertTrue(env.installed("python3", wheel + " ").isEmpty());
        assertTrue(env.installed("/usr/bin/python3", wheel).isEmpty());
        assertTrue(log.stream().anyMatch(l -> l.contains("Successfully installed tap-tiny-1.0.0")), log.toString());
        // The console script runs from the path the plugin's executable resolves to.
        String out = TestPackages.runTap(env.bin("tap-tiny"));
        assertTrue(out.contains("\"type\": \"RECORD\""), out);
    }

    /**
     * Issue 31 item 11: an install that waited for the file lock while another process installed
     * the same pip_url and python uses that environment: no venv, no pip.
     */
    @Test
    void anInstallThatFindsTheSameFingerprintInstalledMeanwhileUsesIt() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        PluginEnvironment env = PluginEnvironment.of(DIR, "extractors", "tap-reuse-" + System.nanoTime());
        PluginEnvironment.Marker first = new EnvironmentBuilder(Clock.systemUTC()).build(spec(env, wheel, "tap-tiny"),
                l -> { }, () -> false, () -> { }).marker();
        Path current = env.venv().toRealPath();

        List<String> log = new CopyOnWriteArrayList<>();
        EnvironmentBuilder.Result again = new EnvironmentBuilder(Clock.systemUTC()).build(spec(env, wheel, "tap-tiny"),
                log::add, () -> false, () -> { });

        assertTrue(again.reused());
        assertEquals(first, again.marker());
        assertEquals(current, env.venv().toRealPath());
        assertEquals(List.of("another process installed tap-tiny 1.0.0 into " + env.venv()
                + " while this install waited; using it as it is"), log);
    }

    @Test
    void anExecutableThePackageDoesNotProvideFailsTheInstall() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        PluginEnvironment env = PluginEnvironment.of(DIR, "extractors", "tap-other-" + System.nanoTime());
        EnvironmentBuilder.InstallFailure f = assertThrows(EnvironmentBuilder.InstallFailure.class, () ->
                new EnvironmentBuilder(Clock.systemUTC()).build(spec(env, wheel, "tap-other"), l -> { }, () -> false,
                        () -> { }));
        assertEquals("the pip_url installed no command named 'tap-other' (the plugin's executable) in the"
                + " environment's bin/; commands there: tap-tiny", f.getMessage());
        assertTrue(env.marker().isEmpty());
        try (var s = Files.list(env.dir())) {
            assertEquals(List.of(".install.lock"), s.map(x -> x.getFileName().toString()).toList(),
                    "the failed environment is removed");
        }
    }

    @Test
    void aProcessKilledMidInstallLeavesItNotInstalledAndTheNextInstallCleansUp() throws Exception {
        Path src = TestPackages.slowSource("tap-slow-unit-" + System.nanoTime());
        String name = "tap-slow-" + System.nanoTime();
        PluginEnvironment env = PluginEnvironment.of(DIR, "extractors", name);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), InstallProcessMain.class.getName(), DIR.toString(),
                "extractors", name, "python3", src.toString(), "tap-slow"));
        cmd.addAll(OFFLINE);
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(new File("target/install-process-" + name + ".log")).start();
        try {
            // pip is building the package: the environment is half-made.
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(src.resolve("started")));
            List<ProcessHandle> descendants = child.descendants().toList();
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            descendants.forEach(ProcessHandle::destroyForcibly);
        } finally {
            child.destroyForcibly();
        }
        List<String> left;
        try (var s = Files.list(env.dir())) {
            left = s.map(x -> x.getFileName().toString()).toList();
        }
        assertTrue(left.stream().anyMatch(n -> n.startsWith("env-")), "the half-made environment is left: " + left);
        assertFalse(Files.exists(env.venv()), "nothing is swapped into place: " + left);
        assertTrue(env.installed("python3", src.toString()).isEmpty());

        // The next install (the hold released) cleans up and installs.
        Files.delete(src.resolve("hold"));
        List<String> log = new CopyOnWriteArrayList<>();
        PluginEnvironment.Marker m = new EnvironmentBuilder(Clock.systemUTC()).build(spec(env, src.toString(),
                "tap-slow"), log::add, () -> false, () -> { }).marker();
        assertEquals("2.0.0", m.version());
        assertTrue(log.stream().anyMatch(l -> l.startsWith("removing env-")), log.toString());
        try (var s = Files.list(env.dir())) {
            assertEquals(1, s.filter(x -> x.getFileName().toString().startsWith("env-")).count());
        }
        assertTrue(env.installed("python3", src.toString()).isPresent());
    }

    /**
     * Dockerfile.connectors.example's install script, run here (offline, another root and
     * interpreter), builds an environment that the service takes as installed: same layout, same
     * fingerprint, same marker fields.
     */
    @Test
    void theConnectorsImageScriptBuildsTheLayoutTheServiceTakesAsInstalled() throws Exception {
        String wheel = TestPackages.tinyWheel().toString();
        String docker = Files.readString(Path.of("Dockerfile.connectors.example"));
        int start = docker.indexOf("python3.11 - <<'EOF'\n") + "python3.11 - <<'EOF'\n".length();
        String script = docker.substring(start, docker.indexOf("\nEOF\n", start))
                .replace("ROOT, PYTHON = \"/opt/tapline/plugins\", \"python3.11\"",
                        "ROOT, PYTHON = \"" + DIR + "\", \"python3\"");
        String name = "tap-image-" + System.nanoTime();
        ProcessBuilder pb = new ProcessBuilder("python3", "-c", script).redirectErrorStream(true);
        pb.environment().put("PLUGINS", "extractors/" + name + ":tap-tiny=" + wheel + ";");
        pb.environment().put("PIP_CONFIG_FILE", "/dev/null");
        pb.environment().put("PIP_NO_INDEX", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(180, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);

        PluginEnvironment env = PluginEnvironment.of(DIR, "extractors", name);
        PluginEnvironment.Marker m = env.installed("python3", wheel).orElseThrow(() -> new AssertionError(out));
        assertEquals("tap-tiny", m.distribution());
        assertEquals("1.0.0", m.version());
        assertTrue(Files.isExecutable(env.bin("tap-tiny")));
        assertFalse(Files.isSymbolicLink(env.venv()), "the image builds venv in place");

        // A reinstall by the service (asked for with this marker seen) moves the image's directory aside and swaps
        // its own in.
        EnvironmentBuilder.Spec again = spec(env, wheel, "tap-tiny");
        again = new EnvironmentBuilder.Spec(again.env(), again.python(), again.pipUrl(), again.pipUrlText(),
                again.pipArgs(), again.uv(), again.executable(), again.workDir(), again.timeout(), m);
        assertFalse(new EnvironmentBuilder(Clock.systemUTC()).build(again, l -> { }, () -> false, () -> { }).reused());
        assertTrue(Files.isSymbolicLink(env.venv()));
        assertTrue(env.installed("python3", wheel).isPresent());
    }
}
