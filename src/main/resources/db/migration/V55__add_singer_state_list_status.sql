-- The status that GET /api/v1/states shows for each state ID (ok, empty, invalid: Meltano's green,
-- yellow, red), stored at each write so that a list never reads the completed/partial bodies,
-- however large they are. Existing rows are filled in here, one at a time; a body PostgreSQL cannot
-- parse as jsonb (Python's NaN/Infinity) falls back to a textual check of the top-level key.
ALTER TABLE singer_state ADD COLUMN IF NOT EXISTS list_status varchar(8) NOT NULL DEFAULT 'ok'
    CONSTRAINT ck_singer_state_list_status CHECK (list_status IN ('ok', 'empty', 'invalid'));

DO $$
DECLARE
    r record;
    s varchar(8);
BEGIN
    FOR r IN SELECT state_id FROM singer_state LOOP
        BEGIN
            SELECT CASE
                       WHEN c.completed::jsonb = '{}'::jsonb AND c.partial::jsonb = '{}'::jsonb THEN 'empty'
                       WHEN c.completed::jsonb ? 'singer_state' OR c.partial::jsonb ? 'singer_state' THEN 'ok'
                       ELSE 'invalid' END
              INTO s FROM singer_state c WHERE c.state_id = r.state_id;
        EXCEPTION WHEN others THEN
            SELECT CASE
                       WHEN position('"singer_state"' IN c.completed) > 0
                            OR position('"singer_state"' IN c.partial) > 0 THEN 'ok'
                       ELSE 'invalid' END
              INTO s FROM singer_state c WHERE c.state_id = r.state_id;
        END;
        UPDATE singer_state SET list_status = s WHERE state_id = r.state_id;
    END LOOP;
END $$;
