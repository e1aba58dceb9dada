package io.tapline.plugin;

import io.tapline.audit.AuditService;
import io.tapline.common.api.ETags;
import io.tapline.common.api.Names;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.VersionMismatchException;
import io.tapline.common.json.Jsons;
import io.tapline.common.security.SecretCipher;
import io.tapline.common.time.Timestamps;
import io.tapline.plugin.api.EnvironmentOverlayRequest;
import io.tapline.plugin.api.EnvironmentOverlayResponse;
import io.tapline.plugin.api.PluginResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A plugin's overlays per Meltano environment ({@link PluginEnvironment}), {@code
 * /api/v1/plugins/{type}/{name}/environments}: read, replace and delete one environment's overlay,
 * with ETag checks; sensitive values sealed ({@link PluginSecrets}) and masked; every change audited
 * ({@code plugin.environment.create}, {@code .update}, {@code .delete}; with the names of the
 * overlay's config keys and env variables, never values).
 */
@ApplicationScoped
@Transactional
public class PluginEnvironmentService {

    private final PluginRepository plugins;
    private final PluginEnvironmentRepository overlays;
    private final SecretCipher cipher;
    private final AuditService audit;
    private final Clock clock;

    public PluginEnvironmentService(PluginRepository plugins, PluginEnvironmentRepository overlays,
                                    SecretCipher cipher, AuditService audit, Clock clock) {
        this.plugins = plugins;
        this.overlays = overlays;
        this.cipher = cipher;
        this.audit = audit;
        this.clock = clock;
    }

    /** Result of a PUT: the overlay and whether it was created. */
    public record Upsert(EnvironmentOverlayResponse overlay, boolean created) {
    }

    /** The plugin's overlays by environment name (sorted), masked; 404 for no such plugin. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Map<String, EnvironmentOverlayResponse> list(PluginType type, String name) {
        Plugin p = plugin(type, name);
        return views(p, overlays.ofPlugin(p.id));
    }

    /** One overlay, masked; 404 when the plugin or the overlay does not exist. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public EnvironmentOverlayResponse get(PluginType type, String name, String environment) {
        Plugin p = plugin(type, name);
        return PluginOverlays.toResponse(overlays.find(p.id, environment).orElseThrow(() -> notFound(p, environment)),
                Jsons.readStrings(p.sensitive));
    }

    /**
     * Creates or replaces the plugin's overlay in an environment.
     *
     * @param ifMatch the overlay's {@code If-Match}, or null
     * @throws NotFoundException 404 (plugin); InvalidInputException 400 (environment name, fields); VersionMismatchException 412 (ETag)
     */
    public Upsert put(PluginType type, String name, String environment, EnvironmentOverlayRequest req,
                      String ifMatch) {
        Plugin p = plugin(type, name);
        Names.environment("environment", environment);
        PluginEnvironment o = overlays.find(p.id, environment).orElse(null);
        boolean created = o == null;
        if (created && ifMatch != null && !ifMatch.isBlank()) {
            throw new VersionMismatchException("If-Match was sent but plugin "
                    + type.id() + "/" + name + " has no overlay in environment '" + environment + "'.", null);
        }
        if (!created) {
            ETags.expectedVersion(ifMatch).check(o.version);
        } else {
            o = new PluginEnvironment();
            o.pluginId = p.id;
            o.environment = environment;
        }
        List<String> sensitive = Jsons.readStrings(p.sensitive);
        PluginOverlays.apply(req, o, sensitive);
        PluginSecrets.seal(o, sensitive, cipher);
        o.updatedAt = Timestamps.now(clock);
        if (created) {
            o.createdAt = o.updatedAt;
            overlays.persist(o);
        }
        overlays.flush();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("environment", environment);
        details.put("config", List.copyOf(Jsons.readObject(o.config).properties().stream().map(Map.Entry::getKey)
                .toList()));
        details.put("env", List.copyOf(Jsons.readStringMap(o.env).keySet()));
        audit.record(created ? "plugin.environment.create" : "plugin.environment.update", "plugin",
                type.id() + "/" + name, details);
        return new Upsert(PluginOverlays.toResponse(o, sensitive), created);
    }

    /**
     * Deletes the plugin's overlay in an environment.
     *
     * @throws NotFoundException 404; VersionMismatchException 412 on ETag mismatch
     */
    public void delete(PluginType type, String name, String environment, String ifMatch) {
        Plugin p = plugin(type, name);
        PluginEnvironment o = overlays.find(p.id, environment).orElseThrow(() -> notFound(p, environment));
        ETags.expectedVersion(ifMatch).check(o.version);
        overlays.delete(o);
        overlays.flush();
        audit.record("plugin.environment.delete", "plugin", type.id() + "/" + name,
                Map.of("environment", environment));
    }

    /** Each response with the overlays of its plugin ({@code environments}), in one query. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public List<PluginResponse> withEnvironments(List<PluginResponse> responses) {
        Map<String, Plugin> byKey = new LinkedHashMap<>();
        for (PluginResponse r : responses) {
            plugins.findByTypeAndName(PluginType.fromPath(r.type()), r.name()).ifPresent(p -> byKey.put(r.type()
                    + "/" + r.name(), p));
        }
        Map<Long, List<PluginEnvironment>> byPlugin = overlays.ofPlugins(byKey.values().stream().map(p -> p.id)
                .toList()).stream().collect(Collectors.groupingBy(o -> o.pluginId));
        return responses.stream().map(r -> {
            Plugin p = byKey.get(r.type() + "/" + r.name());
            return p == null ? r : r.withEnvironments(views(p, byPlugin.getOrDefault(p.id, List.of())));
        }).toList();
    }

    /** The overlays of a plugin, unmasked (sealed values as stored), by environment: what runs and exports use. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Map<String, PluginEnvironment> stored(long pluginId) {
        Map<String, PluginEnvironment> out = new LinkedHashMap<>();
        overlays.ofPlugin(pluginId).forEach(o -> out.put(o.environment, o));
        return out;
    }

    /** The overlay of a plugin in an environment as stored, if any. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Optional<PluginEnvironment> stored(long pluginId, String environment) {
        return overlays.find(pluginId, environment);
    }

    private Map<String, EnvironmentOverlayResponse> views(Plugin p, List<PluginEnvironment> list) {
        List<String> sensitive = Jsons.readStrings(p.sensitive);
        Map<String, EnvironmentOverlayResponse> out = new LinkedHashMap<>();
        list.forEach(o -> out.put(o.environment, PluginOverlays.toResponse(o, sensitive)));
        return out;
    }

    private Plugin plugin(PluginType type, String name) {
        return plugins.findByTypeAndName(type, name)
                .orElseThrow(() -> new NotFoundException("Plugin", type.id() + "/" + name));
    }

    private static NotFoundException notFound(Plugin p, String environment) {
        return new NotFoundException("Overlay of plugin " + p.type.id() + "/" + p.name + " in environment",
                environment);
    }
}
