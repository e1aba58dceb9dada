-- How a pipeline runs: Tapline's own Singer runner (default) or `meltano run` in a Meltano project
-- directory. meltano_job names the job a pipeline came from (meltano.yml import) and, for the
-- meltano executor, the job to run instead of the extractor/mappers/loader blocks.
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS executor varchar(16) NOT NULL DEFAULT 'singer';
ALTER TABLE pipeline ADD CONSTRAINT ck_pipeline_executor CHECK (executor IN ('singer', 'meltano'));
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS meltano_project_dir       varchar(4096);
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS meltano_job               varchar(100);
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS meltano_state_backend_dir varchar(4096);
