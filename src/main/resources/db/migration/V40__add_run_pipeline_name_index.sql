-- The run list filters by pipeline name (runs keep the name after their pipeline is deleted) and
-- pages newest first by id; run retention walks each pipeline's runs the same way. Without this
-- index a page of a pipeline's runs scans the id index and filters every other pipeline's rows.
-- Numbered 40 to stay clear of migrations added on other branches meanwhile.
CREATE INDEX IF NOT EXISTS ix_run_pipeline_name_id ON pipeline_run (pipeline_name, id DESC);
