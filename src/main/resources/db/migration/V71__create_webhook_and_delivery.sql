-- Webhook subscriptions and the deliveries of events to them (and to the OpenLineage backend).
-- A delivery is claimed by one replica at a time (FOR UPDATE SKIP LOCKED on the due index) and
-- leased by moving next_attempt_at ahead, so a replica that dies mid-delivery is retried later.
CREATE TABLE IF NOT EXISTS webhook (
    id           uuid          PRIMARY KEY,
    url          varchar(2000) NOT NULL,
    event_types  text          NOT NULL,
    pipelines    text          NOT NULL,
    format       varchar(8)    NOT NULL
        CONSTRAINT ck_webhook_format CHECK (format IN ('json', 'slack')),
    secret       text          NOT NULL,
    description  varchar(200),
    created_at   timestamptz   NOT NULL,
    created_by   varchar(200)
);

CREATE TABLE IF NOT EXISTS event_delivery (
    id               uuid          PRIMARY KEY,
    event_id         uuid          NOT NULL REFERENCES event (id) ON DELETE CASCADE,
    webhook_id       uuid          REFERENCES webhook (id) ON DELETE CASCADE,
    sink             varchar(16)   NOT NULL
        CONSTRAINT ck_delivery_sink CHECK (sink IN ('WEBHOOK', 'OPENLINEAGE')),
    status           varchar(12)   NOT NULL
        CONSTRAINT ck_delivery_status CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    body             text          NOT NULL,
    attempts         integer       NOT NULL DEFAULT 0,
    created_at       timestamptz   NOT NULL,
    next_attempt_at  timestamptz   NOT NULL,
    give_up_at       timestamptz   NOT NULL,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       varchar(1000),
    delivered_at     timestamptz
);

CREATE INDEX IF NOT EXISTS ix_delivery_due ON event_delivery (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX IF NOT EXISTS ix_delivery_webhook ON event_delivery (webhook_id, id DESC);
CREATE INDEX IF NOT EXISTS ix_delivery_event ON event_delivery (event_id);

CREATE TABLE IF NOT EXISTS event_delivery_attempt (
    delivery_id  uuid          NOT NULL REFERENCES event_delivery (id) ON DELETE CASCADE,
    attempt      integer       NOT NULL,
    attempted_at timestamptz   NOT NULL,
    status_code  integer,
    error        varchar(1000),
    duration_ms  bigint        NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
