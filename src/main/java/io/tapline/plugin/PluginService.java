package io.tapline.plugin;

import io.tapline.audit.AuditService;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tapline.common.api.Cursors;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.api.MergePatch;
import io.tapline.common.api.Names;
import io.tapline.common.api.Page;
import io.tapline.common.error.ConflictException;
import io.tapline.common.error.ConflictException.Reason;
import io.tapline.common.error.DomainException;
import io.tapline.common.error.InvalidInputException;
import io.tapline.common.error.NotFoundException;
import io.tapline.common.error.VersionMismatchException;
import io.tapline.common.security.ExecutablePolicy;
import io.tapline.common.security.SecretCipher;
import io.tapline.plugin.api.PluginRequest;
import io.tapline.plugin.api.PluginResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * Plugin administration: create, replace, read, list and delete, with name rules, ETag checks
 * and the in-use check that keeps pipelines valid ({@link PluginUsers}). Owns the transactions. Sensitive values are
 * sealed before they are stored ({@link PluginSecrets}); executables are checked against
 * {@code tapline.security.executable-dirs}; every change is audited in its transaction.
 */
@ApplicationScoped
@Transactional
public class PluginService {

    private final PluginRepository plugins;
    private final PluginUsers pipelines;
    private final Clock clock;
    private final SecretCipher cipher;
    private final ExecutablePolicy executables;
    private final AuditService audit;
    private final ObjectMapper mapper;

    /** Members of {@link PluginResponse} that a merge patch cannot set. */
    static final List<String> READ_ONLY = List.of("type", "hasCatalog", "version", "createdAt", "updatedAt",
            "warnings", "capabilitiesSource", "aboutAt", "environments");

    public PluginService(PluginRepository plugins, PluginUsers pipelines, Clock clock, SecretCipher cipher,
                         ExecutablePolicy executables, AuditService audit, ObjectMapper mapper) {
        this.mapper = mapper;
        this.cipher = cipher;
        this.executables = executables;
        this.audit = audit;
        this.plugins = plugins;
        this.pipelines = pipelines;
        this.clock = clock;
    }

    /** Result of a PUT: the plugin and whether it was created. */
    public record Upsert(PluginResponse plugin, boolean created) {
    }

    /**
     * Creates a plugin.
     *
     * @throws DomainException 400 on invalid input, 409 when the name is taken for this type
     */
    public PluginResponse create(PluginType type, PluginRequest req) {
        String name = Names.pluginName("name", req.name());
        if (plugins.findByTypeAndName(type, name).isPresent()) {
            throw new ConflictException(Reason.ALREADY_EXISTS, "A plugin of type " + type.id() + " named '"
                    + name + "' already exists; use PUT /api/v1/plugins/" + type.id() + "/" + name + " to replace it.");
        }
        return PluginMapper.toResponse(insert(type, name, req, CapabilitySource.API), true);
    }

    /**
     * Creates or replaces a plugin (PUT semantics).
     *
     * @param expected the version the caller expects ({@link ExpectedVersion#none()}: create or
     *     replace whatever is stored; anything else requires the plugin to exist)
     * @throws DomainException 400 on invalid input or a body name that differs from the path, 412
     *     when the plugin is not at {@code expected}
     */
    public Upsert put(PluginType type, String name, PluginRequest req, ExpectedVersion expected) {
        return put(type, name, req, expected, CapabilitySource.API);
    }

    /**
     * As {@link #put(PluginType, String, PluginRequest, ExpectedVersion)}, for a request whose capabilities
     * come from {@code origin} (a meltano.yml import sends {@link CapabilitySource#PROJECT}).
     */
    public Upsert put(PluginType type, String name, PluginRequest req, ExpectedVersion expected,
                      CapabilitySource origin) {
        Names.pluginName("name", name);
        if (req.name() != null && !req.name().equals(name)) {
            throw InvalidInputException.field("name", "must equal the name in the path ('" + name
                    + "'); plugins cannot be renamed");
        }
        Plugin plugin = plugins.findByTypeAndName(type, name).orElse(null);
        if (plugin == null) {
            if (expected.sent()) {
                throw new VersionMismatchException("If-Match was sent but plugin "
                        + type.id() + "/" + name + " does not exist.", null);
            }
            return new Upsert(PluginMapper.toResponse(insert(type, name, req, origin), true), true);
        }
        expected.check(plugin.version);
        req = withDefaultExecutable(type, name, req);
        executables.checkDeclared(req.executable());
        executables.checkDeclared("extras.python",
                io.tapline.plugin.install.PluginInstallService.Target.python(req.extras()));
        Plugin before = plugin.detachedCopy();
        PluginMapper.apply(req, plugin, origin);
        Map<String, Object> summary = PluginSecrets.summary(before, plugin, cipher);
        PluginSecrets.seal(plugin, cipher);
        plugin.updatedAt = io.tapline.common.time.Timestamps.now(clock);
        plugins.flush();
        audit.record("plugin.update", "plugin", type.id() + "/" + name, summary);
        return new Upsert(PluginMapper.toResponse(plugin, true), false);
    }

    /**
     * Changes some fields of a plugin (JSON Merge Patch, RFC 7396): the patch is merged into the
     * plugin as GET shows it (sensitive values stay masked, so they keep their stored value) and
     * the result goes through the same validation as {@link #put}.
     *
     * @param patch a JSON object; {@code null} members remove a field (its default applies)
     * @param expected the version the caller expects, checked before and after the merge
     * @throws DomainException 404, 400 on an invalid result or a read-only member, 412 when the
     *     plugin is not at {@code expected}
     * @throws JsonProcessingException when the merged document has a field of the wrong type (400)
     */
    public PluginResponse patch(PluginType type, String name, JsonNode patch, ExpectedVersion expected)
            throws JsonProcessingException {
        Plugin plugin = find(type, name);
        expected.check(plugin.version);
        PluginResponse current = PluginMapper.toResponse(plugin, true);
        PluginRequest merged = MergePatch.merge(mapper, current, READ_ONLY, patch, PluginRequest.class);
        if (!patch.has("capabilities") && !CapabilitySource.of(plugin.capabilitiesSource).map(CapabilitySource::given)
                .orElse(false)) {
            // capabilities the plugin answered (or none yet) stay its own, not a list sent now
            merged = merged.withCapabilities(null);
        }
        for (String path : current.sensitive()) {
            boolean stillSensitive = merged.sensitive() != null && merged.sensitive().contains(path);
            JsonNode value = merged.config() == null ? null : PluginMapper.at(merged.config(), path);
            if (!stillSensitive && value != null && PluginMapper.MASK.equals(value.asText())) {
                throw InvalidInputException.field("config." + path, "is no longer sensitive but still reads \""
                        + PluginMapper.MASK + "\"; send its real value in the same patch");
            }
        }
        return put(type, name, merged, expected).plugin();
    }

    /** The plugin, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public PluginResponse get(PluginType type, String name) {
        return PluginMapper.toResponse(find(type, name), true);
    }

    /**
     * One page of plugins, newest first.
     *
     * @param type only this type, or null for all types
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<PluginResponse> list(PluginType type, String cursor, int limit) {
        return Page.of(plugins.page(type, Cursors.decodeId(cursor), limit + 1), limit, p -> Long.toString(p.id),
                p -> PluginMapper.toResponse(p, false));
    }

    /**
     * Deletes a plugin.
     *
     * @param expected the version the caller expects
     * @throws DomainException 404, 412 when the plugin is not at {@code expected}, 409 when a
     *     pipeline uses it
     */
    public void delete(PluginType type, String name, ExpectedVersion expected) {
        Plugin plugin = find(type, name);
        expected.check(plugin.version);
        List<String> users = pipelines.namesUsingPlugin(plugin.id);
        if (!users.isEmpty()) {
            throw new ConflictException(Reason.IN_USE, "Plugin " + type.id() + "/" + name
                    + " is used by pipeline(s) " + String.join(", ", users) + "; change or delete them first.")
                    .with("pipelines", users);
        }
        plugins.delete(plugin);
        plugins.flush();
        audit.record("plugin.delete", "plugin", type.id() + "/" + name, Map.of());
    }

    /**
     * What a plugin said about itself ({@code --about --format=json}), or that it could not say.
     *
     * @param capabilities the capabilities to use from now on: the answer's, or Meltano's
     *     conventional set ({@link CapabilitySource#conventional})
     * @param source {@link CapabilitySource#ABOUT} or {@link CapabilitySource#DEFAULT}
     * @param about the answer as printed (a JSON object's text), or null
     * @param error why the plugin could not answer, or null
     */
    public record About(List<String> capabilities, CapabilitySource source, String about, String error) {
    }

    /**
     * Stores what a plugin answered about itself, in a transaction of its own, when its
     * capabilities are still not given and not asked and its executable is still
     * {@code executable} (a compare-and-set: a plugin edited or asked meanwhile keeps what it has).
     * Bumps the plugin's version (its ETag); audited as {@code plugin.capabilities} by
     * {@code actor}.
     *
     * @param executable the executable the answer came from, as stored (unresolved)
     * @return true when stored, false when the plugin changed or is gone
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public boolean recordAbout(PluginType type, String name, String executable, About answer, String actor) {
        int n = plugins.getEntityManager().createNativeQuery("""
                update plugin set capabilities = :caps, capabilities_source = :source, about = :about,
                    about_error = :error, about_at = :now, updated_at = :now, version = version + 1
                where type = :type and name = :name and capabilities_source is null and executable = :exe
                """)
                .setParameter("caps", io.tapline.common.json.Jsons.write(answer.capabilities()))
                .setParameter("source", answer.source().id())
                .setParameter("about", answer.about()).setParameter("error", answer.error())
                .setParameter("now", io.tapline.common.time.Timestamps.now(clock))
                .setParameter("type", type.id()).setParameter("name", name).setParameter("exe", executable)
                .executeUpdate();
        if (n == 1) {
            Map<String, Object> details = new java.util.LinkedHashMap<>();
            details.put("source", answer.source().id());
            details.put("capabilities", answer.capabilities());
            if (answer.error() != null) {
                details.put("error", answer.error());
            }
            audit.record(actor, "plugin.capabilities", "plugin", type.id() + "/" + name, details);
        }
        return n == 1;
    }

    /** The entity, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Plugin find(PluginType type, String name) {
        return plugins.findByTypeAndName(type, name)
                .orElseThrow(() -> new NotFoundException("Plugin", type.id() + "/" + name));
    }

    /**
     * The executable of a request that names none, as Meltano 4.2.2 fills it in: with
     * {@code inheritFrom}, the parent's ({@code inherit_from} copies the parent's fields); else,
     * with a {@code pipUrl}, the plugin's name (Meltano's default {@code executable}, a console
     * script of the installed package). Otherwise the request is left to the usual "executable is
     * required" check.
     */
    private PluginRequest withDefaultExecutable(PluginType type, String name, PluginRequest req) {
        if (req.executable() != null && !req.executable().isBlank()) {
            return req;
        }
        String executable = req.inheritFrom() == null ? null
                : plugins.findByTypeAndName(type, req.inheritFrom()).map(parent -> parent.executable).orElse(null);
        if (executable == null && req.inheritFrom() == null && req.pipUrl() != null && !req.pipUrl().isBlank()) {
            executable = name;
        }
        if (executable == null) {
            return req;
        }
        return new PluginRequest(req.name(), executable, req.args(), req.capabilities(),
                req.config(), req.sensitive(), req.select(), req.metadata(), req.catalog(), req.env(),
                req.namespace(), req.variant(), req.pipUrl(), req.inheritFrom(), req.extras());
    }

    private Plugin insert(PluginType type, String name, PluginRequest req, CapabilitySource origin) {
        Plugin plugin = new Plugin();
        plugin.type = type;
        plugin.name = name;
        req = withDefaultExecutable(type, name, req);
        executables.checkDeclared(req.executable());
        executables.checkDeclared("extras.python",
                io.tapline.plugin.install.PluginInstallService.Target.python(req.extras()));
        PluginMapper.apply(req, plugin, origin);
        Map<String, Object> summary = PluginSecrets.summary(null, plugin, cipher);
        PluginSecrets.seal(plugin, cipher);
        plugin.createdAt = io.tapline.common.time.Timestamps.now(clock);
        plugin.updatedAt = plugin.createdAt;
        plugins.persist(plugin);
        plugins.flush();
        audit.record("plugin.create", "plugin", type.id() + "/" + name, summary);
        return plugin;
    }

}
