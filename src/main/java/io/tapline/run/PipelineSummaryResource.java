package io.tapline.run;

import io.tapline.common.api.Cursors;
import io.tapline.common.api.Page;
import io.tapline.common.config.TaplineConfig;
import io.tapline.common.error.ProblemException;
import io.tapline.common.security.Roles;
import io.tapline.pipeline.PipelineService;
import io.tapline.pipeline.api.PipelineResponse;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/pipelines:summary}: one page of pipelines, each with its schedule, next fire
 * time, last run and its most recent runs, so that a list view (the console's pipelines page)
 * makes one request per page instead of one per pipeline. Three queries per page whatever its
 * size: the pipelines, their last runs, their recent runs. Owned by the run feature (it reads runs
 * of many pipelines), under the pipelines' path and tag. Viewer role.
 */
@Path("/api/v1/pipelines:summary")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Pipelines")
@RolesAllowed({Roles.VIEWER, Roles.OPERATOR, Roles.ADMIN})
public class PipelineSummaryResource {

    /** Recent runs per pipeline when {@code recent} is not given. */
    static final int DEFAULT_RECENT = 20;

    private final PipelineService pipelines;
    private final RecentRunsQuery recentRuns;
    private final TaplineConfig config;

    public PipelineSummaryResource(PipelineService pipelines, RecentRunsQuery recentRuns, TaplineConfig config) {
        this.pipelines = pipelines;
        this.recentRuns = recentRuns;
        this.config = config;
    }

    @GET
    @Operation(operationId = "summarizePipelines",
            summary = "List pipelines, newest first, each with its last run and its recent runs (one request per page)")
    @APIResponse(responseCode = "200", description = "One page; `nextCursor` is the cursor of the next page")
    @APIResponse(responseCode = "400", description = "Invalid limit, cursor or recent")
    public Page<PipelineSummary> summary(@QueryParam("limit") String limit, @QueryParam("cursor") String cursor,
                                         @Parameter(description = "Recent runs per pipeline, 0 to 50 (default 20);"
                                                 + " skipped ticks are not counted")
                                         @QueryParam("recent") String recent) {
        int n = recent(recent);
        Page<PipelineResponse> page = pipelines.list(cursor,
                Cursors.limit(limit, config.api().defaultPageSize(), config.api().maxPageSize()));
        Map<String, List<RecentRun>> runs = recentRuns.of(
                page.items().stream().map(PipelineResponse::name).toList(), n);
        return new Page<>(page.items().stream()
                .map(p -> new PipelineSummary(p, runs.getOrDefault(p.name(), List.of()))).toList(), page.nextCursor());
    }

    /**
     * One row of the answer: a pipeline as {@code GET /api/v1/pipelines} lists it (schedule,
     * {@code nextRunAt}, {@code lastRun}) plus its most recent runs.
     *
     * @param pipeline the pipeline, as in the pipeline list
     * @param recentRuns its newest runs that were not skipped ticks, newest first (at most the
     *     {@code recent} query parameter, default 20)
     */
    public record PipelineSummary(PipelineResponse pipeline, List<RecentRun> recentRuns) {
    }

    private static int recent(String text) {
        if (text == null || text.isBlank()) {
            return DEFAULT_RECENT;
        }
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= 0 && n <= RecentRunsQuery.MAX_PER_PIPELINE) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ProblemException.invalid("recent", "must be a whole number from 0 to " + RecentRunsQuery.MAX_PER_PIPELINE);
    }
}
