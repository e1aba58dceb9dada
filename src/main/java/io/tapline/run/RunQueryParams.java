package io.tapline.run;

import io.tapline.common.api.Params;

import io.tapline.common.error.InvalidInputException;
import java.util.Locale;

/**
 * The query parameters of the run lists ({@code GET /api/v1/runs} and
 * {@code GET /api/v1/pipelines/{name}/runs}) read into a {@link RunListQuery.RunFilter}, shared
 * by {@link RunResource} and {@link PipelineRunsResource}.
 */
final class RunQueryParams {

    private RunQueryParams() {
    }

    /**
     * The run filter of the query parameters as sent (blank or null: no filter).
     *
     * @throws InvalidInputException 400 for an unknown status or trigger, or a time that does not parse
     */
    static RunListQuery.RunFilter filter(String pipeline, String status, String trigger, String from, String to) {
        return new RunListQuery.RunFilter(pipeline,
                parse(RunStatus.class, "status", status), parse(RunTrigger.class, "trigger", trigger),
                Params.time("from", from), Params.time("to", to));
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            StringBuilder names = new StringBuilder();
            for (E c : type.getEnumConstants()) {
                names.append(names.isEmpty() ? "" : ", ").append(c.name());
            }
            throw InvalidInputException.field(field, "must be one of " + names);
        }
    }
}
