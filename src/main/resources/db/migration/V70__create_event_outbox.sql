-- The outbox of run and state events (docs/events.md). Each row is written in the transaction of
-- what it reports (a run's terminal status, an automatic pause); deliveries fan out from it.
CREATE TABLE IF NOT EXISTS event (
    id             uuid         PRIMARY KEY,
    type           varchar(40)  NOT NULL
        CONSTRAINT ck_event_type CHECK (type IN ('run.succeeded', 'run.failed', 'run.cancelled', 'pipeline.paused',
                                                 'state.not_advancing', 'state.large')),
    pipeline_id    bigint,
    pipeline_name  varchar(100) NOT NULL,
    run_id         uuid,
    occurred_at    timestamptz  NOT NULL,
    payload        text         NOT NULL
);

CREATE INDEX IF NOT EXISTS ix_event_pipeline ON event (pipeline_name, id DESC);
CREATE INDEX IF NOT EXISTS ix_event_run ON event (run_id);
