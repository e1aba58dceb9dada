package io.tapline.plugin.install;

import io.tapline.common.config.TaplineConfig.Plugins.BuildIsolation;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.RunAsUser;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Builds one plugin's virtual environment on disk (see {@link PluginEnvironment} for the layout):
 * takes the plugin directory's file lock, uses the environment as it is when another process
 * installed the same fingerprint while this one waited for the lock, else removes what earlier
 * interrupted installs left, runs {@code <python> -m venv env-<id>} and
 * {@code env-<id>/bin/python -m pip install <pip-args> <--find-links=wheelhouse...> <pip_url words>}
 * (or {@code uv venv} / {@code uv pip install}), checks that the executable landed in {@code bin/},
 * writes the marker last and then swaps the {@code venv} link to the new environment with one atomic
 * rename. Commands are argument arrays, never a shell ({@link InstallCommand}).
 *
 * <p>Build isolation ({@code tapline.plugins.build-isolation}): pip builds a source tree or sdist in
 * a separate build environment whose requirements (setuptools, wheel, another backend) it installs
 * from the index or the wheelhouses; offline, with neither holding them, that fails before anything
 * is installed. {@code off} puts setuptools and wheel into the environment first
 * ({@link BuildRequirements}: from the wheelhouses or the interpreter's own site-packages, never an
 * index) and runs pip with {@code --no-build-isolation}; {@code auto} runs pip as {@code on} and,
 * when its output shows that failure ({@link PipOutput#buildRequirementsMissing}), once more as
 * {@code off}, in the same environment (pip had installed nothing).
 *
 * <p>The install's processes (and the build backends pip starts, which run code of the pip_url)
 * run with {@link InstallEnv}'s allow-listed environment, and as {@code tapline.runner.run-as-user}
 * when it is set ({@link RunAsUser}): the service creates {@code env-<id>} and hands it to that user,
 * with a {@code .home} (HOME, caches) and a {@code .tmp} (TMPDIR) of its own in the plugin's
 * directory; once pip is done the environment's top directory is taken back (its contents stay the
 * install user's), so the marker the service writes there cannot be replaced by that user. The
 * service never follows a symbolic link inside an environment ({@link InstallFiles}). Not
 * thread-safe per plugin: callers hold {@link PluginInstaller}'s per-plugin lock (the file lock only
 * keeps other processes out).
 */
public final class EnvironmentBuilder {

    /**
     * What to build.
     *
     * @param env the plugin's environment layout
     * @param python the interpreter command (name on PATH or absolute path)
     * @param pipUrl the parsed pip_url
     * @param pipUrlText the pip_url as written (fingerprint)
     * @param pipArgs service pip options placed before the pip_url words
     * @param findLinks wheelhouses ({@code tapline.plugins.find-links}), each given as {@code --find-links}
     * @param buildIsolation {@code tapline.plugins.build-isolation}
     * @param uv the {@code uv} executable to use instead of venv + pip, or null
     * @param executable the command the plugin starts: checked in {@code bin/} when it is a name, else null
     * @param workDir working directory of pip (relative local paths in the pip_url resolve against it)
     * @param timeout the longest the whole install may take
     * @param seen the marker of the environment when the install was asked for, or null: when the file
     *     lock is held and the environment has a marker of this pip_url and python other than this
     *     one, another process installed it meanwhile, and it is used as it is
     */
    public record Spec(PluginEnvironment env, String python, PipUrl pipUrl, String pipUrlText, List<String> pipArgs,
                       List<String> findLinks, BuildIsolation buildIsolation, String uv, String executable,
                       Path workDir, Duration timeout, PluginEnvironment.Marker seen) {

        /** A spec without wheelhouses, with build isolation {@code auto}. */
        public Spec(PluginEnvironment env, String python, PipUrl pipUrl, String pipUrlText, List<String> pipArgs,
                    String uv, String executable, Path workDir, Duration timeout, PluginEnvironment.Marker seen) {
            this(env, python, pipUrl, pipUrlText, pipArgs, List.of(), BuildIsolation.AUTO, uv, executable, workDir,
                    timeout, seen);
        }
    }

    /**
     * What {@link #build} did.
     *
     * @param marker the marker now in {@code venv/}
     * @param reused true when another process had installed it while this one waited (no pip ran)
     */
    public record Result(PluginEnvironment.Marker marker, boolean reused) {
    }

    /** An install that did not succeed; the message is the readable reason. */
    public static final class InstallFailure extends Exception {
        private final boolean buildRequirementsMissing;

        InstallFailure(String reason) {
            this(reason, false);
        }

        /**
         * @param buildRequirementsMissing pip's output shows that an isolated build could not get its
         *     requirements ({@link PipOutput#buildRequirementsMissing})
         */
        InstallFailure(String reason, boolean buildRequirementsMissing) {
            super(reason);
            this.buildRequirementsMissing = buildRequirementsMissing;
        }

        /** Whether pip failed installing the build requirements of an isolated build. */
        boolean buildRequirementsMissing() {
            return buildRequirementsMissing;
        }
    }

    private final Clock clock;
    private final InstallUser user;

    /** A builder whose installs run as the service's user, with the allow-listed part of its environment. */
    public EnvironmentBuilder(Clock clock) {
        this(clock, new RunAsUser(Optional.empty()), System.getenv());
    }

    /**
     * @param runAs the user the install's processes run as (none configured: the service's)
     * @param serviceEnv the service's environment, of which {@link InstallEnv} keeps the allow-listed part
     */
    public EnvironmentBuilder(Clock clock, RunAsUser runAs, Map<String, String> serviceEnv) {
        this.clock = clock;
        this.user = new InstallUser(runAs, serviceEnv);
    }

    /**
     * Builds the environment and makes it the installed one.
     *
     * @param log receives each line of output (pip's and the builder's), already masked
     * @param stop true when the install must stop (the run was cancelled, the service stops)
     * @param locked called once the file lock is held (no other process installs this plugin), before
     *     anything is built or reused
     * @return the marker now in {@code venv/}, and whether it was reused
     * @throws InstallFailure with the reason (pip's last error lines, a timeout, a stop)
     */
    public Result build(Spec spec, Consumer<String> log, BooleanSupplier stop, Runnable locked)
            throws InstallFailure, IOException {
        long deadline = System.nanoTime() + spec.timeout().toNanos();
        Path dir = spec.env().dir();
        Files.createDirectories(dir);
        try (FileChannel ch = FileChannel.open(spec.env().lockFile(), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock ignored = lock(ch, log, stop, deadline)) {
            locked.run();
            var now = spec.env().installed(spec.python(), spec.pipUrlText());
            if (now.isPresent() && !now.get().equals(spec.seen())) {
                log.accept("another process installed " + (now.get().distribution() == null ? "the pip_url"
                        : now.get().distribution() + " " + now.get().version()) + " into " + spec.env().venv()
                        + " while this install waited; using it as it is");
                return new Result(now.get(), true);
            }
            cleanUp(dir, log);
            Path work = dir.resolve("env-" + UUID.randomUUID().toString().substring(0, 8));
            try {
                return new Result(buildIn(spec, work, log, stop, deadline), false);
            } catch (InstallFailure | IOException | RuntimeException e) {
                deleteTree(work);
                throw e;
            }
        }
    }

    private PluginEnvironment.Marker buildIn(Spec spec, Path work, Consumer<String> log, BooleanSupplier stop,
                                             long deadline) throws InstallFailure, IOException {
        Path python = work.resolve("bin").resolve("python");
        InstallCommand cmd = new InstallCommand(user, spec.workDir(), user.environment(spec.env().dir()), log, stop,
                deadline);
        Files.createDirectory(work);
        user.give(work);
        List<String> venv = new ArrayList<>(spec.uv() != null
                ? List.of(spec.uv(), "venv", "--seed", "--python", spec.python())
                : List.of(spec.python(), "-m", "venv"));
        if (spec.uv() != null) {
            venv.addAll(BuildRequirements.findLinks(spec.findLinks()));
        }
        venv.add(work.toString());
        cmd.run(venv, "creating the virtual environment");
        List<String> install = spec.uv() != null
                ? List.of(spec.uv(), "pip", "install", "--python", python.toString())
                : List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check", "--no-input");
        List<String> pip = new ArrayList<>(install);
        pip.addAll(spec.pipArgs());
        pip.addAll(BuildRequirements.findLinks(spec.findLinks()));
        Path scratch = spec.env().dir().resolve(BuildRequirements.SCRATCH);
        try {
            if (spec.buildIsolation() == BuildIsolation.OFF) {
                withoutIsolation(cmd, spec, install, pip, scratch);
            } else {
                try {
                    cmd.run(with(pip, spec.pipUrl().words()), "pip install");
                } catch (InstallFailure e) {
                    if (spec.buildIsolation() != BuildIsolation.AUTO || !e.buildRequirementsMissing()) {
                        throw e;
                    }
                    cmd.say("the isolated build could not get its build requirements (" + e.getMessage() + ");"
                            + " tapline.plugins.build-isolation is auto: building without build isolation");
                    try {
                        withoutIsolation(cmd, spec, install, pip, scratch);
                    } catch (InstallFailure again) {
                        cmd.checkStop();
                        throw new InstallFailure("the isolated build could not get its build requirements, and the"
                                + " build without build isolation failed too: " + again.getMessage());
                    }
                }
            }
        } finally {
            deleteTree(scratch);
        }
        user.takeBack(work);
        if (spec.executable() != null) {
            Path exe = work.resolve("bin").resolve(spec.executable());
            if (!Files.isRegularFile(exe) || !Files.isExecutable(exe)) {
                throw new InstallFailure("the pip_url installed no command named '" + spec.executable()
                        + "' (the plugin's executable) in the environment's bin/; commands there: "
                        + String.join(", ", Distributions.commands(work)));
            }
        }
        Distributions.Found found = Distributions.providing(work, spec.executable(), spec.pipUrl());
        Map<String, Object> marker = new LinkedHashMap<>();
        marker.put("layout", PluginEnvironment.LAYOUT);
        marker.put("fingerprint", PluginEnvironment.fingerprint(spec.python(), spec.pipUrlText()));
        marker.put("pipUrl", PipUrl.masked(spec.pipUrlText()));
        marker.put("python", spec.python());
        marker.put("distribution", found == null ? null : found.name());
        marker.put("version", found == null ? null : found.version());
        marker.put("installedAt", clock.instant().toString());
        Path tmp = work.resolve(PluginEnvironment.MARKER + ".tmp");
        Files.deleteIfExists(tmp);
        Files.writeString(tmp, Jsons.write(marker) + "\n", StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        Files.move(tmp, work.resolve(PluginEnvironment.MARKER), StandardCopyOption.ATOMIC_MOVE);
        swap(spec.env(), work);
        log.accept("installed " + (found == null ? "the pip_url" : found.name() + " " + found.version()) + " into "
                + spec.env().venv());
        return spec.env().marker().orElseThrow(() -> new IOException("the marker just written cannot be read"));
    }

    /** Seeds setuptools and wheel ({@link BuildRequirements}) and runs pip with {@code --no-build-isolation}. */
    private void withoutIsolation(InstallCommand cmd, Spec spec, List<String> install, List<String> pip, Path scratch)
            throws InstallFailure, IOException {
        deleteTree(scratch);
        Files.createDirectory(scratch);
        user.give(scratch);
        BuildRequirements.seed(cmd, install, spec.python(), spec.findLinks(), scratch);
        List<String> c = new ArrayList<>(pip);
        c.add("--no-build-isolation");
        cmd.run(with(c, spec.pipUrl().words()), "pip install");
    }

    private static List<String> with(List<String> command, List<String> words) {
        List<String> c = new ArrayList<>(command);
        c.addAll(words);
        return c;
    }

    /** Points {@code venv} at {@code work} with one rename (a real {@code venv} directory is moved aside first). */
    private static void swap(PluginEnvironment env, Path work) throws IOException {
        Path venv = env.venv();
        Path link = env.dir().resolve("venv.new-" + work.getFileName());
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, work.getFileName());
        if (Files.isDirectory(venv, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.move(venv, env.dir().resolve("env-image-" + UUID.randomUUID().toString().substring(0, 8)),
                    StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(link, venv, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Deletes environments that {@code venv} does not point at (half-made ones of interrupted
     * installs, and the one the previous install replaced) and stray links.
     */
    static void cleanUp(Path dir, Consumer<String> log) throws IOException {
        Path venv = dir.resolve("venv");
        Path current = Files.isSymbolicLink(venv) ? dir.resolve(Files.readSymbolicLink(venv)).normalize() : null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, p -> {
            String n = p.getFileName().toString();
            return n.startsWith("env-") || n.startsWith("venv.new-");
        })) {
            for (Path p : entries) {
                if (p.normalize().equals(current)) {
                    continue;
                }
                if (!p.getFileName().toString().startsWith("venv.new-")) {
                    log.accept("removing " + p.getFileName() + " (left by an earlier or interrupted install)");
                }
                deleteTree(p);
            }
        }
    }

    private static FileLock lock(FileChannel ch, Consumer<String> log, BooleanSupplier stop, long deadline)
            throws IOException, InstallFailure {
        boolean said = false;
        while (true) {
            FileLock l = ch.tryLock();
            if (l != null) {
                return l;
            }
            if (!said) {
                log.accept("waiting for another process's install of this plugin (" + ch + ")");
                said = true;
            }
            InstallCommand.checkStop(stop, deadline);
            InstallCommand.sleep();
        }
    }

    /** Deletes a directory tree without following symbolic links ({@link InstallFiles#deleteTree}); missing is fine. */
    static void deleteTree(Path p) throws IOException {
        InstallFiles.deleteTree(p);
    }
}
