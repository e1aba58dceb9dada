-- A plugin's overlay in one Meltano environment (issue 26): what meltano.yml's
-- `environments[].config.plugins.<type>[]` entry of the plugin sets over its base. A run of a
-- pipeline applies the overlay of the pipeline's own `environment` (pipeline.environment) over
-- the plugin's base config and env: config and metadata deep-merged, select replaced when given,
-- env merged. JSON values are text, as in `plugin`; sensitive values (the plugin's `sensitive`
-- names) are sealed as the plugin's are. `select_patterns` NULL means the overlay gives no select.
-- `extras` keeps the entry's other keys for the export.
CREATE TABLE IF NOT EXISTS plugin_environment (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    plugin_id       bigint       NOT NULL
        CONSTRAINT fk_plugin_environment_plugin REFERENCES plugin (id) ON DELETE CASCADE,
    environment     varchar(100) NOT NULL,
    config          text         NOT NULL DEFAULT '{}',
    env             text         NOT NULL DEFAULT '{}',
    metadata        text         NOT NULL DEFAULT '{}',
    select_patterns text,
    extras          text         NOT NULL DEFAULT '{}',
    version         bigint       NOT NULL DEFAULT 0,
    created_at      timestamptz  NOT NULL DEFAULT now(),
    updated_at      timestamptz  NOT NULL DEFAULT now(),
    CONSTRAINT uq_plugin_environment UNIQUE (plugin_id, environment)
);
