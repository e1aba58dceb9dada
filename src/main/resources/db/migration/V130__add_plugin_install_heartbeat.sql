-- The heartbeat of an install: refreshed by the JVM that runs it (waiting for the environment's file
-- lock included) every tapline.runner.heartbeat-interval. A RUNNING install is marked interrupted only
-- when its heartbeat (or, for rows written before this column, its start) is older than
-- tapline.runner.heartbeat-timeout: its owner is gone.
ALTER TABLE plugin_install ADD COLUMN IF NOT EXISTS heartbeat_at timestamptz;
