-- Meltano plugin fields kept by the meltano.yml import so that the export gives them back:
-- namespace, variant, pip_url and inherit_from as written, and every other Meltano key of the
-- plugin that Tapline does not model (settings, commands, schema, mappings, ...) as a JSON object.
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS namespace    varchar(200);
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS variant      varchar(200);
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS pip_url      text;
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS inherit_from varchar(100);
ALTER TABLE plugin ADD COLUMN IF NOT EXISTS extras       text NOT NULL DEFAULT '{}';
