package io.tapline.events.api;

import java.util.List;

/**
 * Body of {@code POST /api/v1/webhooks}.
 *
 * @param url where deliveries are POSTed: {@code http} or {@code https}, a host allowed by
 *            {@code tapline.webhooks.allowed-hosts} (by default public addresses only), no user info; at most 2000 characters
 * @param events event types wanted, at least one: {@code run.succeeded}, {@code run.failed},
 *               {@code run.cancelled}, {@code pipeline.paused}, {@code state.not_advancing}, {@code state.large}, {@code state.not_passed}
 * @param pipelines pipeline name globs ({@code *}, {@code ?}); default {@code ["*"]}
 * @param secret signing secret, 16 to 512 characters; write-only (never returned), encrypted at rest
 * @param format {@code json} (default: the event as documented in docs/events.md) or {@code slack}
 *               ({@code {"text": ...}} for Slack incoming webhooks)
 * @param description free text, at most 200 characters
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record WebhookRequest(String url, List<String> events, List<String> pipelines, String secret, String format,
                             String description) {
}
