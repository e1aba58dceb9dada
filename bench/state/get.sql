-- pgbench: what StateService.bookmark does for GET .../bookmarks/{stream} (StateRepository.findSides
-- with a size bound): one statement, the texts only when together at most tapline.api.large-read-bytes
-- (1 MiB); the service then reads the bookmark out of the completed text.
-- (":" is written chr(58): in prepared mode pgbench takes every ":name" for a variable, even in a literal.)
\set n random(1, 100)
select case when octet_length(completed) + octet_length(partial) <= 1048576 then completed end,
       case when octet_length(completed) + octet_length(partial) <= 1048576 then partial end,
       version, octet_length(completed) + octet_length(partial) from tapline.singer_state
 where state_id = 'bench' || chr(58) || 'tap-' || cast(:n as int) || '-to-target';
