package io.tapline.events;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * One recorded event ({@code event}, V70): written once, in the transaction of what it reports,
 * never updated. {@code payload} is the JSON object a {@code json} webhook receives.
 */
@Entity
@Table(name = "event")
public class Event {

    /** UUIDv7, so the key is also the time order. */
    @Id
    public UUID id;

    /** Wire name of the {@link EventType}. */
    @Column(nullable = false, length = 40)
    public String type;

    @Column(name = "pipeline_id")
    public Long pipelineId;

    @Column(name = "pipeline_name", nullable = false, length = 100)
    public String pipelineName;

    @Column(name = "run_id")
    public UUID runId;

    @Column(name = "occurred_at", nullable = false)
    public OffsetDateTime occurredAt;

    /** The webhook body (JSON object), see docs/events.md. */
    @Column(nullable = false)
    public String payload;
}
