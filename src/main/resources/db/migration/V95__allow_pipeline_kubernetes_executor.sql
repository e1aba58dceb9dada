-- The kubernetes executor: each run of the pipeline in its own Kubernetes Job (the Singer engine
-- in runner mode). Runs handed to a Job are owned by 'job:<job-name>' until its pod takes them over.
ALTER TABLE pipeline DROP CONSTRAINT IF EXISTS ck_pipeline_executor;
ALTER TABLE pipeline ADD CONSTRAINT ck_pipeline_executor CHECK (executor IN ('singer', 'meltano', 'kubernetes'));
