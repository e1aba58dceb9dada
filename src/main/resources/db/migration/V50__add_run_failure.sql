-- The type of a run's failure (docs/failures.md) and whether a retry may help; null for runs
-- that succeeded, are still active, or ended before failures had a type.
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS failure_type varchar(32)
    CONSTRAINT ck_run_failure_type CHECK (failure_type IN ('configuration', 'installation', 'connector_exit', 'connector_protocol',
        'timeout', 'cancelled', 'state_store', 'lost_instance', 'resource', 'internal'));
ALTER TABLE pipeline_run ADD COLUMN IF NOT EXISTS failure_retryable boolean;
