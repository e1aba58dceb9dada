package io.tapline.project;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.Problem;
import io.tapline.common.error.ProblemException;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineMapper;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.pipeline.PipelineService;
import io.tapline.pipeline.StateIds;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginMapper;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginService;
import io.tapline.plugin.api.PluginRequest;
import io.tapline.project.ProjectModel.PipelineDef;
import io.tapline.project.ProjectModel.PluginDef;
import io.tapline.project.api.Assessment;
import io.tapline.project.api.ImportPlan;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Meltano projects: {@code POST /api/v1/projects:import} (meltano.yml → plugins and pipelines,
 * with a dry-run plan), {@code GET /api/v1/projects/assessment} and
 * {@code GET /api/v1/projects/meltano.yml}.
 *
 * <p>An import is one transaction: every plugin and pipeline is created or replaced through
 * {@link PluginService} and {@link PipelineService} (so their validation, events and checks apply),
 * and nothing is written when one of them fails. A dry run does exactly the same and rolls the
 * transaction back, so its plan and its errors are those of the real import. Items that would not
 * change are not written at all. Fields the document does not describe (a plugin's {@code args}
 * and stored catalog; a pipeline's state strategy, commit policy, timeout, retry, pause, executor,
 * and its time zone when the schedule gives none) keep their stored values.
 */
@ApplicationScoped
public class ProjectService {

    private static final List<String> PLUGIN_FIELDS = List.of("executable", "capabilities", "config", "sensitive",
            "select", "metadata", "env", "namespace", "variant", "pipUrl", "inheritFrom", "extras");
    private static final List<String> PIPELINE_FIELDS = List.of("extractor", "mappers", "loader", "transform",
            "environment", "stateIdSuffix", "stateId", "schedule.interval", "schedule.timezone", "env", "meltanoJob");
    private static final Map<String, String> YAML_NAMES = Map.of("pipUrl", "pip_url", "inheritFrom", "inherit_from",
            "schedule.interval", "interval", "schedule.timezone", "timezone");

    private final PluginRepository plugins;
    private final PipelineRepository pipelines;
    private final PluginService pluginService;
    private final PipelineService pipelineService;
    private final ProjectImportRepository imports;
    private final TaplineConfig config;
    private final Clock clock;
    private final io.tapline.common.security.SecretCipher cipher;
    /** The service's JSON mapper, reading API views back into requests (response-only fields ignored). */
    private final ObjectMapper requests;

    public ProjectService(PluginRepository plugins, PipelineRepository pipelines, PluginService pluginService,
                          PipelineService pipelineService, ProjectImportRepository imports, TaplineConfig config,
                          Clock clock, ObjectMapper mapper, io.tapline.common.security.SecretCipher cipher) {
        this.cipher = cipher;
        this.plugins = plugins;
        this.pipelines = pipelines;
        this.pluginService = pluginService;
        this.pipelineService = pipelineService;
        this.imports = imports;
        this.config = config;
        this.clock = clock;
        this.requests = mapper.copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /**
     * Imports a meltano.yml.
     *
     * @param yaml the document
     * @param environment environment to import for, or null for {@code default_environment} (else {@code dev})
     * @param dryRun return the plan and write nothing
     * @return the plan: per item create, update or unchanged with the changed fields, and the unsupported keys
     * @throws ProblemException 400 {@code malformed-body} for unreadable or hostile YAML, 413 for an
     *     oversized document, 400 {@code validation} with YAML paths in {@code errors[].field}, 409
     *     when a state ID is taken by a pipeline outside the project
     */
    public ImportPlan importProject(String yaml, String environment, boolean dryRun) {
        return importProject(yaml, environment, dryRun, null);
    }

    /**
     * Imports a meltano.yml, choosing what happens to existing plugins ({@link ImportConflicts}).
     *
     * @param onConflict {@code replace} (null: the default), {@code merge} or {@code fail}
     * @throws ProblemException as the other overload, plus 400 for another onConflict and 409 under fail
     */
    public ImportPlan importProject(String yaml, String environment, boolean dryRun, String onConflict) {
        ImportConflicts.OnConflict mode = ImportConflicts.OnConflict.parse(onConflict);
        TaplineConfig.Projects limits = config.projects();
        MeltanoYaml.Parsed parsed = MeltanoYaml.parse(yaml, new MeltanoYaml.Limits(limits.maxDocumentChars(),
                limits.maxAliases(), limits.maxDepth(), limits.maxNodes(), limits.maxExpandedChars()));
        ProjectModel model = ProjectReader.read(parsed, environment == null || environment.isBlank() ? null
                : environment.trim(), limits.baseDir().orElse(null));
        try {
            return QuarkusTransaction.requiringNew().call(() -> {
                ImportPlan plan = apply(model, dryRun, mode);
                if (dryRun) {
                    throw new DryRun(plan);
                }
                record(model, plan);
                return plan;
            });
        } catch (DryRun d) {
            return d.plan;
        }
    }

    /** Ends a dry run: thrown out of the import transaction so that it rolls back, carrying the plan. */
    private static final class DryRun extends RuntimeException {
        private final transient ImportPlan plan;

        DryRun(ImportPlan plan) {
            super("dry run", null, false, false);
            this.plan = plan;
        }
    }

    private ImportPlan apply(ProjectModel model, boolean dryRun, ImportConflicts.OnConflict mode) {
        List<String> conflicts = new ArrayList<>();
        List<ImportPlan.Item> pluginItems = new ArrayList<>();
        Map<String, PluginDef> byKey = new java.util.HashMap<>();
        model.plugins().forEach(d -> byKey.put(d.type().id() + "/" + d.name(), d));
        for (PluginDef d : model.plugins()) {
            Plugin existing = plugins.findByTypeAndName(d.type(), d.name()).orElse(null);
            List<String> lineage = new ArrayList<>();
            for (PluginDef a = d; a != null && !lineage.contains(a.name()) && lineage.size() < 100;
                 a = a.inheritFrom() == null ? null : byKey.get(d.type().id() + "/" + a.inheritFrom())) {
                lineage.add(a.name());
            }
            ObjectNode req = pluginRequest(d, existing, lineage);
            boolean merge = existing != null && mode == ImportConflicts.OnConflict.MERGE;
            req = merge ? ImportConflicts.merged(req, existing) : req;
            List<String> changes = existing == null ? List.of() : pluginChanges(req, existing);
            String action = existing == null ? "create" : changes.isEmpty() ? "unchanged" : "update";
            boolean update = action.equals("update");
            pluginItems.add(new ImportPlan.Item(d.type().id(), d.name(), d.path(), action, changes,
                    update && !merge ? ImportConflicts.dropped(req, existing) : List.of(),
                    update ? pipelines.namesUsingPlugin(existing.id) : List.of()));
            if (update && mode == ImportConflicts.OnConflict.FAIL) {
                conflicts.add(d.type().id() + "/" + d.name());
            }
            if (!action.equals("unchanged")) {
                try {
                    pluginService.put(d.type(), d.name(), requests.convertValue(req, PluginRequest.class), null);
                } catch (ProblemException e) {
                    throw at(d.path(), e);
                }
            }
        }
        List<ImportPlan.Item> pipelineItems = new ArrayList<>();
        for (PipelineDef d : model.pipelines()) {
            Pipeline existing = pipelines.findByName(d.name()).orElse(null);
            ObjectNode current = existing == null ? null : requests.valueToTree(PipelineMapper.toResponse(existing));
            ObjectNode req = pipelineRequest(d, current);
            List<String> changes = current == null ? List.of() : pipelineChanges(d, req, current);
            String action = existing == null ? "create" : changes.isEmpty() ? "unchanged" : "update";
            pipelineItems.add(new ImportPlan.Item("pipeline", d.name(), d.path(), action, changes, List.of(),
                    List.of()));
            if (action.equals("update") && mode == ImportConflicts.OnConflict.FAIL) {
                conflicts.add("pipeline " + d.name());
            }
            if (!action.equals("unchanged")) {
                try {
                    pipelineService.put(d.name(), requests.convertValue(req, PipelineRequest.class), null);
                } catch (ProblemException e) {
                    throw at(d.path(), e);
                }
            }
        }
        if (!conflicts.isEmpty()) {
            throw ImportConflicts.conflict(conflicts);
        }
        List<ImportPlan.Unsupported> unsupported = model.unsupported().stream()
                .map(u -> new ImportPlan.Unsupported(u.path(), u.reason())).toList();
        int create = 0;
        int update = 0;
        int unchanged = 0;
        for (ImportPlan.Item i : concat(pluginItems, pipelineItems)) {
            switch (i.action()) {
                case "create" -> create++;
                case "update" -> update++;
                default -> unchanged++;
            }
        }
        return new ImportPlan(model.environment(), dryRun, mode.name().toLowerCase(java.util.Locale.ROOT), pluginItems, pipelineItems, unsupported,
                new ImportPlan.Summary(create, update, unchanged, unsupported.size()));
    }

    private void record(ProjectModel model, ImportPlan plan) {
        ProjectImport row = new ProjectImport();
        row.importedAt = OffsetDateTime.now(clock);
        row.environment = model.environment();
        row.defaultEnvironment = model.defaultEnvironment();
        row.environments = Jsons.write(model.environments());
        row.document = Jsons.write(model.document());
        row.summary = Jsons.write(plan.summary());
        imports.persist(row);
        imports.flush();
    }

    /**
     * The request that makes the stored plugin equal to {@code d}, keeping what the document does not describe.
     *
     * @param lineage the plugin and the plugins it inherits from: a secret exported as the reference
     *     of any of them ({@code ${PLUGIN_SETTING}}) keeps the value stored here
     */
    private static ObjectNode pluginRequest(PluginDef d, Plugin existing, List<String> lineage) {
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("name", d.name());
        r.put("executable", d.executable());
        r.set("args", existing == null ? JsonNodeFactory.instance.arrayNode() : Jsons.read(existing.args));
        r.set("capabilities", strings(d.capabilities()));
        ObjectNode config = d.config().deepCopy();
        if (existing != null) {
            // A secret exported as its ${PLUGIN_SETTING} reference keeps the value stored here.
            ObjectNode stored = Jsons.readObject(existing.config);
            for (String s : d.sensitive()) {
                JsonNode incoming = config.get(s);
                JsonNode kept = stored.get(s);
                if (incoming != null && lineage.stream().anyMatch(n -> incoming.asText().equals(
                        SensitiveNames.reference(n, s))) && kept != null
                        && kept.isValueNode() && !SensitiveNames.isReference(kept.asText())
                        && Jsons.readStrings(existing.sensitive).contains(s)) {
                    config.put(s, PluginMapper.MASK);
                }
            }
        }
        r.set("config", config);
        r.set("sensitive", strings(d.sensitive()));
        r.set("select", strings(d.select()));
        r.set("metadata", d.metadata());
        r.set("catalog", existing == null || existing.catalog == null ? NullNode.instance : Jsons.read(existing.catalog));
        ObjectNode env = Jsons.MAPPER.valueToTree(d.env());
        if (existing != null) {
            // A sensitive env variable is exported as ${NAME} (its own name); reading that back keeps
            // the value stored here instead of storing the reference text in its place.
            java.util.Map<String, String> storedEnv = Jsons.readStringMap(existing.env);
            List<String> storedSensitive = Jsons.readStrings(existing.sensitive);
            env.fields().forEachRemaining(f -> {
                String kept = storedEnv.get(f.getKey());
                if (d.sensitive().contains(f.getKey()) && storedSensitive.contains(f.getKey()) && kept != null
                        && f.getValue().isTextual() && f.getValue().asText().equals("${" + f.getKey() + "}")
                        && !SensitiveNames.isReference(kept)) {
                    f.setValue(com.fasterxml.jackson.databind.node.TextNode.valueOf(PluginMapper.MASK));
                }
            });
        }
        r.set("env", env);
        // The export gives a plugin without namespace the one Meltano derives from its name; reading
        // that back keeps the stored plugin as it was.
        boolean derivedNamespace = existing != null && existing.namespace == null && d.inheritFrom() == null
                && d.name().replace('-', '_').equals(d.namespace());
        r.put("namespace", derivedNamespace ? null : d.namespace());
        r.put("variant", d.variant());
        r.put("pipUrl", d.pipUrl());
        r.put("inheritFrom", d.inheritFrom());
        r.set("extras", d.extras());
        return r;
    }

    private static List<String> pluginChanges(ObjectNode req, Plugin p) {
        ObjectNode stored = JsonNodeFactory.instance.objectNode();
        stored.put("executable", p.executable);
        stored.set("capabilities", Jsons.read(p.capabilities));
        stored.set("config", Jsons.read(p.config));
        stored.set("sensitive", Jsons.read(p.sensitive));
        stored.set("select", Jsons.read(p.selectPatterns));
        stored.set("metadata", Jsons.read(p.metadata));
        stored.set("env", Jsons.read(p.env));
        stored.put("namespace", p.namespace);
        stored.put("variant", p.variant);
        stored.put("pipUrl", p.pipUrl);
        stored.put("inheritFrom", p.inheritFrom);
        stored.set("extras", Jsons.read(p.extras));
        ObjectNode wanted = req.deepCopy();
        ObjectNode config = (ObjectNode) wanted.get("config");
        ObjectNode storedConfig = (ObjectNode) stored.get("config");
        config.fields().forEachRemaining(f -> {
            if (f.getValue().isTextual() && PluginMapper.MASK.equals(f.getValue().asText()) && storedConfig.has(f.getKey())) {
                f.setValue(storedConfig.get(f.getKey()));
            }
        });
        if (wanted.get("env") instanceof ObjectNode wantedEnv && stored.get("env") instanceof ObjectNode storedEnv) {
            wantedEnv.fields().forEachRemaining(f -> {
                if (f.getValue().isTextual() && PluginMapper.MASK.equals(f.getValue().asText())
                        && storedEnv.has(f.getKey())) {
                    f.setValue(storedEnv.get(f.getKey()));
                }
            });
        }
        wanted.set("extras", impliedSettingsRemoved(wanted.get("extras"), wanted.get("sensitive")));
        stored.set("extras", impliedSettingsRemoved(stored.get("extras"), stored.get("sensitive")));
        List<String> changes = new ArrayList<>();
        for (String f : PLUGIN_FIELDS) {
            if (!same(wanted.get(f), stored.get(f))) {
                changes.add(f);
            }
        }
        return changes;
    }

    /**
     * Extras without the settings entries that only say {@code {name, kind: password}} (or
     * {@code {name, sensitive: true}}) for a name
     * that is sensitive anyway: the export adds them for sensitive settings that had no entry, so
     * they are not a change.
     */
    private static JsonNode impliedSettingsRemoved(JsonNode extras, JsonNode sensitive) {
        if (!(extras instanceof ObjectNode e) || !(e.get("settings") instanceof ArrayNode settings)) {
            return extras;
        }
        List<String> names = new ArrayList<>();
        if (sensitive != null) {
            sensitive.forEach(n -> names.add(n.asText()));
        }
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        settings.forEach(s -> {
            boolean implied = s.size() == 2 && names.contains(s.path("name").asText())
                    && (s.path("sensitive").asBoolean(false) || "password".equals(s.path("kind").asText()));
            if (!implied) {
                kept.add(s);
            }
        });
        ObjectNode out = e.deepCopy();
        if (kept.isEmpty()) {
            out.remove("settings");
        } else {
            out.set("settings", kept);
        }
        return out;
    }

    /** The request that makes the stored pipeline equal to {@code d}, keeping what the document does not describe. */
    private static ObjectNode pipelineRequest(PipelineDef d, ObjectNode current) {
        ObjectNode r = current == null ? JsonNodeFactory.instance.objectNode() : current.deepCopy();
        for (String responseOnly : List.of("stateIdDerived", "version", "createdAt", "updatedAt", "nextRunAt",
                "lastRun")) {
            r.remove(responseOnly);
        }
        if (current != null && current.path("stateIdDerived").asBoolean(false)) {
            r.remove("stateId");
        }
        r.put("name", d.name());
        r.put("extractor", d.extractor());
        r.set("mappers", strings(d.mappers()));
        r.put("loader", d.loader());
        if (d.transform() == null) {
            r.remove("transform");
        } else {
            ObjectNode t = r.putObject("transform");
            t.put("plugin", d.transform());
            t.set("args", strings(d.transformArgs()));
        }
        r.put("environment", d.environment());
        if (d.stateIdSuffix() == null) {
            r.remove("stateIdSuffix");
        } else {
            r.put("stateIdSuffix", d.stateIdSuffix());
        }
        if (d.stateId() == null) {
            r.remove("stateId");
        } else {
            r.put("stateId", d.stateId());
        }
        ObjectNode schedule = r.get("schedule") instanceof ObjectNode s ? s : r.putObject("schedule");
        schedule.put("interval", d.interval());
        if (d.timezone() != null) {
            schedule.put("timezone", d.timezone());
        } else if (!schedule.has("timezone")) {
            schedule.put("timezone", "UTC");
        }
        r.set("env", Jsons.MAPPER.valueToTree(d.env()));
        // The export writes a pipeline made through the API as a job named after it; reading that
        // back does not make the pipeline a job pipeline.
        boolean ownNameJob = current != null && (!current.has("meltanoJob") || current.get("meltanoJob").isNull());
        r.put("meltanoJob", ownNameJob && d.name().equals(d.meltanoJob()) ? null : d.meltanoJob());
        return r;
    }

    private static List<String> pipelineChanges(PipelineDef d, ObjectNode req, ObjectNode current) {
        ObjectNode wanted = req.deepCopy();
        wanted.put("stateId", d.stateId() != null ? d.stateId()
                : StateIds.derive(d.environment(), d.extractor(), d.loader(), d.stateIdSuffix()));
        List<String> changes = new ArrayList<>();
        for (String f : PIPELINE_FIELDS) {
            if (!same(wanted.at("/" + f.replace('.', '/')), current.at("/" + f.replace('.', '/')))) {
                changes.add(f);
            }
        }
        return changes;
    }

    /** Equal as JSON, with numbers compared by value and missing equal to null. */
    private static boolean same(JsonNode a, JsonNode b) {
        JsonNode x = a == null || a.isMissingNode() ? NullNode.instance : a;
        JsonNode y = b == null || b.isMissingNode() ? NullNode.instance : b;
        return Jsons.read(Jsons.write(x)).equals(Jsons.read(Jsons.write(y)));
    }

    /** Re-targets a service's field errors at the YAML path of the item. */
    private static ProblemException at(String path, ProblemException e) {
        List<Problem.FieldError> errors = new ArrayList<>();
        if (e.errors() != null) {
            for (Problem.FieldError f : e.errors()) {
                String field = f.field();
                for (Map.Entry<String, String> n : YAML_NAMES.entrySet()) {
                    if (field.equals(n.getKey()) || field.startsWith(n.getKey() + ".")) {
                        field = n.getValue() + field.substring(n.getKey().length());
                    }
                }
                errors.add(new Problem.FieldError(path + "." + field, f.message()));
            }
        }
        ProblemException out = new ProblemException(e.type(), "meltano.yml " + path + ": " + e.getMessage(),
                errors.isEmpty() ? null : errors);
        e.extensions().forEach(out::with);
        return out;
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        values.forEach(a::add);
        return a;
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * The assessment of the project: maturity from the environments of the last import, findings
     * from the plugins and pipelines held now.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Assessment assessment() {
        ProjectImport last = imports.latest().orElse(null);
        return ProjectAssessor.assess(last, plugins.listAll(), pipelines.listAll());
    }

    /** The plugins and pipelines as a meltano.yml (see {@link ProjectExporter}). */
    @Transactional(Transactional.TxType.SUPPORTS)
    public String export() {
        return ProjectExporter.export(imports.latest().orElse(null), plugins.listAll(), pipelines.listAll(), cipher::open);
    }
}
