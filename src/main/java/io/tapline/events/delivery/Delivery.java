package io.tapline.events.delivery;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One event to one sink ({@code event_delivery}, V71). Created with its event; claimed, attempted
 * and settled by the guarded updates of {@link DeliveryRepository}, never through setters.
 */
@Entity
@Table(name = "event_delivery")
public class Delivery {

    @Id
    public UUID id;

    @Column(name = "event_id", nullable = false)
    public UUID eventId;

    @Column(name = "webhook_id")
    public UUID webhookId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 16)
    public Sink sink;

    /** PENDING, DELIVERED or FAILED (given up). */
    @Column(nullable = false, length = 12)
    public String status;

    @Column(nullable = false)
    public String body;

    @Column(nullable = false)
    public int attempts;

    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;

    @Column(name = "next_attempt_at", nullable = false)
    public OffsetDateTime nextAttemptAt;

    @Column(name = "give_up_at", nullable = false)
    public OffsetDateTime giveUpAt;

    @Column(name = "last_attempt_at")
    public OffsetDateTime lastAttemptAt;

    @Column(name = "last_status_code")
    public Integer lastStatusCode;

    @Column(name = "last_error", length = 1000)
    public String lastError;

    @Column(name = "delivered_at")
    public OffsetDateTime deliveredAt;
}
