-- Plugins (Meltano extractors, loaders, mappers, transformers, utilities) and pipelines.
-- JSON values are kept as text so that key order and number spelling survive exactly as sent.

CREATE TABLE plugin (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type            varchar(16)   NOT NULL
        CONSTRAINT ck_plugin_type CHECK (type IN ('extractors', 'loaders', 'mappers', 'transformers', 'utilities')),
    name            varchar(100)  NOT NULL,
    executable      varchar(4096) NOT NULL,
    args            text          NOT NULL DEFAULT '[]',
    capabilities    text          NOT NULL DEFAULT '[]',
    config          text          NOT NULL DEFAULT '{}',
    sensitive       text          NOT NULL DEFAULT '[]',
    select_patterns text          NOT NULL DEFAULT '[]',
    metadata        text          NOT NULL DEFAULT '{}',
    catalog         text,
    env             text          NOT NULL DEFAULT '{}',
    version         bigint        NOT NULL DEFAULT 0,
    created_at      timestamptz   NOT NULL DEFAULT now(),
    updated_at      timestamptz   NOT NULL DEFAULT now(),
    CONSTRAINT uq_plugin_type_name UNIQUE (type, name)
);

CREATE TABLE pipeline (
    id                        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                      varchar(100) NOT NULL CONSTRAINT uq_pipeline_name UNIQUE,
    extractor_id              bigint       NOT NULL CONSTRAINT fk_pipeline_extractor REFERENCES plugin (id),
    loader_id                 bigint       NOT NULL CONSTRAINT fk_pipeline_loader REFERENCES plugin (id),
    transform_id              bigint                CONSTRAINT fk_pipeline_transform REFERENCES plugin (id),
    transform_args            text         NOT NULL DEFAULT '[]',
    environment               varchar(100) NOT NULL,
    state_id_suffix           varchar(200),
    state_id                  varchar(900) NOT NULL CONSTRAINT uq_pipeline_state_id UNIQUE,
    state_id_overridden       boolean      NOT NULL DEFAULT false,
    schedule_interval         varchar(200) NOT NULL DEFAULT '@manual',
    schedule_timezone         varchar(64)  NOT NULL DEFAULT 'UTC',
    schedule_enabled          boolean      NOT NULL DEFAULT true,
    state_strategy            varchar(16)  NOT NULL DEFAULT 'auto'
        CONSTRAINT ck_pipeline_state_strategy CHECK (state_strategy IN ('auto', 'merge', 'overwrite')),
    state_commit_policy       varchar(16)  NOT NULL DEFAULT 'CHECKPOINT'
        CONSTRAINT ck_pipeline_commit_policy CHECK (state_commit_policy IN ('CHECKPOINT', 'ON_SUCCESS')),
    timeout_seconds           integer CONSTRAINT ck_pipeline_timeout CHECK (timeout_seconds > 0),
    retry_max_attempts        integer      NOT NULL DEFAULT 1 CONSTRAINT ck_pipeline_retry CHECK (retry_max_attempts >= 1),
    retry_backoff_seconds     integer      NOT NULL DEFAULT 60,
    retry_backoff_max_seconds integer      NOT NULL DEFAULT 3600,
    env                       text         NOT NULL DEFAULT '{}',
    version                   bigint       NOT NULL DEFAULT 0,
    created_at                timestamptz  NOT NULL DEFAULT now(),
    updated_at                timestamptz  NOT NULL DEFAULT now()
);

CREATE INDEX ix_pipeline_extractor ON pipeline (extractor_id);
CREATE INDEX ix_pipeline_loader ON pipeline (loader_id);
CREATE INDEX ix_pipeline_transform ON pipeline (transform_id);

CREATE TABLE pipeline_mapper (
    pipeline_id bigint  NOT NULL REFERENCES pipeline (id) ON DELETE CASCADE,
    position    integer NOT NULL,
    plugin_id   bigint  NOT NULL CONSTRAINT fk_pipeline_mapper_plugin REFERENCES plugin (id),
    PRIMARY KEY (pipeline_id, position)
);

CREATE INDEX ix_pipeline_mapper_plugin ON pipeline_mapper (plugin_id);
