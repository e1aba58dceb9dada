-- A change read back from the shared Meltano state directory (tapline.state.mirror-dir) is a
-- history version of its own, with source MELTANO (docs/state.md "Sharing the directory").
ALTER TABLE singer_state_version DROP CONSTRAINT IF EXISTS ck_state_version_source;
ALTER TABLE singer_state_version ADD CONSTRAINT ck_state_version_source
    CHECK (source IN ('RUN', 'STATE_EDIT', 'IMPORT', 'ROLLBACK', 'MELTANO'));
