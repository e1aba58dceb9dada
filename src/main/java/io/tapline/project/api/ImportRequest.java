package io.tapline.project.api;

/**
 * JSON body of {@code POST /api/v1/projects:import} (the alternative to sending the YAML text
 * itself). Query parameters of the same names win over these fields.
 *
 * @param yaml the meltano.yml text (required)
 * @param environment the environment whose pipelines are made; default {@code default_environment}, else
 *     {@code dev}; {@code *}: every environment's (each plugin's overlays of every environment are
 *     stored either way)
 * @param dryRun true: return the plan and write nothing
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record ImportRequest(
        @org.eclipse.microprofile.openapi.annotations.media.Schema(required = true, description = "The meltano.yml text")
        String yaml, String environment, Boolean dryRun) {

    /** The meltano.yml shown as the example body of both import endpoints in the OpenAPI document. */
    public static final String EXAMPLE_YAML = """
            version: 1
            default_environment: dev
            plugins:
              extractors:
              - name: tap-csv
                executable: tap-csv
              loaders:
              - name: target-jsonl
                executable: target-jsonl
            schedules:
            - name: daily-csv
              extractor: tap-csv
              loader: target-jsonl
              interval: '@daily'
            """;
}
