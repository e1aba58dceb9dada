-- pgbench: what StateService.bookmark does for GET .../bookmarks/{stream} (StateRepository.findSides):
-- one statement; the service then reads the bookmark out of the completed text.
-- (":" is written chr(58): in prepared mode pgbench takes every ":name" for a variable, even in a literal.)
\set n random(1, 100)
select completed, partial, version from tapline.singer_state
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target';
