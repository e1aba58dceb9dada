-- Runs of pipelines. At most one QUEUED or RUNNING run per state ID across all replicas, and at
-- most one run per schedule tick, both enforced here rather than by read-then-insert.
CREATE TABLE pipeline_run (
    id                   uuid         PRIMARY KEY,
    pipeline_id          bigint       REFERENCES pipeline (id) ON DELETE SET NULL,
    pipeline_name        varchar(100) NOT NULL,
    state_id             varchar(900) NOT NULL,
    trigger              varchar(16)  NOT NULL
        CONSTRAINT ck_run_trigger CHECK (trigger IN ('SCHEDULE', 'MANUAL', 'API', 'RETRY')),
    scheduled_for        timestamptz,
    status               varchar(16)  NOT NULL
        CONSTRAINT ck_run_status CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED')),
    attempt              integer      NOT NULL DEFAULT 1,
    retry_of             uuid,
    not_before           timestamptz,
    full_refresh         boolean      NOT NULL DEFAULT false,
    full_refresh_streams text         NOT NULL DEFAULT '[]',
    state_strategy       varchar(16)  NOT NULL DEFAULT 'auto',
    state_commit_policy  varchar(16)  NOT NULL DEFAULT 'CHECKPOINT',
    queued_at            timestamptz  NOT NULL DEFAULT now(),
    started_at           timestamptz,
    ended_at             timestamptz,
    last_heartbeat_at    timestamptz,
    owner_instance       varchar(200),
    cancel_requested_at  timestamptz,
    cancel_reason        varchar(200),
    failed_component     varchar(16)
        CONSTRAINT ck_run_failed_component CHECK (failed_component IN ('extractor', 'mapper', 'loader', 'transform', 'service')),
    exit_codes           text         NOT NULL DEFAULT '{}',
    error_summary        text,
    warnings             text         NOT NULL DEFAULT '[]',
    stream_counts        text         NOT NULL DEFAULT '{}',
    records_total        bigint       NOT NULL DEFAULT 0,
    bytes_total          bigint       NOT NULL DEFAULT 0,
    state_lines          integer      NOT NULL DEFAULT 0,
    invalid_state_lines  integer      NOT NULL DEFAULT 0,
    state_before         text,
    state_after          text,
    state_pending        text,
    stages               text         NOT NULL DEFAULT '[]',
    log_tail             text         NOT NULL DEFAULT '',
    log_bytes            bigint       NOT NULL DEFAULT 0,
    created_by           varchar(200),
    version              bigint       NOT NULL DEFAULT 0
);

CREATE UNIQUE INDEX uq_run_active_state_id ON pipeline_run (state_id) WHERE status IN ('QUEUED', 'RUNNING');
CREATE UNIQUE INDEX uq_run_schedule_tick ON pipeline_run (pipeline_id, scheduled_for) WHERE scheduled_for IS NOT NULL;
CREATE INDEX ix_run_pipeline_id ON pipeline_run (pipeline_id, id DESC);
CREATE INDEX ix_run_id_desc ON pipeline_run (id DESC);
CREATE INDEX ix_run_queued ON pipeline_run (queued_at) WHERE status = 'QUEUED';
CREATE INDEX ix_run_running_heartbeat ON pipeline_run (last_heartbeat_at) WHERE status = 'RUNNING';
CREATE INDEX ix_run_status_id ON pipeline_run (status, id DESC);
