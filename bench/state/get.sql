-- pgbench: what StateService.get does for GET .../bookmarks/{stream} (StateRepository.find).
-- (":" is written chr(58): in prepared mode pgbench takes every ":name" for a variable, even in a literal.)
\set n random(1, 100)
select state_id, completed, partial, version, updated_at from tapline.singer_state
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target';
