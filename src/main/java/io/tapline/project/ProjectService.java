package io.tapline.project;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.tapline.common.api.ExpectedVersion;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.Pipeline;
import io.tapline.pipeline.PipelineMapper;
import io.tapline.pipeline.PipelineRepository;
import io.tapline.pipeline.PipelineService;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.CapabilitySource;
import io.tapline.plugin.PluginService;
import io.tapline.plugin.api.EnvironmentOverlayRequest;
import io.tapline.plugin.api.PluginRequest;
import io.tapline.project.assess.ProjectAssessor;
import io.tapline.project.export.ProjectExporter;
import io.tapline.project.meltano.MeltanoYaml;
import io.tapline.project.model.ProjectModel;
import io.tapline.project.model.ProjectModel.PipelineDef;
import io.tapline.project.model.ProjectModel.PluginDef;
import io.tapline.project.model.ProjectReader;
import io.tapline.project.assess.ProjectAssessment;
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
 * unless {@code annotations.tapline.args} gives them, and its stored catalog; a pipeline's state strategy, commit policy, timeout, retry, pause (unless annotated), executor,
 * and its time zone when the schedule gives none) keep their stored values.
 */
@ApplicationScoped
public class ProjectService {

    private final PluginRepository plugins;
    private final PipelineRepository pipelines;
    private final PluginService pluginService;
    private final io.tapline.plugin.PluginEnvironmentService overlays;
    private final PipelineService pipelineService;
    private final ProjectImportRepository imports;
    private final TaplineConfig config;
    private final Clock clock;
    private final io.tapline.common.security.SecretCipher cipher;
    /** The service's JSON mapper, reading API views back into requests (response-only fields ignored). */
    private final ObjectMapper requests;

    public ProjectService(PluginRepository plugins, PipelineRepository pipelines, PluginService pluginService,
                          PipelineService pipelineService, ProjectImportRepository imports, TaplineConfig config,
                          Clock clock, ObjectMapper mapper, io.tapline.common.security.SecretCipher cipher,
                          io.tapline.plugin.PluginEnvironmentService overlays) {
        this.overlays = overlays;
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
     * Imports a meltano.yml: reads it ({@link MeltanoYaml}, {@link ProjectReader}), then creates or
     * updates its plugins and pipelines in one transaction.
     *
     * @param yaml the document
     * @param environment environment to import for, or null for {@code default_environment} (else {@code dev})
     * @param dryRun return the plan and write nothing
     * @param onConflict what happens to existing plugins ({@link ImportConflicts}); null (not given):
     *     {@code replace}, except that an import that would drop a stored secret or capability
     *     writes nothing and fails (dry run or not)
     * @return the plan: per item create, update or unchanged with the changed fields, and the unsupported keys
     * @throws io.tapline.common.error.MalformedInputException for unreadable or hostile YAML
     * @throws io.tapline.common.error.LimitExceededException for an oversized document
     * @throws io.tapline.common.error.InvalidInputException with YAML paths in its field errors
     * @throws io.tapline.common.error.ConflictException when a state ID is taken by a pipeline outside
     *     the project, under {@code fail} when an existing item would change, and with
     *     {@code onConflict} null when a secret or capability would be dropped (members
     *     {@code conflicts}, {@code drops}, {@code plan})
     */
    public ImportOutcome importProject(String yaml, String environment, boolean dryRun, OnConflict onConflict) {
        TaplineConfig.Projects limits = config.projects();
        MeltanoYaml.Parsed parsed = MeltanoYaml.parse(yaml, new MeltanoYaml.Limits(limits.maxDocumentChars(),
                limits.maxAliases(), limits.maxDepth(), limits.maxNodes(), limits.maxExpandedChars()));
        ProjectModel model = ProjectReader.read(parsed, environment == null || environment.isBlank() ? null
                : environment.trim(), limits.baseDir().orElse(null));
        try {
            return QuarkusTransaction.requiringNew().call(() -> {
                ImportOutcome plan = apply(model, dryRun, onConflict);
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
        private final transient ImportOutcome plan;

        DryRun(ImportOutcome plan) {
            super("dry run", null, false, false);
            this.plan = plan;
        }
    }

    private ImportOutcome apply(ProjectModel model, boolean dryRun, OnConflict onConflict) {
        OnConflict mode = onConflict == null ? OnConflict.REPLACE : onConflict;
        List<ImportOutcome.Item> guarded = new ArrayList<>();
        List<String> conflicts = new ArrayList<>();
        List<ImportOutcome.Item> pluginItems = new ArrayList<>();
        Map<String, PluginDef> byKey = new java.util.HashMap<>();
        model.plugins().forEach(d -> byKey.put(d.type().id() + "/" + d.name(), d));
        for (PluginDef d : model.plugins()) {
            Plugin existing = plugins.findByTypeAndName(d.type(), d.name()).orElse(null);
            List<String> lineage = new ArrayList<>();
            for (PluginDef a = d; a != null && !lineage.contains(a.name()) && lineage.size() < 100;
                 a = a.inheritFrom() == null ? null : byKey.get(d.type().id() + "/" + a.inheritFrom())) {
                lineage.add(a.name());
            }
            ObjectNode req = ImportRequests.pluginRequest(d, existing, lineage);
            boolean merge = existing != null && mode == OnConflict.MERGE;
            req = merge ? ImportConflicts.merged(req, existing) : req;
            List<String> fieldChanges = existing == null ? List.of() : ImportRequests.pluginChanges(req, existing);
            Map<String, io.tapline.plugin.PluginEnvironment> storedOverlays = existing == null ? Map.of()
                    : overlays.stored(existing.id);
            Map<String, EnvironmentOverlayRequest> overlayWrites = new java.util.LinkedHashMap<>();
            d.overlays().forEach((env, o) -> {
                EnvironmentOverlayRequest r = OverlayImports.request(o, storedOverlays.get(env), d.sensitive(), lineage);
                if (OverlayImports.changes(r, storedOverlays.get(env), d.sensitive(), cipher::open)) {
                    overlayWrites.put(env, r);
                }
            });
            List<String> overlaysDropped = merge ? List.of() : storedOverlays.keySet().stream()
                    .filter(env -> !d.overlays().containsKey(env)).toList();
            List<String> changes = new ArrayList<>(fieldChanges);
            if (existing != null && (!overlayWrites.isEmpty() || !overlaysDropped.isEmpty())) {
                changes.add("environments");
            }
            ImportOutcome.Action action = action(existing != null, changes);
            boolean update = action == ImportOutcome.Action.UPDATE;
            List<String> dropped = new ArrayList<>(update && !merge ? ImportConflicts.dropped(req, existing) : List.of());
            overlaysDropped.forEach(env -> dropped.add("environment " + env));
            ImportOutcome.Item item = new ImportOutcome.Item(d.type().id(), d.name(), d.path(), action, changes,
                    List.copyOf(dropped), update ? pipelines.namesUsingPlugin(existing.id) : List.of());
            pluginItems.add(item);
            if (onConflict == null && !ImportConflicts.guardedDrops(item.dropped()).isEmpty()) {
                guarded.add(item);
            }
            if (update && mode == OnConflict.FAIL) {
                conflicts.add(d.type().id() + "/" + d.name());
            }
            try {
                if (existing == null || !fieldChanges.isEmpty()) {
                    pluginService.put(d.type(), d.name(), requests.convertValue(req, PluginRequest.class), ExpectedVersion.none(),
                            CapabilitySource.PROJECT);
                }
                overlayWrites.forEach((env, r) -> overlays.put(d.type(), d.name(), env, r, null));
                overlaysDropped.forEach(env -> overlays.delete(d.type(), d.name(), env, null));
            } catch (RuntimeException e) {
                throw ImportErrors.at(d.path(), e);
            }
        }
        List<ImportOutcome.Item> pipelineItems = new ArrayList<>();
        Map<String, java.util.Set<String>> byStateId = new java.util.HashMap<>();
        model.pipelines().forEach(d -> byStateId.computeIfAbsent(d.effectiveStateId(), k -> new java.util.HashSet<>())
                .add(d.name()));
        for (PipelineDef d : model.pipelines()) {
            Pipeline existing = pipelines.findByName(d.name()).orElse(null);
            ObjectNode current = existing == null ? null : requests.valueToTree(PipelineMapper.toResponse(existing));
            ObjectNode req = ImportRequests.pipelineRequest(d, current);
            List<String> changes = current == null ? List.of() : ImportRequests.pipelineChanges(d, req, current);
            ImportOutcome.Action action = action(existing != null, changes);
            pipelineItems.add(new ImportOutcome.Item("pipeline", d.name(), d.path(), action, changes, List.of(),
                    List.of()));
            if (action == ImportOutcome.Action.UPDATE && mode == OnConflict.FAIL) {
                conflicts.add("pipeline " + d.name());
            }
            if (action != ImportOutcome.Action.UNCHANGED) {
                try {
                    // Pipelines of the document may share a state ID; one outside it may not.
                    pipelineService.put(d.name(), requests.convertValue(req, PipelineRequest.class),
                            ExpectedVersion.none(), byStateId.get(d.effectiveStateId()));
                } catch (RuntimeException e) {
                    throw ImportErrors.at(d.path(), e);
                }
            }
        }
        if (!conflicts.isEmpty()) {
            throw ImportConflicts.conflict(conflicts);
        }
        ImportOutcome outcome = new ImportOutcome(model.allEnvironments() ? "*" : model.environment(), dryRun, mode,
                pluginItems, pipelineItems,
                model.unsupported());
        if (!guarded.isEmpty()) {
            // Thrown inside the import transaction: what was written above rolls back.
            throw ImportConflicts.wouldDrop(guarded, Jsons.MAPPER.convertValue(ProjectMapper.toPlan(outcome),
                    java.util.Map.class));
        }
        return outcome;
    }

    private static ImportOutcome.Action action(boolean exists, List<String> changes) {
        return !exists ? ImportOutcome.Action.CREATE
                : changes.isEmpty() ? ImportOutcome.Action.UNCHANGED : ImportOutcome.Action.UPDATE;
    }

    private void record(ProjectModel model, ImportOutcome plan) {
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
     * The assessment of the project: maturity from the environments of the last import, findings
     * from the plugins and pipelines held now.
     */
    @Transactional(Transactional.TxType.SUPPORTS)
    public ProjectAssessment assessment() {
        ProjectImport last = imports.latest().orElse(null);
        return ProjectAssessor.assess(last, plugins.listAll(), pipelines.listAll());
    }

    /** The plugins and pipelines as a meltano.yml (see {@link ProjectExporter}). */
    @Transactional(Transactional.TxType.SUPPORTS)
    public String export() {
        List<Plugin> all = plugins.listAll();
        Map<Long, Map<String, io.tapline.plugin.PluginEnvironment>> byPlugin = new java.util.HashMap<>();
        all.forEach(p -> byPlugin.put(p.id, overlays.stored(p.id)));
        return ProjectExporter.export(imports.latest().orElse(null), all, pipelines.listAll(), byPlugin, cipher::open);
    }
}
