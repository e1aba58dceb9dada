package io.tapline.audit;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.OffsetDateTime;

/** One audit event: an actor changed a target. Append-only. */
@Entity
@Table(name = "audit_event")
public class AuditEvent {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    /** When (UTC, microseconds). */
    @Column(nullable = false)
    public OffsetDateTime at;

    /** Token principal, "anonymous" with authentication off, or "system". */
    @Column(nullable = false, length = 200)
    public String actor;

    /** {@code <target type>.<verb>}, e.g. {@code plugin.update}, {@code state.set}, {@code run.trigger}. */
    @Column(nullable = false, length = 64)
    public String action;

    /** plugin, pipeline, state or run. */
    @Column(name = "target_type", nullable = false, length = 32)
    public String targetType;

    /** {@code extractors/tap-csv}, a pipeline name, a state ID or a run id. */
    @Column(nullable = false, length = 1000)
    public String target;

    /** JSON object summarising the change (names, never secret values). */
    @Column(nullable = false)
    public String details = "{}";

    /** The HTTP request's {@code X-Request-Id}, or null. */
    @Column(name = "request_id", length = 100)
    public String requestId;
}
