-- A run whose state ID had stored bookmarks but whose extractor was not given them (`--state`),
-- because the extractor does not declare the `state` capability: every such run reads everything
-- again. Set by the singer executor when it builds the tap's command; read by the events
-- (state.not_passed) and shown among the run's warnings.
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS state_not_passed boolean NOT NULL DEFAULT false;
