package io.tapline.events.delivery;

import io.tapline.events.api.DeliveryResponse;

import java.util.List;

/** Renders deliveries and their attempts for the API. Stateless. */
public final class DeliveryViews {

    private DeliveryViews() {
    }

    /** The API view of a delivery; {@code attempts} may hold attempts of other deliveries too. */
    public static DeliveryResponse toResponse(Delivery d, List<DeliveryRepository.Attempt> attempts) {
        List<DeliveryResponse.Attempt> log = attempts.stream().filter(a -> a.deliveryId().equals(d.id))
                .map(a -> new DeliveryResponse.Attempt(a.attempt(), a.at(), a.statusCode(), a.error(), a.durationMs()))
                .toList();
        return new DeliveryResponse(d.id, d.eventId, d.webhookId, d.sink.name(), d.status, d.attempts,
                d.lastStatusCode, d.lastError, "PENDING".equals(d.status) ? d.nextAttemptAt : null, d.createdAt,
                d.deliveredAt, d.giveUpAt, log);
    }
}
