-- The meltano.yml imports (newest = the project the service holds). Only what the assessment and
-- the export need: environment names, the chosen environment, and the parts of the document that
-- are neither plugins nor schedules nor jobs, with secret values replaced by references. The YAML
-- text itself is not stored (it may hold secrets).
CREATE TABLE project_import (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    imported_at         timestamptz  NOT NULL DEFAULT now(),
    environment         varchar(100) NOT NULL,
    default_environment varchar(100),
    environments        text         NOT NULL DEFAULT '[]',
    document            text         NOT NULL DEFAULT '{}',
    summary             text         NOT NULL DEFAULT '{}'
);
