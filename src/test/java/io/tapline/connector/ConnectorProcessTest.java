package io.tapline.connector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starts real processes (the Python scripts in {@code src/test/resources/connectors}). Tests
 * synchronise on events: a line the process prints when it is ready, its exit, the end of its
 * stderr. The durations below are upper bounds for those events, not sleeps.
 */
class ConnectorProcessTest {

    /** Upper bound for an event that normally takes milliseconds (generous for loaded CI machines). */
    private static final Duration EVENT = Duration.ofSeconds(60);
    private static final Duration SHORT_GRACE = Duration.ofMillis(500);

    private final ProcessSupervisor supervisor = new ProcessSupervisor();
    private final List<String> stderr = new CopyOnWriteArrayList<>();
    private final List<ConnectorProcess> started = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopEverything() {
        started.forEach(ConnectorProcess::close);
    }

    private static Map<String, String> pathOnly() {
        return ProcessSpec.serviceVariables(List.of("PATH"));
    }

    private ConnectorProcess start(String component, Map<String, String> environment, String script, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(Fixtures.python(), Fixtures.connector(script).toString()));
        command.addAll(List.of(args));
        ConnectorProcess process = supervisor.start(new ProcessSpec(component, command, dir, environment), stderr::add);
        started.add(process);
        return process;
    }

    private static BufferedReader stdoutLines(ConnectorProcess process) {
        return new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    // ---- Exit, pipes, stderr -------------------------------------------------------------------

    @Test
    void aProcessThatExitsByItself() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "stderr_lines.py", "3");
        assertEquals("out", stdoutLines(process).readLine());
        assertTrue(process.waitFor(EVENT));
        assertFalse(process.isAlive());
        assertEquals(3, process.exitCode().orElseThrow());
        assertSame(Termination.NOTHING, process.terminate(SHORT_GRACE));
        assertEquals("extractor", process.component());
        assertSame(process, process.onExit().get(EVENT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
    }

    @Test
    void stderrIsDeliveredLineByLineWithTheComponentPrefix() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "stderr_lines.py");
        assertTrue(process.waitFor(EVENT));
        assertTrue(process.awaitStderr(EVENT));
        assertEquals(List.of(
                "extractor | hello from stderr",
                "extractor | windows line",
                "extractor | bad \uFFFD\uFFFD bytes",
                "extractor | ",
                "extractor | after",
                "extractor | no newline at the end"), stderr);
    }

    @Test
    void aHugeStderrLineIsCutAndTheNextLinesStillArrive() throws Exception {
        ConnectorProcess process = start("loader", pathOnly(), "stderr_lines.py", "0", "200000");
        assertTrue(process.waitFor(EVENT));
        assertTrue(process.awaitStderr(EVENT));
        assertEquals(7, stderr.size(), () -> stderr.stream().map(l -> l.substring(0, Math.min(80, l.length())))
                .collect(Collectors.joining("\n")));
        String cut = stderr.get(4);
        String kept = "x".repeat(StderrPump.MAX_LINE_BYTES);
        assertEquals("loader | " + kept + " [line cut: 200000 bytes, first 65536 shown]", cut);
        assertEquals("loader | after", stderr.get(5));
    }

    @Test
    void cutLinesEndOnACharacterBoundary() {
        byte[] e = "\u00e9".getBytes(StandardCharsets.UTF_8);
        byte[] euro = "\u20ac".getBytes(StandardCharsets.UTF_8);
        byte[] smile = "\ud83d\ude00".getBytes(StandardCharsets.UTF_8);
        assertEquals(3, StderrPump.utf8Boundary(new byte[] {'a', 'b', 'c'}, 3));
        assertEquals(3, StderrPump.utf8Boundary(new byte[] {'a', 'b', 'c', e[0]}, 4));
        assertEquals(4, StderrPump.utf8Boundary(new byte[] {'a', 'b', e[0], e[1]}, 4));
        assertEquals(1, StderrPump.utf8Boundary(new byte[] {'a', euro[0], euro[1]}, 3));
        assertEquals(4, StderrPump.utf8Boundary(new byte[] {'a', euro[0], euro[1], euro[2]}, 4));
        assertEquals(1, StderrPump.utf8Boundary(new byte[] {'a', smile[0], smile[1], smile[2]}, 4));
        assertEquals(5, StderrPump.utf8Boundary(new byte[] {'a', smile[0], smile[1], smile[2], smile[3]}, 5));
        assertEquals(4, StderrPump.utf8Boundary(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80}, 4));
    }

    @Test
    void stdinAndStdoutArePipesForTheCaller() throws Exception {
        ConnectorProcess process = start("mapper", pathOnly(), "echo_lines.py");
        BufferedReader out = stdoutLines(process);
        OutputStream in = process.stdin();
        in.write("first\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        assertEquals("first", out.readLine());
        in.write("second\n".getBytes(StandardCharsets.UTF_8));
        in.close();
        assertEquals("second", out.readLine());
        assertNull(out.readLine());
        assertTrue(process.waitFor(EVENT));
        assertEquals(0, process.exitCode().orElseThrow());
        assertTrue(process.awaitStderr(EVENT));
        assertEquals(List.of("mapper | bye"), stderr);
    }

    // ---- Environment, executable, directory --------------------------------------------------------

    private Map<String, String> environmentOf(ConnectorProcess process) throws Exception {
        byte[] dump = process.stdout().readAllBytes();
        assertTrue(process.waitFor(EVENT));
        Map<String, String> environment = new LinkedHashMap<>();
        for (String entry : new String(dump, StandardCharsets.UTF_8).split("\0")) {
            if (!entry.isEmpty()) {
                int eq = entry.indexOf('=');
                environment.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return environment;
    }

    @Test
    void theEnvironmentIsExactlyWhatWasGiven() throws Exception {
        Map<String, String> given = new HashMap<>(pathOnly());
        given.put("TAPLINE_EMPTY", "");
        given.put("TAPLINE_SPACED", " a b = c ");
        given.put("TAP_CSV_FILES", "[{\"entity\": \"people\", \"path\": \"/srv/people.csv\"}]");
        ConnectorProcess process = start("extractor", given, "env_dump.py");
        assertEquals(given, environmentOf(process));
        assertTrue(System.getenv().size() > given.size(), "the service has more variables that were not inherited");
    }

    @Test
    void anEmptyEnvironmentStaysEmpty() throws Exception {
        ConnectorProcess process = start("extractor", Map.of(), "env_dump.py");
        assertEquals(Map.of(), environmentOf(process));
    }

    @Test
    void inheritingServiceVariablesIsExplicit() {
        Map<String, String> basic = ProcessSpec.serviceVariables(ProcessSpec.BASIC_VARIABLES);
        for (Map.Entry<String, String> variable : basic.entrySet()) {
            assertEquals(System.getenv(variable.getKey()), variable.getValue());
        }
        assertTrue(basic.containsKey("PATH"));
        assertEquals(Map.of(), ProcessSpec.serviceVariables(List.of("TAPLINE_SURELY_NOT_SET_ANYWHERE")));
    }

    @Test
    void theExecutableIsLookedUpOnTheGivenPath() throws Exception {
        ConnectorProcess found = supervisor.start(new ProcessSpec("extractor",
                List.of("python3", "-c", "import sys; print('found')"), dir, pathOnly()), stderr::add);
        started.add(found);
        assertEquals("found", stdoutLines(found).readLine());
        assertTrue(Path.of(found.command().get(0)).isAbsolute());
        assertTrue(found.command().get(0).endsWith("/python3"));
        assertEquals("python3", found.spec().command().get(0));
        assertTrue(found.waitFor(EVENT));
    }

    @Test
    void anExecutableThatIsNotOnTheGivenPathIsNotStarted() {
        List<String> command = List.of("python3", "-c", "pass");
        IOException noPath = assertThrows(IOException.class,
                () -> supervisor.start(new ProcessSpec("extractor", command, dir, Map.of("HOME", "/")), stderr::add));
        assertTrue(noPath.getMessage().contains("the environment has no PATH"), noPath.getMessage());
        IOException notFound = assertThrows(IOException.class,
                () -> supervisor.start(new ProcessSpec("extractor", command, dir, Map.of("PATH", dir.toString())), stderr::add));
        assertTrue(notFound.getMessage().contains("not found on PATH"), notFound.getMessage());
        IOException noDirectory = assertThrows(IOException.class,
                () -> supervisor.start(new ProcessSpec("extractor", command, dir.resolve("missing"), pathOnly()), stderr::add));
        assertTrue(noDirectory.getMessage().contains("does not exist"), noDirectory.getMessage());
    }

    @Test
    void theProcessStartsInTheGivenDirectory() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "echo_lines.py");
        assertEquals(dir.toRealPath(), Path.of("/proc", Long.toString(process.pid()), "cwd").toRealPath());
        process.stdin().close();
        assertTrue(process.waitFor(EVENT));
    }

    @Test
    void specsAreValidatedAndImmutable() {
        Map<String, String> env = new HashMap<>(Map.of("A", "1"));
        ProcessSpec spec = new ProcessSpec("loader", List.of("target-jsonl"), dir, env);
        env.put("B", "2");
        assertEquals(Map.of("A", "1"), spec.environment());
        assertThrows(UnsupportedOperationException.class, () -> spec.environment().put("C", "3"));
        assertThrows(IllegalArgumentException.class, () -> new ProcessSpec(" ", List.of("x"), dir, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new ProcessSpec("c", List.of(), dir, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new ProcessSpec("c", List.of("x", "a\0b"), dir, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new ProcessSpec("c", List.of("x"), dir, Map.of("A=B", "1")));
        assertThrows(IllegalArgumentException.class, () -> new ProcessSpec("c", List.of("x"), dir, Map.of("", "1")));
    }

    // ---- Termination -------------------------------------------------------------------------------

    @Test
    void aProcessThatHonoursSigtermIsNotKilled() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "sleeper.py");
        assertEquals("ready", stdoutLines(process).readLine());
        Termination termination = process.terminate(EVENT);
        assertEquals(List.of(process.pid()), termination.signalled());
        assertFalse(termination.neededKill());
        assertTrue(termination.complete());
        assertEquals(143, process.exitCode().orElseThrow(), "128 + SIGTERM");
        assertFalse(alive(process.pid()));
    }

    @Test
    void aProcessThatIgnoresSigtermIsKilledAfterTheGracePeriod() throws Exception {
        ConnectorProcess process = start("loader", pathOnly(), "ignore_sigterm.py");
        assertEquals("ready", stdoutLines(process).readLine());
        long start = System.nanoTime();
        Termination termination = process.terminate(SHORT_GRACE);
        long elapsed = System.nanoTime() - start;
        assertEquals(List.of(process.pid()), termination.signalled());
        assertEquals(List.of(process.pid()), termination.killed());
        assertTrue(termination.complete());
        assertTrue(elapsed >= SHORT_GRACE.toNanos(), "SIGKILL came only after the grace period");
        assertEquals(137, process.exitCode().orElseThrow(), "128 + SIGKILL");
        assertFalse(alive(process.pid()));
    }

    @Test
    void terminationLeavesNoDescendantBehind() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "family.py");
        BufferedReader out = stdoutLines(process);
        Map<String, Long> pids = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            String[] announced = out.readLine().split(" ");
            pids.put(announced[0], Long.parseLong(announced[1]));
        }
        long root = pids.get("root");
        long child = pids.get("child");
        long grandchild = pids.get("grandchild");
        assertEquals(process.pid(), root);
        Set<Long> descendants = process.handle().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
        assertEquals(Set.of(child, grandchild), descendants);

        Termination termination = process.terminate(SHORT_GRACE);

        assertEquals(Set.of(root, child, grandchild), Set.copyOf(termination.signalled()));
        assertEquals(List.of(child), termination.killed(), "only the child ignores SIGTERM");
        assertTrue(termination.complete(), () -> "still present: " + termination.remaining());
        for (long pid : List.of(root, child, grandchild)) {
            assertFalse(alive(pid), "process " + pid + " is gone");
        }
        assertEquals(143, process.exitCode().orElseThrow());
        // Every holder of the stderr pipe is gone, so the pump reached its end.
        assertTrue(process.awaitStderr(EVENT));
    }

    @Test
    void killCutsAGracePeriodInProgressShort() throws Exception {
        ConnectorProcess stubborn = start("loader", pathOnly(), "ignore_sigterm.py");
        assertEquals("ready", stdoutLines(stubborn).readLine());
        Thread terminating = new Thread(() -> {
            try {
                stubborn.terminate(Duration.ofHours(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        terminating.start();

        Map<ConnectorProcess, List<Long>> killed = supervisor.killAll();

        assertEquals(Map.of(stubborn, List.of(stubborn.pid())), killed);
        assertTrue(stubborn.waitFor(EVENT));
        assertEquals(137, stubborn.exitCode().orElseThrow(), "128 + SIGKILL");
        terminating.join(EVENT.toMillis());
        assertFalse(terminating.isAlive(), "the terminate with a grace of an hour returned");
    }

    @Test
    void killReachesTheDescendantsOfARootThatAlreadyExited() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "family.py");
        BufferedReader out = stdoutLines(process);
        Map<String, Long> pids = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            String[] announced = out.readLine().split(" ");
            pids.put(announced[0], Long.parseLong(announced[1]));
        }
        long child = pids.get("child");
        Thread terminating = new Thread(() -> {
            try {
                process.terminate(Duration.ofHours(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        terminating.start();
        // the root and the grandchild end on SIGTERM; the child ignores it and is re-parented
        assertTrue(process.waitFor(EVENT));
        assertTrue(ProcessTree.isRunning(ProcessHandle.of(child).orElseThrow()));

        List<Long> killed = supervisor.killAll().values().stream().flatMap(List::stream).toList();

        assertTrue(killed.contains(child) && Set.of(child, pids.get("grandchild")).containsAll(killed), killed::toString);
        terminating.join(EVENT.toMillis());
        assertFalse(terminating.isAlive());
        assertFalse(ProcessHandle.of(child).map(ProcessTree::isRunning).orElse(false), "the child is gone");
    }

    @Test
    void terminateAllStopsEveryRunningProcess() throws Exception {
        ConnectorProcess polite = start("extractor", pathOnly(), "sleeper.py");
        ConnectorProcess stubborn = start("loader", pathOnly(), "ignore_sigterm.py");
        ConnectorProcess finished = start("mapper", pathOnly(), "stderr_lines.py");
        assertTrue(finished.waitFor(EVENT));
        assertEquals("ready", stdoutLines(polite).readLine());
        assertEquals("ready", stdoutLines(stubborn).readLine());
        assertEquals(Set.of(polite, stubborn), Set.copyOf(supervisor.running()));

        Map<ConnectorProcess, Termination> terminations = supervisor.terminateAll(SHORT_GRACE);

        assertEquals(Set.of(polite, stubborn), terminations.keySet());
        assertFalse(terminations.get(polite).neededKill());
        assertEquals(List.of(stubborn.pid()), terminations.get(stubborn).killed());
        assertEquals(List.of(), supervisor.running());
        assertFalse(alive(polite.pid()));
        assertFalse(alive(stubborn.pid()));
    }

    @Test
    void closeTerminatesARunningProcess() throws Exception {
        ConnectorProcess process = start("extractor", pathOnly(), "sleeper.py");
        assertEquals("ready", stdoutLines(process).readLine());
        process.close();
        assertFalse(process.isAlive());
        assertEquals(143, process.exitCode().orElseThrow());
    }

    @Test
    void anUnreapedChildCountsAsExitedAndIsWaitedForUntilReaped() throws Exception {
        assertFalse(ProcessTree.isZombie(ProcessHandle.current().pid()));
        assertTrue(ProcessTree.isRunning(ProcessHandle.current()));
        assertFalse(ProcessTree.isZombie(Long.MAX_VALUE));

        ConnectorProcess process = start("extractor", pathOnly(), "zombie_parent.py");
        String[] announced = stdoutLines(process).readLine().split(" ");
        long zombie = Long.parseLong(announced[1]);
        ProcessHandle handle = ProcessHandle.of(zombie).orElseThrow();
        assertTrue(handle.isAlive(), "the JDK counts a zombie as alive");
        assertTrue(ProcessTree.isZombie(zombie));
        assertFalse(ProcessTree.isRunning(handle));

        Termination termination = process.terminate(SHORT_GRACE);

        assertEquals(List.of(process.pid()), termination.signalled(), "a zombie is not signalled");
        assertFalse(termination.neededKill());
        assertTrue(termination.complete(), () -> "still present: " + termination.remaining());
        assertFalse(alive(zombie));
    }
}
