package io.tapline.events.delivery;

/** Where a delivery goes: a webhook subscription, or the OpenLineage backend ({@code tapline.openlineage.url}). */
public enum Sink {
    /** A {@code /api/v1/webhooks} subscription; signed. */
    WEBHOOK,
    /** The configured OpenLineage backend; one OpenLineage run event per delivery. */
    OPENLINEAGE
}
