-- State warnings of a run (state.not_advancing, state.large), computed when the run ends:
-- a JSON array of {"type", "message"} objects. And the per-pipeline number of unchanged runs
-- after which a state counts as not advancing (null: tapline.events.not-advancing-runs).
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS state_warnings text NOT NULL DEFAULT '[]';
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS state_not_advancing_runs integer
    CONSTRAINT ck_pipeline_not_advancing_runs CHECK (state_not_advancing_runs BETWEEN 1 AND 100);
