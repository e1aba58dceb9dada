-- pgbench: what StateService.guarded does for PUT .../bookmarks/{stream}, as one transaction with
-- the same round trips as the service's JDBC driver (StateRepository.lockAndRead, store;
-- AuditRepository.insert):
--   1. begin, the state ID's advisory lock (the key Meltano's PostgreSQL backend uses: first 8 bytes
--      of md5(state_id)), the active-run check, the state, the last history version (read only when
--      no state is stored): one pipeline;
--   2. the upsert with version + 1, the history row with the whole before and after and the audit
--      event: one pipeline;
--   3. commit.
-- The service computes the new version and the JSON texts in Java between 1 and 2; here the
-- version comes from the row and the texts have the size of the seeded states.
-- (":" is written chr(58): in prepared mode pgbench takes every ":name" for a variable, even in a literal.)
\set n random(1, 100)
\set v random(0, 999999)
\startpipeline
begin;
select pg_advisory_xact_lock(('x' || substr(md5('bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target'), 1, 16))::bit(64)::bigint);
select id, status from tapline.pipeline_run
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target' and status in ('QUEUED', 'RUNNING') limit 1;
select state_id, completed, partial, version, updated_at from tapline.singer_state
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target';
select coalesce(max(version), 0) from tapline.singer_state_version
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target'
   and not exists (select 1 from tapline.singer_state where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target');
\endpipeline
\startpipeline
insert into tapline.singer_state (state_id, completed, partial, list_status, version, updated_at)
values ('bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target',
        '{"singer_state": {"bookmarks": {"orders": {"replication_key": "updated_at", "replication_key_value": "2026-11-29T16:00:00.' || lpad(cast(:v as int)::text, 6, '0') || 'Z"}, "customers": {"replication_key": "updated_at", "replication_key_value": "2026-11-29T16:00:00Z"}, "order_items": {"replication_key": "updated_at", "replication_key_value": "2026-11-29T16:00:00Z"}, "events": {"replication_key": "updated_at", "replication_key_value": "2026-11-29T16:00:00Z"}}}}',
        '{}', 'ok', 1, now())
on conflict (state_id) do update set completed = excluded.completed, partial = excluded.partial,
    list_status = excluded.list_status, version = tapline.singer_state.version + 1, updated_at = excluded.updated_at;
insert into tapline.singer_state_version (state_id, version, source, action, actor, run_id, completed_before,
    partial_before, completed_after, partial_after, created_at)
select s.state_id, s.version, 'STATE_EDIT', 'bookmark', 'anonymous', null, s.completed, '{}', s.completed, '{}', now()
  from tapline.singer_state s where s.state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target';
insert into tapline.audit_event (at, actor, action, target_type, target, details, request_id)
values (now(), 'anonymous', 'state.bookmark', 'state', 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target',
        '{"source"' || chr(58) || '"STATE_EDIT","version"' || chr(58) || cast(:v as int) || ',"bookmark"' || chr(58) || '"set","stream"' || chr(58) || '"orders"}',
        '0b6a1f3e-5d2c-4c1e-9a7b-3f2e1d0c9b8a');
\endpipeline
commit;
