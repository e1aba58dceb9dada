package io.tapline.pipeline;

import io.tapline.audit.AuditDiff;
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
import io.tapline.common.error.Problem;
import io.tapline.common.error.UnprocessableException;
import io.tapline.common.error.VersionMismatchException;
import io.tapline.common.json.Jsons;
import io.tapline.pipeline.api.PipelineRequest;
import io.tapline.pipeline.api.PipelineResponse;
import io.tapline.pipeline.schedule.CatchUp;
import io.tapline.pipeline.schedule.Interval;
import io.tapline.plugin.Plugin;
import io.tapline.plugin.PluginRepository;
import io.tapline.plugin.PluginType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Pipeline administration: validation, plugin references (422 when missing or of the wrong type),
 * state ID derivation and uniqueness (409), ETag checks, pause and resume of schedules. Owns the
 * transactions, fires {@link PipelineChanged} after every change, and audits every change in its
 * transaction ({@code pipeline.create|update|delete}, changed field names only).
 */
@ApplicationScoped
@Transactional
public class PipelineService {

    /** Environment used when a request names none. */
    public static final String DEFAULT_ENVIRONMENT = "dev";

    @jakarta.inject.Inject
    io.tapline.common.security.MeltanoPolicy meltanoPolicy;

    private final PipelineRepository pipelines;
    private final PluginRepository plugins;
    private final Clock clock;
    private final NextRuns nextRuns;
    private final LastRuns lastRuns;
    private final Event<PipelineChanged> changed;
    private final AuditService audit;
    private final ObjectMapper mapper;

    /** Fields never reported in change summaries. */
    private static final java.util.Set<String> UNAUDITED = java.util.Set.of("version", "createdAt", "updatedAt");

    public PipelineService(PipelineRepository pipelines, PluginRepository plugins, Clock clock,
                           NextRuns nextRuns, LastRuns lastRuns, Event<PipelineChanged> changed, AuditService audit,
                           ObjectMapper mapper) {
        this.mapper = mapper;
        this.audit = audit;
        this.pipelines = pipelines;
        this.plugins = plugins;
        this.clock = clock;
        this.nextRuns = nextRuns;
        this.lastRuns = lastRuns;
        this.changed = changed;
    }

    /** Result of a PUT: the pipeline and whether it was created. */
    public record Upsert(PipelineResponse pipeline, boolean created) {
    }

    /**
     * Creates a pipeline.
     *
     * @throws DomainException 400 invalid input, 422 unknown plugins, 409 name or state ID taken
     */
    public PipelineResponse create(PipelineRequest req) {
        String name = Names.pluginName("name", req.name());
        if (pipelines.findByName(name).isPresent()) {
            throw new ConflictException(Reason.ALREADY_EXISTS, "A pipeline named '" + name
                    + "' already exists; use PUT /api/v1/pipelines/" + name + " to replace it.");
        }
        return response(insert(name, req, null));
    }

    /**
     * Creates or replaces a pipeline (PUT semantics).
     *
     * @param expected the version the caller expects ({@link ExpectedVersion#none()}: create or
     *     replace whatever is stored; anything else requires the pipeline to exist)
     * @throws DomainException as {@link #create}, plus 412 when the pipeline is not at {@code expected}
     */
    public Upsert put(String name, PipelineRequest req, ExpectedVersion expected) {
        return put(name, req, expected, null);
    }

    /**
     * {@link #put(String, PipelineRequest, ExpectedVersion)} that may give the pipeline a state ID that the
     * pipelines named in {@code mayShareStateWith} already use (Meltano jobs of one tap and target
     * share their bookmarks; a project import passes the pipelines of the document that share one).
     * Any other pipeline of that state ID is then a 409 {@code state-id-taken}, unless the pipeline
     * already had that state ID.
     *
     * @param mayShareStateWith pipeline names, possibly empty; null: any pipeline (the API: the one
     *     active run per state ID keeps them from running together, and each names the others in
     *     its {@code warnings})
     */
    public Upsert put(String name, PipelineRequest req, ExpectedVersion expected,
                      java.util.Set<String> mayShareStateWith) {
        Names.pluginName("name", name);
        if (req.name() != null && !req.name().equals(name)) {
            throw InvalidInputException.field("name", "must equal the name in the path ('" + name
                    + "'); pipelines cannot be renamed");
        }
        Pipeline p = pipelines.findByName(name).orElse(null);
        if (p == null) {
            if (expected.sent()) {
                throw new VersionMismatchException("If-Match was sent but pipeline '"
                        + name + "' does not exist.", null);
            }
            return new Upsert(response(insert(name, req, mayShareStateWith)), true);
        }
        expected.check(p.version);
        PipelineResponse before = PipelineMapper.toResponse(p);
        apply(req, p, mayShareStateWith);
        p.updatedAt = io.tapline.common.time.Timestamps.now(clock);
        pipelines.flush();
        changed.fire(new PipelineChanged(p.id, p.name));
        PipelineResponse after = response(p);
        audit.record("pipeline.update", "pipeline", name, AuditDiff.summary(before, after, UNAUDITED,
                java.util.Set.of("env")));
        return new Upsert(after, false);
    }

    /**
     * Changes some fields of a pipeline (JSON Merge Patch, RFC 7396): the patch is merged into the
     * pipeline as GET shows it and the result goes through the same validation as {@link #put}. A
     * derived state ID stays derived (it follows a patched extractor, loader, environment or suffix).
     *
     * @param patch a JSON object; {@code null} members remove a field (its default applies)
     * @param expected the version the caller expects, checked before and after the merge
     * @throws DomainException as {@link #put}, plus 404 and 400 for a read-only member
     * @throws JsonProcessingException when the merged document has a field of the wrong type (400)
     */
    public PipelineResponse patch(String name, JsonNode patch, ExpectedVersion expected)
            throws JsonProcessingException {
        Pipeline p = find(name);
        expected.check(p.version);
        PipelineResponse current = PipelineMapper.toResponse(p);
        PipelineRequest merged = MergePatch.merge(mapper, current, PipelineMapper.READ_ONLY, patch,
                PipelineRequest.class);
        if (current.stateIdDerived() && !patch.has("stateId")) {
            merged = PipelineMapper.withoutStateId(merged);
        }
        return put(name, merged, expected).pipeline();
    }

    /**
     * Pauses ({@code enabled = false}) or resumes the pipeline's schedule. Resuming clears the
     * reason of an automatic pause and never replays missed ticks (the next fire time counts from
     * now; a catch-up run happens only under {@link CatchUp#ONE}). Idempotent.
     *
     * @return the pipeline
     * @throws DomainException 404
     */
    public PipelineResponse setScheduleEnabled(String name, boolean enabled) {
        Pipeline p = find(name);
        if (p.scheduleEnabled != enabled || (enabled && p.schedulePausedReason != null)) {
            p.scheduleEnabled = enabled;
            p.schedulePausedReason = null;
            p.updatedAt = io.tapline.common.time.Timestamps.now(clock);
            pipelines.flush();
            changed.fire(new PipelineChanged(p.id, p.name));
            audit.record(enabled ? "pipeline.resume" : "pipeline.pause", "pipeline", name, Map.of());
        }
        return response(p);
    }

    /** The pipeline, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public PipelineResponse get(String name) {
        return response(find(name));
    }

    /** One page of pipelines, newest first. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Page<PipelineResponse> list(String cursor, int limit) {
        List<Pipeline> rows = pipelines.page(Cursors.decodeId(cursor), limit + 1);
        boolean more = rows.size() > limit;
        List<Pipeline> page = more ? rows.subList(0, limit) : rows;
        String next = more ? Cursors.encode(Long.toString(page.get(page.size() - 1).id)) : null;
        Map<Long, LastRuns.LastRun> last = lastRuns.of(page.stream().map(p -> p.id).toList());
        return new Page<>(page.stream().map(p -> warned(PipelineMapper.toResponse(p, nextRuns.nextRunAt(p),
                last.get(p.id)), p)).toList(), next);
    }

    /**
     * Deletes a pipeline (its state stays under its state ID).
     *
     * @param expected the version the caller expects
     * @throws DomainException 404, 412 when the pipeline is not at {@code expected}
     */
    public void delete(String name, ExpectedVersion expected) {
        Pipeline p = find(name);
        expected.check(p.version);
        List<?> active = pipelines.getEntityManager().createNativeQuery("select cast(id as text) from pipeline_run"
                + " where pipeline_id = :id and status in ('QUEUED', 'RUNNING') for update").setParameter("id", p.id)
                .getResultList();
        if (!active.isEmpty()) {
            throw new ConflictException(Reason.RUN_ACTIVE, "Pipeline '" + name + "' has an active run ("
                    + active.get(0) + "); cancel it or wait for it to end before deleting the pipeline.")
                    .with("activeRunId", active.get(0));
        }
        pipelines.delete(p);
        pipelines.flush();
        changed.fire(new PipelineChanged(p.id, p.name));
        audit.record("pipeline.delete", "pipeline", name, Map.of());
    }

    /** The entity, or 404. */
    @Transactional(Transactional.TxType.SUPPORTS)
    public Pipeline find(String name) {
        return pipelines.findByName(name).orElseThrow(() -> new NotFoundException("Pipeline", name));
    }

    private Pipeline insert(String name, PipelineRequest req, java.util.Set<String> mayShareStateWith) {
        Pipeline p = new Pipeline();
        p.name = name;
        apply(req, p, mayShareStateWith);
        p.createdAt = io.tapline.common.time.Timestamps.now(clock);
        p.updatedAt = p.createdAt;
        pipelines.persist(p);
        pipelines.flush();
        changed.fire(new PipelineChanged(p.id, p.name));
        audit.record("pipeline.create", "pipeline", name, AuditDiff.summary(null, PipelineMapper.toResponse(p),
                UNAUDITED, java.util.Set.of("env")));
        return p;
    }

    /** The API view with the next fire time ({@link NextRuns}) and the last run ({@link LastRuns}). */
    private PipelineResponse response(Pipeline p) {
        return warned(PipelineMapper.toResponse(p, nextRuns.nextRunAt(p), lastRuns.of(List.of(p.id)).get(p.id)), p);
    }

    /** The response with a warning naming the other pipelines of its state ID, when there are any. */
    private PipelineResponse warned(PipelineResponse r, Pipeline p) {
        List<String> others = pipelines.findByStateId(p.stateId).stream().filter(o -> !o.id.equals(p.id))
                .map(o -> o.name).sorted().toList();
        if (others.isEmpty()) {
            return r;
        }
        return r.withWarnings(List.of("state ID '" + p.stateId + "' is shared with pipeline(s) "
                + String.join(", ", others) + ": they read and write the same bookmarks, and while one of them"
                + " has a queued or running run the others do not start (409 run-active, or a skipped tick)"));
    }

    private void apply(PipelineRequest req, Pipeline p, java.util.Set<String> mayShareStateWith) {
        List<Problem.FieldError> errors = new ArrayList<>();
        String environment = req.environment() == null ? DEFAULT_ENVIRONMENT : req.environment();
        collect(errors, () -> Names.environment("environment", environment));
        String suffix = req.stateIdSuffix() == null || req.stateIdSuffix().isEmpty() ? null : req.stateIdSuffix();
        if (suffix != null) {
            collect(errors, () -> {
                if (suffix.length() > 200 || suffix.contains(":") || suffix.contains("/")
                        || suffix.chars().anyMatch(Character::isISOControl)) {
                    throw InvalidInputException.field("stateIdSuffix", "must be at most 200 characters without ':', '/'"
                            + " or control characters");
                }
                return suffix;
            });
        }
        if (req.extractor() == null) {
            errors.add(new Problem.FieldError("extractor", "is required: the name of an extractor plugin"));
        }
        if (req.loader() == null) {
            errors.add(new Problem.FieldError("loader", "is required: the name of a loader plugin"));
        }
        PipelineRequest.Schedule schedule = req.schedule() == null
                ? new PipelineRequest.Schedule(null, null, null) : req.schedule();
        Integer pauseAfter = schedule.pauseAfterFailures();
        if (pauseAfter != null && (pauseAfter < 1 || pauseAfter > 1000)) {
            errors.add(new Problem.FieldError("schedule.pauseAfterFailures", "must be between 1 and 1000, or null"
                    + " for never"));
        }
        String interval = schedule.interval() == null ? "@manual" : schedule.interval().trim();
        collect(errors, () -> Interval.parse(interval));
        String zone = schedule.timezone() == null ? "UTC" : schedule.timezone().trim();
        collect(errors, () -> Interval.zone(zone));
        if (req.timeoutSeconds() != null && (req.timeoutSeconds() < 1 || req.timeoutSeconds() > 7 * 24 * 3600)) {
            errors.add(new Problem.FieldError("timeoutSeconds", "must be between 1 and 604800 (7 days)"));
        }
        PipelineRequest.Retry retry = req.retry() == null ? new PipelineRequest.Retry(null, null, null) : req.retry();
        int maxAttempts = retry.maxAttempts() == null ? 1 : retry.maxAttempts();
        int backoff = retry.backoffSeconds() == null ? 60 : retry.backoffSeconds();
        int maxBackoff = retry.maxBackoffSeconds() == null ? Math.max(3600, backoff) : retry.maxBackoffSeconds();
        if (maxAttempts < 1 || maxAttempts > 100) {
            errors.add(new Problem.FieldError("retry.maxAttempts", "must be between 1 and 100"));
        }
        if (backoff < 0 || backoff > 86400) {
            errors.add(new Problem.FieldError("retry.backoffSeconds", "must be between 0 and 86400"));
        }
        if (maxBackoff < backoff || maxBackoff > 7 * 86400) {
            errors.add(new Problem.FieldError("retry.maxBackoffSeconds", "must be at least backoffSeconds and at most 604800"));
        }
        Map<String, String> env = req.env() == null ? Map.of() : req.env();
        env.forEach((k, v) -> {
            if (!Names.ENV_VAR.matcher(k).matches()) {
                errors.add(new Problem.FieldError("env." + k, "is not a valid environment variable name"));
            } else if (v == null || v.indexOf('\0') >= 0) {
                errors.add(new Problem.FieldError("env." + k, "must be a string without NUL characters"));
            }
        });
        List<String> transformArgs = req.transform() == null || req.transform().args() == null
                ? List.of() : req.transform().args();
        for (int i = 0; i < transformArgs.size(); i++) {
            if (transformArgs.get(i) == null || transformArgs.get(i).indexOf('\0') >= 0) {
                errors.add(new Problem.FieldError("transform.args[" + i + "]", "must be a string without NUL characters"));
            }
        }
        if (req.transform() != null && req.transform().plugin() == null) {
            errors.add(new Problem.FieldError("transform.plugin", "is required: the name of a utility or transformer plugin"));
        }
        if (req.stateId() != null) {
            collect(errors, () -> Names.stateIdForFiles("stateId", req.stateId()));
        }
        String executor = PipelineMapper.meltanoExecutor(req, errors);
        if ("meltano".equals(executor)) {
            errors.addAll(meltanoPolicy.check(PipelineMapper.blankToNull(req.meltanoProjectDir()), PipelineMapper.blankToNull(req.meltanoStateBackendDir())));
        }
        throwIfAny(errors, InvalidInputException::new);

        // References: 422 when missing or of the wrong type.
        Plugin extractor = resolve(errors, "extractor", req.extractor(), PluginType.EXTRACTORS);
        Plugin loader = resolve(errors, "loader", req.loader(), PluginType.LOADERS);
        List<Plugin> mappers = new ArrayList<>();
        List<String> mapperNames = req.mappers() == null ? List.of() : req.mappers();
        for (int i = 0; i < mapperNames.size(); i++) {
            mappers.add(resolve(errors, "mappers[" + i + "]", mapperNames.get(i), PluginType.MAPPERS));
        }
        Plugin transform = null;
        if (req.transform() != null) {
            transform = plugins.findByTypeAndName(PluginType.UTILITIES, req.transform().plugin())
                    .or(() -> plugins.findByTypeAndName(PluginType.TRANSFORMERS, req.transform().plugin()))
                    .orElse(null);
            if (transform == null) {
                errors.add(new Problem.FieldError("transform.plugin", "no utility or transformer named "
                        + Names.quote(req.transform().plugin()) + " exists"));
            }
        }
        throwIfAny(errors, UnprocessableException::new);

        String derived = StateIds.derive(environment, extractor.name, loader.name, suffix);
        String stateId = req.stateId() == null ? Names.stateIdForFiles("stateId", derived) : req.stateId();
        if (!stateId.equals(p.stateId)) {
            pipelines.findByStateId(stateId).stream().filter(other -> !other.id.equals(p.id)
                    && mayShareStateWith != null && !mayShareStateWith.contains(other.name)).findFirst().ifPresent(other -> {
                        throw new ConflictException(Reason.STATE_ID_TAKEN, "State ID '" + stateId + "' is already"
                                + " used by pipeline '" + other.name + "'; set stateIdSuffix or stateId to keep their"
                                + " bookmarks apart.").with("pipeline", other.name);
                    });
        }

        p.extractor = extractor;
        p.loader = loader;
        p.mappers.clear();
        p.mappers.addAll(mappers);
        p.transform = transform;
        p.transformArgs = Jsons.write(transformArgs);
        p.environment = environment;
        p.stateIdSuffix = suffix;
        p.stateId = stateId;
        p.stateIdOverridden = req.stateId() != null;
        p.scheduleInterval = interval;
        p.scheduleTimezone = zone;
        p.scheduleEnabled = schedule.enabled() == null || schedule.enabled();
        p.scheduleCatchUp = schedule.catchUp() == null ? CatchUp.NONE : schedule.catchUp();
        p.schedulePauseAfterFailures = pauseAfter;
        if (p.scheduleEnabled) {
            p.schedulePausedReason = null;
        }
        p.stateStrategy = req.stateStrategy() == null ? StateStrategy.AUTO : req.stateStrategy();
        p.stateCommitPolicy = req.stateCommitPolicy() == null ? StateCommitPolicy.CHECKPOINT : req.stateCommitPolicy();
        p.timeoutSeconds = req.timeoutSeconds();
        p.retryMaxAttempts = maxAttempts;
        p.retryBackoffSeconds = backoff;
        p.retryBackoffMaxSeconds = maxBackoff;
        p.env = Jsons.write(env);
        p.executor = executor;
        p.meltanoProjectDir = PipelineMapper.blankToNull(req.meltanoProjectDir());
        p.meltanoJob = PipelineMapper.blankToNull(req.meltanoJob());
        p.meltanoStateBackendDir = PipelineMapper.blankToNull(req.meltanoStateBackendDir());
    }

    private Plugin resolve(List<Problem.FieldError> errors, String field, String name, PluginType type) {
        Plugin p = name == null ? null : plugins.findByTypeAndName(type, name).orElse(null);
        if (p == null) {
            String other = "";
            for (PluginType t : PluginType.values()) {
                if (t != type && name != null && plugins.findByTypeAndName(t, name).isPresent()) {
                    other = " (a plugin of type " + t.id() + " has this name)";
                }
            }
            errors.add(new Problem.FieldError(field, "no " + type.id().substring(0, type.id().length() - 1)
                    + " named " + Names.quote(name) + " exists" + other));
        }
        return p;
    }

    private static void collect(List<Problem.FieldError> errors, java.util.function.Supplier<?> check) {
        try {
            check.get();
        } catch (InvalidInputException e) {
            errors.addAll(e.errors());
        }
    }

    /** Throws {@code kind} (invalid input or unprocessable references) naming every field collected, if any. */
    private static void throwIfAny(List<Problem.FieldError> errors,
                                   BiFunction<String, List<Problem.FieldError>, DomainException> kind) {
        if (!errors.isEmpty()) {
            throw kind.apply(errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message()
                    : errors.size() + " fields are invalid: " + String.join(", ",
                    errors.stream().map(Problem.FieldError::field).toList()) + ".", List.copyOf(errors));
        }
    }
}
