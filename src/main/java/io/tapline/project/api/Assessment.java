package io.tapline.project.api;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * {@code GET /api/v1/projects/assessment}: how mature the imported project is, and what to fix.
 *
 * @param level {@code basic}; {@code developing} with 2 or more environments; {@code mature} with a
 *     production environment ({@code prod} or {@code production}) and 3 or more environments
 * @param environments environment names of the last import (empty before any import)
 * @param environment the environment the last import was made for, or null
 * @param importedAt time of the last import (UTC), or null
 * @param findings problems found in the plugins and pipelines the service holds now
 * @param nextStep what reaches the next level, or null at {@code mature}
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record Assessment(String level, List<String> environments, String environment, OffsetDateTime importedAt,
                         List<Finding> findings, String nextStep) {

    /**
     * One finding.
     *
     * @param code stable identifier: {@code incremental-without-state}, {@code schedule-without-timezone},
     *     {@code select-without-catalog}, {@code sensitive-not-marked}, {@code secret-value-in-config}
     * @param severity {@code warning} or {@code info}
     * @param subject the plugin ({@code extractors/tap-x}) or pipeline ({@code pipelines/daily}) concerned
     * @param message what is wrong and what to do
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Finding(String code, String severity, String subject, String message) {
    }
}
