-- Audit trail: who changed what (plugins, pipelines, state, runs), newest first. Details are a
-- JSON object summarising the change: field and setting names only, never values of settings.
CREATE TABLE IF NOT EXISTS audit_event (
    id          bigint        GENERATED ALWAYS AS IDENTITY CONSTRAINT pk_audit_event PRIMARY KEY,
    at          timestamptz   NOT NULL,
    actor       varchar(200)  NOT NULL,
    action      varchar(64)   NOT NULL,
    target_type varchar(32)   NOT NULL,
    target      varchar(1000) NOT NULL,
    details     text          NOT NULL DEFAULT '{}',
    request_id  varchar(100)
);

-- The listing is newest first with keyset pagination on (at, id).
CREATE INDEX IF NOT EXISTS ix_audit_event_at ON audit_event (at DESC, id DESC);
-- "Everything that happened to this pipeline / state ID".
CREATE INDEX IF NOT EXISTS ix_audit_event_target ON audit_event (target_type, target, at DESC);
