package io.tapline.project;

import io.tapline.common.error.MalformedInputException;
import io.tapline.project.api.ImportRequest;

/**
 * What an import request asks, from either form of {@code POST /api/v1/projects:import} (and
 * {@code /projects/import}): the YAML text as the body with query parameters, or a JSON
 * {@link ImportRequest} whose fields the query parameters of the same names override.
 *
 * @param yaml the meltano.yml text (null or blank: {@link io.tapline.project.meltano.MeltanoYaml} refuses it)
 * @param environment the environment asked for, or null
 * @param dryRun true: plan only
 */
record ImportInput(String yaml, String environment, boolean dryRun) {

    /** The YAML body with its query parameters ({@code dryRun} absent: false). */
    static ImportInput ofYaml(String yaml, String environment, Boolean dryRun) {
        return new ImportInput(yaml, environment, Boolean.TRUE.equals(dryRun));
    }

    /**
     * The JSON body, its fields overridden by the query parameters given.
     *
     * @throws MalformedInputException 400 {@code malformed-body} when there is no body
     */
    static ImportInput ofJson(ImportRequest body, String environment, Boolean dryRun) {
        if (body == null) {
            throw new MalformedInputException("A body {\"yaml\": \"...\"} is required.");
        }
        return new ImportInput(body.yaml(), environment != null ? environment : body.environment(),
                dryRun != null ? dryRun : Boolean.TRUE.equals(body.dryRun()));
    }
}
