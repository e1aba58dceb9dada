-- Who asked to cancel a run (token subject), beside created_by (who triggered it).
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS cancelled_by varchar(200);
