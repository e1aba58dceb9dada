package io.tapline.events.openlineage;

import com.fasterxml.jackson.databind.JsonNode;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import io.tapline.common.json.Jsons;
import io.tapline.events.RunFacts;

import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * OpenLineage run events of a Tapline run, built and serialised with the official client
 * ({@code io.openlineage:openlineage-java}): the pipeline is the job (in the configured job
 * namespace), the run id is the Tapline run id (a UUIDv7), the streams the tap emitted are the
 * input datasets (namespace: the extractor's Meltano namespace, else its name with {@code -} as
 * {@code _}, as Meltano derives it) and the same streams are the output datasets (namespace from
 * the loader). A run yields two events when it ends: START (at its start, or its queue time when
 * it never started) and COMPLETE, FAIL (with an errorMessage facet) or ABORT. Stateless.
 */
public final class LineageEvents {

    /** The {@code producer} of every event and facet. */
    public static final URI PRODUCER = URI.create("urn:tapline:service");

    private static final OpenLineage OL = new OpenLineage(PRODUCER);

    private LineageEvents() {
    }

    /**
     * The events of a run that just ended, in order (START, then the terminal one), as JSON texts.
     *
     * @param run the run (terminal status)
     * @param jobNamespace {@code tapline.openlineage.namespace}
     */
    public static List<String> of(RunFacts run, String jobNamespace) {
        OpenLineage.RunEvent.EventType end = switch (run.status()) {
            case "SUCCEEDED" -> OpenLineage.RunEvent.EventType.COMPLETE;
            case "FAILED" -> OpenLineage.RunEvent.EventType.FAIL;
            default -> OpenLineage.RunEvent.EventType.ABORT;
        };
        OffsetDateTime started = run.startedAt() != null ? run.startedAt() : run.queuedAt();
        OffsetDateTime ended = run.endedAt() != null ? run.endedAt() : started;
        List<String> streams = streams(run.streamCounts());
        String in = namespace(run.extractorNamespace(), run.extractor());
        String out = namespace(run.loaderNamespace(), run.loader());
        return List.of(event(run, jobNamespace, OpenLineage.RunEvent.EventType.START, started, streams, in, out),
                event(run, jobNamespace, end, ended, streams, in, out));
    }

    private static String event(RunFacts run, String jobNamespace, OpenLineage.RunEvent.EventType type,
                                OffsetDateTime at, List<String> streams, String in, String out) {
        OpenLineage.RunFacetsBuilder facets = OL.newRunFacetsBuilder();
        if (type == OpenLineage.RunEvent.EventType.FAIL && run.errorSummary() != null) {
            facets.errorMessage(OL.newErrorMessageRunFacetBuilder().message(run.errorSummary())
                    .programmingLanguage("singer").build());
        }
        OpenLineage.JobFacets jobFacets = OL.newJobFacetsBuilder().jobType(OL.newJobTypeJobFacetBuilder()
                .processingType("BATCH").integration("TAPLINE").jobType("PIPELINE").build()).build();
        List<OpenLineage.InputDataset> inputs = new ArrayList<>();
        List<OpenLineage.OutputDataset> outputs = new ArrayList<>();
        for (String s : streams) {
            inputs.add(OL.newInputDatasetBuilder().namespace(in).name(s).build());
            outputs.add(OL.newOutputDatasetBuilder().namespace(out).name(s).build());
        }
        OpenLineage.RunEvent e = OL.newRunEventBuilder()
                .eventType(type)
                .eventTime(ZonedDateTime.ofInstant(at.toInstant(), ZoneOffset.UTC))
                .run(OL.newRunBuilder().runId(run.id()).facets(facets.build()).build())
                .job(OL.newJobBuilder().namespace(jobNamespace).name(run.pipelineName()).facets(jobFacets).build())
                .inputs(inputs).outputs(outputs)
                .build();
        return OpenLineageClientUtils.toJson(e);
    }

    /** A plugin's dataset namespace: its Meltano namespace, else its name with dashes as underscores. */
    static String namespace(String meltanoNamespace, String pluginName) {
        if (meltanoNamespace != null && !meltanoNamespace.isBlank()) {
            return meltanoNamespace;
        }
        return pluginName == null ? "unknown" : pluginName.replace('-', '_').toLowerCase(Locale.ROOT);
    }

    private static List<String> streams(String streamCounts) {
        List<String> names = new ArrayList<>();
        try {
            JsonNode s = Jsons.readObject(streamCounts).path("streams");
            for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
                names.add(it.next());
            }
        } catch (RuntimeException e) {
            // counts that do not parse name no datasets; the run event still goes out
        }
        return names;
    }
}
