package io.tapline.plugin.install;

import com.fasterxml.jackson.databind.JsonNode;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.json.Jsons;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginType;
import io.tapline.plugin.install.api.InstallResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The install records (table {@code plugin_install}) and the plugin facts an install needs. Owns
 * the transactions of {@link PluginInstaller}, which does the work outside them.
 */
@ApplicationScoped
@Transactional
public class PluginInstallService {

    private final PluginInstallRepository installs;
    private final PluginRepository plugins;
    private final Clock clock;

    public PluginInstallService(PluginInstallRepository installs, PluginRepository plugins, Clock clock) {
        this.installs = installs;
        this.plugins = plugins;
        this.clock = clock;
    }

    /**
     * What an install of one plugin needs, read once.
     *
     * @param pluginId the plugin's id
     * @param type its type
     * @param name its name
     * @param executable its executable (a command name resolves inside the environment's bin/)
     * @param pipUrl its pip_url, or null
     * @param python its own interpreter (Meltano's {@code python}, kept in extras), or null
     * @param env its env as stored, sealed values left out (what {@code ${NAME}} in the pip_url may
     *     read at install time, {@link PipUrlReferences})
     */
    public record Target(long pluginId, PluginType type, String name, String executable, String pipUrl,
                         String python, Map<String, String> env) {

        /** The target of a plugin entity. */
        public static Target of(Plugin p) {
            Map<String, String> env = new java.util.LinkedHashMap<>(Jsons.readStringMap(p.env));
            env.values().removeIf(io.tapline.common.security.SecretCipher::isSealed);
            return new Target(p.id, p.type, p.name, p.executable, p.pipUrl, python(Jsons.readObject(p.extras)),
                    Map.copyOf(env));
        }

        /** Meltano's {@code python} from a plugin's extras, or null when not set. */
        public static String python(com.fasterxml.jackson.databind.node.ObjectNode extras) {
            JsonNode py = extras == null ? null : extras.get("python");
            return py != null && py.isTextual() && !py.asText().isBlank() ? py.asText().trim() : null;
        }
    }

    /** The plugin, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Target target(PluginType type, String name) {
        return find(type, name).orElseThrow(() -> new NotFoundException("Plugin", type.id() + "/" + name));
    }

    /** The plugin, or empty when it does not exist (any more). */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Optional<Target> find(PluginType type, String name) {
        return plugins.findByTypeAndName(type, name).map(Target::of);
    }

    /** Records the start of an install (status RUNNING). */
    public InstallResponse begin(Target t, PluginInstall.Trigger trigger, UUID runId, String requestedBy,
                                 PluginEnvironment env, String python, String instanceId) {
        PluginInstall i = new PluginInstall();
        i.pluginId = t.pluginId();
        i.pluginType = t.type().id();
        i.pluginName = t.name();
        i.instanceId = instanceId;
        i.environment = env.venv().toString();
        i.trigger = trigger;
        i.runId = runId;
        i.status = PluginInstall.Status.RUNNING;
        i.pipUrl = PipOutput.mask(t.pipUrl());
        i.python = python;
        i.fingerprint = PluginEnvironment.fingerprint(python, t.pipUrl());
        i.requestedBy = requestedBy;
        i.startedAt = OffsetDateTime.now(clock);
        i.heartbeatAt = i.startedAt;
        installs.persist(i);
        installs.flush();
        return response(i, true);
    }

    /** Stores the output so far of a running install. */
    public void progress(long id, String log) {
        installs.progress(id, log);
    }

    /** Ends a running install: SUCCEEDED with the distribution found, or FAILED with the reason. */
    public void finish(long id, boolean ok, PluginEnvironment.Marker marker, String reason, String log) {
        installs.finish(id, ok ? PluginInstall.Status.SUCCEEDED : PluginInstall.Status.FAILED,
                marker == null ? null : marker.distribution(), marker == null ? null : marker.version(),
                ok ? null : reason, log, OffsetDateTime.now(clock));
    }

    /** Refreshes the heartbeat of running installs (every {@code tapline.runner.heartbeat-interval}). */
    public void heartbeat(List<Long> ids) {
        installs.heartbeat(ids, OffsetDateTime.now(clock));
    }

    /**
     * Fails the installs of {@code env} that still read RUNNING although their owner is gone: no
     * heartbeat for {@code timeout} (called under the environment's file lock).
     */
    public int failInterrupted(PluginEnvironment env, long current, Duration timeout) {
        OffsetDateTime now = OffsetDateTime.now(clock);
        return installs.failInterrupted(env.venv().toString(), current, "interrupted: the process installing it"
                + " stopped before it finished (no heartbeat for " + timeout.toSeconds() + " s), so the environment"
                + " was never marked installed; the next install rebuilds it", now, now.minus(timeout));
    }

    /** The newest installs of a plugin on every replica, newest first, without their logs. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<InstallResponse> list(PluginType type, String name, int limit) {
        Target t = target(type, name);
        return installs.latest(t.pluginId(), limit).stream().map(i -> response(i, false)).toList();
    }

    /** One install of the plugin, with its log, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public InstallResponse get(PluginType type, String name, long id) {
        Target t = target(type, name);
        PluginInstall i = installs.findById(id);
        if (i == null || i.pluginId != t.pluginId()) {
            throw new NotFoundException("Install", type.id() + "/" + name + " #" + id);
        }
        return response(i, true);
    }

    private static InstallResponse response(PluginInstall i, boolean withLog) {
        Long ms = i.endedAt == null ? null : Duration.between(i.startedAt, i.endedAt).toMillis();
        return new InstallResponse(i.id, i.pluginType, i.pluginName, i.status.name(), i.trigger.name(), i.runId,
                i.instanceId, i.environment, i.pipUrl, i.python, i.distribution, i.distVersion, i.failureType,
                i.reason, false, i.startedAt, i.endedAt, ms, withLog ? i.log : null);
    }
}
