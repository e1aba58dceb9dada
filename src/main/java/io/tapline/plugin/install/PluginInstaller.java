package io.tapline.plugin.install;

import io.tapline.common.config.InstanceId;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.ConflictException.Reason;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.common.security.SecretMasker;
import io.tapline.common.security.RunAsUser;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.api.InstallResponse;
import io.tapline.plugin.install.api.InstallState;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Installs plugins' pip_urls into their virtual environments on this replica ({@link PluginEnvironment}
 * layout, built by {@link EnvironmentBuilder}), one install per plugin at a time in this JVM (a
 * per-environment permit; the builder's file lock keeps other processes on the same filesystem
 * out), each recorded as a {@link PluginInstall}. {@code :install} requests run on a small pool;
 * runs install on their own thread ({@link #ensureInstalled}).
 *
 * <p>The installs run as {@code tapline.runner.run-as-user} when it is set, with an allow-listed
 * environment ({@link InstallEnv}); a plugin's own {@code python} must lie in
 * {@code tapline.security.executable-dirs} when that is set (the service's
 * {@code tapline.plugins.python} is the operator's own setting and is not checked). Every install
 * this JVM has begun and not finished, waiting for the file lock included, gets its heartbeat
 * refreshed every {@code tapline.runner.heartbeat-interval}; a RUNNING install is marked interrupted
 * only when its heartbeat is older than {@code tapline.runner.heartbeat-timeout} (its owner is gone:
 * killed, or its replica lost), never because another replica's install of the same path is live.
 */
@ApplicationScoped
public class PluginInstaller {

    private static final Logger LOG = Logger.getLogger(PluginInstaller.class);
    private static final long PROGRESS_EVERY_MS = 1000;

    private final TaplineConfig config;
    private final PluginInstallService records;
    private final InstanceId instance;
    private final EnvironmentBuilder builder;
    private final Map<Path, Semaphore> permits = new ConcurrentHashMap<>();
    private final Map<Path, Long> running = new ConcurrentHashMap<>();
    /** Installs begun in this JVM and not finished: their heartbeats are refreshed. */
    private final Set<Long> live = ConcurrentHashMap.newKeySet();
    private final ExecutablePolicy executables;
    private final PipUrlReferences references;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "plugin-install");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService beat = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "plugin-install-heartbeat");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean stopping;

    public PluginInstaller(TaplineConfig config, PluginInstallService records, InstanceId instance, Clock clock,
                           ExecutablePolicy executables, RunAsUser runAs, PipUrlReferences references) {
        this.config = config;
        this.references = references;
        this.records = records;
        this.instance = instance;
        this.executables = executables;
        this.builder = new EnvironmentBuilder(clock, runAs, System.getenv());
        long every = config.runner().heartbeatInterval().toMillis();
        beat.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts an install or reinstall of a plugin in the background ({@code POST ...:install}).
     *
     * @param requestedBy the actor, for the record
     * @return the new install (RUNNING), or the one already running for this plugin on this replica
     * @throws DomainException 404 for an unknown plugin, 400 when it has no pip_url or its pip_url
     *     or python is refused
     */
    public InstallResponse start(PluginType type, String name, String requestedBy) {
        PluginInstallService.Target t = records.target(type, name);
        PipUrl url = parse(t);
        pythonViolation(t).ifPresent(m -> {
            throw InvalidInputException.field("extras.python", m);
        });
        PluginEnvironment env = environment(t);
        PluginEnvironment.Marker seen = env.marker().orElse(null);
        Semaphore permit = permit(env);
        if (!permit.tryAcquire()) {
            Long id = running.get(env.dir());
            if (id != null) {
                return records.get(type, name, id);
            }
            throw new ConflictException(Reason.IN_USE, "An install of " + type.id()
                    + "/" + name + " is starting on this replica; read GET /api/v1/plugins/" + type.id() + "/" + name
                    + "/installs.");
        }
        InstallResponse rec = null;
        try {
            rec = begin(t, PluginInstall.Trigger.API, null, requestedBy, env);
            long id = rec.id();
            running.put(env.dir(), id);
            pool.submit(() -> {
                try {
                    install(t, url, env, seen, id, line -> { }, () -> false);
                } catch (RuntimeException e) {
                    LOG.errorf(e, "Install %d of %s/%s failed in the service", id, type.id(), name);
                } finally {
                    running.remove(env.dir());
                    permit.release();
                }
            });
            return rec;
        } catch (RuntimeException e) {
            if (rec != null) {
                finish(rec.id(), false, null, "the install could not start: " + e.getMessage(), "");
            }
            running.remove(env.dir());
            permit.release();
            throw e;
        }
    }

    /**
     * Makes sure a plugin a run needs is installed on this replica, installing it (blocking) when
     * it is not and {@code tapline.plugins.auto-install} allows.
     *
     * @param log receives the install's output lines (masked)
     * @param stop true when the run must stop
     * @return the environment's marker and whether this call ran an install
     * @throws PluginInstallException with the readable reason (install failed, refused, or not allowed)
     */
    public Ensured ensureInstalled(PluginInstallService.Target t, UUID runId, Consumer<String> log, BooleanSupplier stop) {
        PipUrl url;
        try {
            url = parse(t);
        } catch (InvalidInputException e) {
            throw new PluginInstallException(e.getMessage());
        }
        pythonViolation(t).ifPresent(m -> {
            throw new PluginInstallException(m);
        });
        PluginEnvironment env = environment(t);
        String python = python(t);
        var ready = env.installed(python, t.pipUrl());
        if (ready.isPresent()) {
            return new Ensured(env, ready.get(), false);
        }
        if (!config.plugins().autoInstall()) {
            throw new PluginInstallException("it is not installed on this replica and tapline.plugins.auto-install is"
                    + " false; install it with POST /api/v1/plugins/" + t.type().id() + "/" + t.name() + ":install");
        }
        Semaphore permit = permit(env);
        boolean said = false;
        try {
            while (!permit.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                if (!said) {
                    log.accept("waiting for the install already running on this replica");
                    said = true;
                }
                if (stop.getAsBoolean() || stopping) {
                    throw new PluginInstallException("the run stopped while waiting for another install of it");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PluginInstallException("interrupted while waiting for another install of it");
        }
        try {
            PluginEnvironment.Marker seen = env.marker().orElse(null);
            if (seen != null && seen.fingerprint().equals(PluginEnvironment.fingerprint(python, t.pipUrl()))) {
                return new Ensured(env, seen, false);
            }
            InstallResponse rec = begin(t, PluginInstall.Trigger.RUN, runId, null, env);
            running.put(env.dir(), rec.id());
            log.accept("installing " + t.type().id() + "/" + t.name() + " (install " + rec.id() + ") into "
                    + env.venv());
            Built b = install(t, url, env, seen, rec.id(), log, stop);
            if (b.marker() == null) {
                throw new PluginInstallException(b.reason());
            }
            return new Ensured(env, b.marker(), true);
        } finally {
            running.remove(env.dir());
            permit.release();
        }
    }

    /**
     * Whether a plugin is installed on this replica (field {@code install} of plugin responses).
     *
     * @return null for a plugin without a pip_url
     */
    public InstallState state(PluginInstallService.Target t) {
        if (t.pipUrl() == null) {
            return null;
        }
        PluginEnvironment env = environment(t);
        var marker = env.marker();
        String exe = t.executable() == null || t.executable().startsWith("/") ? t.executable()
                : env.bin(t.executable()).toString();
        boolean ok = marker.isPresent()
                && marker.get().fingerprint().equals(PluginEnvironment.fingerprint(python(t), t.pipUrl()));
        return new InstallState(ok, marker.isPresent() && !ok, ok ? marker.get().distribution() : null,
                ok ? marker.get().version() : null, ok ? marker.get().installedAt() : null, env.venv().toString(), exe);
    }

    /** {@code p} with its {@link #state} on this replica (plugin responses). */
    public io.tapline.plugin.api.PluginResponse withState(io.tapline.plugin.api.PluginResponse p) {
        return p.withInstall(state(new PluginInstallService.Target(0, PluginType.fromPath(p.type()), p.name(),
                p.executable(), p.pipUrl(), PluginInstallService.Target.python(p.extras()), Map.of())));
    }

    /** The path a plugin's executable resolves to once installed: inside bin/ for a command name. */
    public static String executable(PluginEnvironment env, String executable) {
        return executable.startsWith("/") ? executable : env.bin(executable).toString();
    }

    /**
     * Result of {@link #ensureInstalled}.
     *
     * @param env the environment
     * @param marker its marker
     * @param installedNow true when this call ran an install (it built the environment, or waited
     *     for another process's install of the same pip_url and python and used it)
     */
    public record Ensured(PluginEnvironment env, PluginEnvironment.Marker marker, boolean installedNow) {
    }

    @PreDestroy
    void shutdown() {
        stopping = true;
        pool.shutdownNow();
        beat.shutdownNow();
    }

    /** Refreshes the heartbeat of this JVM's unfinished installs; a failure is retried at the next beat. */
    void heartbeat() {
        if (live.isEmpty()) {
            return;
        }
        try {
            records.heartbeat(List.copyOf(live));
        } catch (RuntimeException e) {
            LOG.debugf("Install heartbeat not stored: %s", e.getMessage());
        }
    }

    private InstallResponse begin(PluginInstallService.Target t, PluginInstall.Trigger trigger, UUID runId,
                                  String requestedBy, PluginEnvironment env) {
        InstallResponse rec = records.begin(t, trigger, runId, requestedBy, env, python(t), instance.get());
        live.add(rec.id());
        return rec;
    }

    private void finish(long id, boolean ok, PluginEnvironment.Marker marker, String reason, String log) {
        try {
            records.finish(id, ok, marker, reason, log);
        } finally {
            live.remove(id);
        }
    }

    /** The marker of a finished install, or the reason it failed. */
    private record Built(PluginEnvironment.Marker marker, String reason) {
    }

    /** Builds (or, installed meanwhile by another process, reuses) and records one install. */
    private Built install(PluginInstallService.Target t, PipUrl url, PluginEnvironment env,
                          PluginEnvironment.Marker seen, long id, Consumer<String> log, BooleanSupplier stop) {
        InstallLog out = new InstallLog(config.plugins().logMaxChars());
        long[] lastFlush = {System.currentTimeMillis()};
        PipUrlReferences.Resolved resolved;
        try {
            resolved = references.resolve(t, url);
        } catch (IllegalArgumentException e) {
            String reason = e.getMessage();
            out.add("install failed: " + reason);
            log.accept("install failed: " + reason);
            finish(id, false, null, reason, out.text());
            return new Built(null, reason);
        }
        SecretMasker masker = new SecretMasker(resolved.secrets());
        Consumer<String> sink = raw -> {
            String line = masker.mask(raw);
            out.add(line);
            log.accept(line);
            long now = System.currentTimeMillis();
            if (now - lastFlush[0] >= PROGRESS_EVERY_MS) {
                lastFlush[0] = now;
                try {
                    records.progress(id, out.text());
                } catch (RuntimeException e) {
                    LOG.debugf("Install %d: progress not stored: %s", id, e.getMessage());
                }
            }
        };
        EnvironmentBuilder.Spec spec = new EnvironmentBuilder.Spec(env, python(t), resolved.url(), t.pipUrl(),
                config.plugins().pipArgs().orElse(List.of()), config.plugins().findLinks().orElse(List.of()),
                config.plugins().buildIsolation(), uv(), t.executable().startsWith("/") ? null
                : t.executable(), workDir(), config.plugins().installTimeout(), seen);
        try {
            EnvironmentBuilder.Result r = builder.build(spec, sink, () -> stopping || stop.getAsBoolean(),
                    () -> {
                        int n = records.failInterrupted(env, id, config.runner().heartbeatTimeout());
                        if (n > 0) {
                            sink.accept("marked " + n + " earlier install(s) of this environment as interrupted"
                                    + " (no heartbeat for " + config.runner().heartbeatTimeout().toSeconds() + " s)");
                        }
                    });
            PluginEnvironment.Marker m = r.marker();
            finish(id, true, m, null, out.text());
            LOG.infof("Plugin %s/%s %s (%s %s) in %s", t.type().id(), t.name(), r.reused()
                    ? "installed by another process meanwhile" : "installed", m.distribution(), m.version(), env.venv());
            return new Built(m, null);
        } catch (EnvironmentBuilder.InstallFailure e) {
            String reason = masker.mask(e.getMessage());
            sink.accept("install failed: " + reason);
            finish(id, false, null, reason, out.text());
            LOG.warnf("Plugin %s/%s not installed: %s", t.type().id(), t.name(), reason);
            return new Built(null, reason);
        } catch (IOException e) {
            String reason = "the environment could not be written under " + env.dir() + ": " + e.getMessage();
            sink.accept("install failed: " + reason);
            finish(id, false, null, reason, out.text());
            return new Built(null, reason);
        } catch (RuntimeException e) {
            finish(id, false, null, "the install failed in the service: " + masker.mask(String.valueOf(e.getMessage())),
                    out.text());
            throw e;
        }
    }

    /**
     * Why the plugin's own {@code python} may not be started: outside
     * {@code tapline.security.executable-dirs} (a command name is looked up on the service's PATH,
     * as the install does), else empty (also when it is not set: the service's interpreter is used).
     */
    private Optional<String> pythonViolation(PluginInstallService.Target t) {
        if (t.python() == null) {
            return Optional.empty();
        }
        return executables.violation(t.type().id() + "/" + t.name() + " python", t.python(),
                System.getenv("PATH"), workDir()).map(v -> v + "; leave the plugin's python unset to use tapline.plugins.python, or add its"
                + " directory to tapline.security.executable-dirs");
    }

    private PipUrl parse(PluginInstallService.Target t) {
        if (t.pipUrl() == null) {
            throw InvalidInputException.field("pipUrl", "is not set for plugin " + t.type().id() + "/" + t.name()
                    + "; there is nothing to install (set pip_url, or give an executable that exists)");
        }
        PipUrl.Result r = PipUrl.parse(t.pipUrl());
        if (r.error() != null) {
            throw InvalidInputException.field("pipUrl", r.error());
        }
        PipUrl.checkPython(t.python()).ifPresent(m -> {
            throw InvalidInputException.field("extras.python", m);
        });
        return r.pipUrl();
    }

    private PluginEnvironment environment(PluginInstallService.Target t) {
        return PluginEnvironment.of(config.plugins().dir(), t.type().id(), t.name());
    }

    private String python(PluginInstallService.Target t) {
        return t.python() != null ? t.python() : config.plugins().python();
    }

    private Semaphore permit(PluginEnvironment env) {
        return permits.computeIfAbsent(env.dir(), k -> new Semaphore(1));
    }

    private Path workDir() {
        return config.projects().baseDir().orElse(Path.of("")).toAbsolutePath();
    }

    /** The uv executable to use, or null for venv + pip ({@code tapline.plugins.installer}). */
    private String uv() {
        String mode = config.plugins().installer();
        if (mode.equals("pip")) {
            return null;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                Path c = Path.of(d.isEmpty() ? "." : d, "uv");
                if (Files.isRegularFile(c) && Files.isExecutable(c)) {
                    return c.toString();
                }
            }
        }
        return mode.equals("uv") ? "uv" : null;
    }
}
