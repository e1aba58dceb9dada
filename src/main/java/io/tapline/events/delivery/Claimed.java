package io.tapline.events.delivery;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A delivery this replica claimed for one attempt (its lease moved {@code next_attempt_at} ahead).
 *
 * @param id delivery id (sent as {@code Tapline-Delivery}; the same on every attempt)
 * @param sink webhook or OpenLineage
 * @param body the JSON body, fixed when the event was recorded
 * @param attempt this attempt's number (1 = first)
 * @param createdAt when the delivery was created (with its event)
 * @param giveUpAt after this, a failed attempt gives the delivery up
 * @param eventType wire name of the event type
 * @param url the webhook URL (null for OpenLineage: the setting)
 * @param secret the webhook's sealed secret (null for OpenLineage)
 */
public record Claimed(UUID id, Sink sink, String body, int attempt, OffsetDateTime createdAt, OffsetDateTime giveUpAt,
                      String eventType, String url, String secret) {
}
