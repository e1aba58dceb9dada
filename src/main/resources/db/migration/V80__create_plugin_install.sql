-- Installs of plugins with a pip_url into managed virtual environments, one row per install on one
-- replica (environments are per replica: a cache each replica builds for itself). The log is the
-- newest part of pip's output, with credentials in URLs masked.
CREATE TABLE IF NOT EXISTS plugin_install (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    plugin_id     bigint        NOT NULL REFERENCES plugin (id) ON DELETE CASCADE,
    plugin_type   varchar(16)   NOT NULL,
    plugin_name   varchar(100)  NOT NULL,
    instance_id   varchar(255)  NOT NULL,
    environment   text          NOT NULL,
    trigger       varchar(8)    NOT NULL CHECK (trigger IN ('API', 'RUN')),
    run_id        uuid,
    status        varchar(16)   NOT NULL CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED')),
    pip_url       text          NOT NULL,
    python        varchar(4096) NOT NULL,
    fingerprint   varchar(64)   NOT NULL,
    distribution  varchar(200),
    dist_version  varchar(100),
    failure_type  varchar(32),
    reason        text,
    log           text          NOT NULL DEFAULT '',
    requested_by  varchar(200),
    started_at    timestamptz   NOT NULL,
    ended_at      timestamptz
);
CREATE INDEX IF NOT EXISTS plugin_install_plugin_idx ON plugin_install (plugin_id, id DESC);
CREATE INDEX IF NOT EXISTS plugin_install_running_idx ON plugin_install (environment) WHERE status = 'RUNNING';
