-- Per-pipeline schedule policies: one catch-up run for missed ticks, and pausing a schedule after
-- N consecutive failed runs (with the reason it was paused). Numbered 10 to stay clear of
-- migrations added on other branches meanwhile.
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS schedule_catch_up varchar(8) NOT NULL DEFAULT 'NONE'
    CONSTRAINT ck_pipeline_catch_up CHECK (schedule_catch_up IN ('NONE', 'ONE'));
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS schedule_pause_after_failures integer
    CONSTRAINT ck_pipeline_pause_after_failures CHECK (schedule_pause_after_failures >= 1);
ALTER TABLE pipeline ADD COLUMN IF NOT EXISTS schedule_paused_reason text;
