package io.tapline.project.assess;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * How mature the imported project is, and what to fix ({@link ProjectAssessor}); its API form is
 * {@link io.tapline.project.api.Assessment}.
 *
 * @param level {@code basic}, {@code developing} or {@code mature}
 * @param environments environment names of the last import (empty before any import)
 * @param environment the environment the last import was made for, or null
 * @param importedAt time of the last import, or null
 * @param findings problems found in the plugins and pipelines held now, sorted by code, subject, message
 * @param nextStep what reaches the next level, or null at {@code mature}
 */
public record ProjectAssessment(String level, List<String> environments, String environment,
                                OffsetDateTime importedAt, List<Finding> findings, String nextStep) {

    /**
     * One finding.
     *
     * @param code stable identifier ({@code incremental-without-state}, ...)
     * @param severity {@code warning} or {@code info}
     * @param subject the plugin ({@code extractors/tap-x}) or pipeline ({@code pipelines/daily}) concerned
     * @param message what is wrong and what to do
     */
    public record Finding(String code, String severity, String subject, String message) {
    }
}
