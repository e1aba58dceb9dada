-- ON_SUCCESS runs hold their pending state in memory; the column was never written.
alter table pipeline_run drop column if exists state_pending;
