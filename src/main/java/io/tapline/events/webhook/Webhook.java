package io.tapline.events.webhook;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A webhook subscription ({@code webhook}, V71). {@code secret} is sealed with
 * {@link io.tapline.common.security.SecretCipher} when an encryption key is configured and is never
 * returned by the API.
 */
@Entity
@Table(name = "webhook")
public class Webhook {

    @Id
    public UUID id;

    @Column(nullable = false, length = 2000)
    public String url;

    /** JSON array of event type ids. */
    @Column(name = "event_types", nullable = false)
    public String eventTypes;

    /** JSON array of pipeline name globs ({@code *}, {@code ?}). */
    @Column(nullable = false)
    public String pipelines;

    /** {@code json} or {@code slack}. */
    @Column(nullable = false, length = 8)
    public String format;

    /** The signing secret, sealed at rest. */
    @Column(nullable = false)
    public String secret;

    @Column(length = 200)
    public String description;

    @Column(name = "created_at", nullable = false)
    public OffsetDateTime createdAt;

    @Column(name = "created_by", length = 200)
    public String createdBy;
}
