package io.tapline.events.api;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * One delivery of an event to a webhook or to the OpenLineage backend, with its attempt log.
 *
 * @param id delivery id, sent as the {@code Tapline-Delivery} header (the same on every attempt: dedupe on it)
 * @param eventId the event delivered
 * @param webhookId the subscription, null for OpenLineage
 * @param sink {@code WEBHOOK} or {@code OPENLINEAGE}
 * @param status {@code PENDING} (not yet acknowledged), {@code DELIVERED} (a 2xx answer) or {@code FAILED} (given up)
 * @param attempts attempts made so far
 * @param lastStatusCode HTTP status of the last attempt, null when there was no answer
 * @param lastError why the last attempt failed, null when delivered
 * @param nextAttemptAt the next try, for PENDING deliveries
 * @param createdAt when the event was recorded
 * @param deliveredAt when a 2xx answer came
 * @param giveUpAt when retries stop
 * @param attemptLog every attempt: number, time, status code, error, duration in ms
 */
@io.quarkus.runtime.annotations.RegisterForReflection
public record DeliveryResponse(UUID id, UUID eventId, UUID webhookId, String sink, String status, int attempts,
                               Integer lastStatusCode, String lastError, OffsetDateTime nextAttemptAt,
                               OffsetDateTime createdAt, OffsetDateTime deliveredAt, OffsetDateTime giveUpAt,
                               List<Attempt> attemptLog) {

    /**
     * One attempt.
     *
     * @param attempt 1 = first
     * @param at when it was made (UTC)
     * @param statusCode the HTTP status, null when no answer (connection refused, timeout, host refused)
     * @param error why it failed, null when delivered
     * @param durationMs request time in milliseconds
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    public record Attempt(int attempt, OffsetDateTime at, Integer statusCode, String error, long durationMs) {
    }
}
