-- The state.not_passed event (docs/events.md): a run's tap was not given its state ID's stored bookmarks.
ALTER TABLE event DROP CONSTRAINT IF EXISTS ck_event_type;
ALTER TABLE event ADD CONSTRAINT ck_event_type CHECK (type IN ('run.succeeded', 'run.failed', 'run.cancelled',
    'pipeline.paused', 'state.not_advancing', 'state.large', 'state.not_passed'));
