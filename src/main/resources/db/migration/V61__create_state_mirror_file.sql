-- What Tapline last wrote into (or accepted from) <mirror-dir>/<state_id>/state.json: the SHA-256
-- of the file's bytes. A file whose digest differs was written by someone else (Meltano) and is
-- imported before Tapline writes that state ID again. No row: Tapline has no file there.
CREATE TABLE IF NOT EXISTS state_mirror_file (
    state_id   varchar(900) PRIMARY KEY,
    sha256     char(64)     NOT NULL,
    updated_at timestamptz  NOT NULL DEFAULT now()
);
