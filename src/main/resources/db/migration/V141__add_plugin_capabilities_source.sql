-- Where a plugin's capabilities came from (issue 26): 'project' (listed in an imported meltano.yml),
-- 'api' (sent in a plugin request), 'about' (the plugin's own `--about --format=json`), 'default'
-- (Meltano's conventional set for the plugin's type, when the plugin could not answer); NULL while
-- none were given and the plugin was not asked yet (it is asked before its first use). `about` keeps
-- the plugin's answer as it printed it (as Meltano's lock file keeps the Hub definition),
-- `about_error` why it could not answer, `about_at` when it was asked. Plugins stored before this
-- column keep the list they had, as given through the API.
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS capabilities_source varchar(16);
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS about text;
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS about_error text;
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS about_at timestamptz;
UPDATE plugin SET capabilities_source = 'api' WHERE capabilities_source IS NULL;
ALTER TABLE plugin ADD CONSTRAINT plugin_capabilities_source_check
    CHECK (capabilities_source IN ('project', 'api', 'about', 'default'));
