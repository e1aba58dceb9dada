package io.tapline.events.api;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * A webhook subscription as the API shows it; the secret is never returned.
 *
 * @param id subscription id
 * @param url delivery URL
 * @param events subscribed event types
 * @param pipelines pipeline name globs
 * @param format {@code json} or {@code slack}
 * @param description free text
 * @param secretSet always true: a secret is set (and write-only)
 * @param createdAt when it was created (UTC)
 * @param createdBy who created it
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record WebhookResponse(UUID id, String url, List<String> events, List<String> pipelines, String format,
                              String description, boolean secretSet, OffsetDateTime createdAt, String createdBy) {
}
