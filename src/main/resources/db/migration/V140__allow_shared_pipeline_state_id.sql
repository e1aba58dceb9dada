-- Several pipelines may share one state ID, as Meltano jobs do (`tap map target` and
-- `tap target dbt:run` both run under `dev:tap-to-target`). What keeps them from running together
-- is the run table's rule, one QUEUED or RUNNING run per state ID (uq_run_active_state_id, V3), not
-- the pipeline table. Lookups by state ID keep an index.
ALTER TABLE pipeline DROP CONSTRAINT uq_pipeline_state_id;
CREATE INDEX ix_pipeline_state_id ON pipeline (state_id);
