-- The catalog cache (issue 16): the catalog an extractor's --discover printed, one row per extractor,
-- with the key of what can change it (sha-256 over executable, args, resolved config and env with
-- secret values replaced by their digest, pip_url, install marker, capabilities). Never holds a
-- secret in clear. A run whose key matches reuses the catalog without running --discover.
CREATE TABLE IF NOT EXISTS extractor_catalog (
    plugin_id      bigint       PRIMARY KEY REFERENCES plugin (id) ON DELETE CASCADE,
    plugin_name    varchar(100) NOT NULL,
    cache_key      varchar(64)  NOT NULL,
    catalog        text         NOT NULL,
    stream_count   integer      NOT NULL,
    discovered_at  timestamptz  NOT NULL,
    discovered_by  varchar(200) NOT NULL,
    discovery_ms   bigint       NOT NULL
);

-- Which catalog a run used: user (the plugin's stored catalog), cache, or discovered; null when the
-- extractor takes none. refresh_catalog: the run request asked to discover again.
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS catalog_source varchar(16);
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS refresh_catalog boolean NOT NULL DEFAULT false;
