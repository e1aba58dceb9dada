-- Meltano-compatible Singer state: one row per state ID with the completed/partial split
-- (meltano-state.md §1d). Values are JSON text exactly as Python's json.dumps writes them, so key
-- order, number spelling and NaN/Infinity survive (not json/jsonb: PostgreSQL rejects NaN).
CREATE TABLE singer_state (
    state_id   varchar(900) PRIMARY KEY,
    completed  text         NOT NULL DEFAULT '{}',
    partial    text         NOT NULL DEFAULT '{}',
    version    bigint       NOT NULL DEFAULT 1,
    updated_at timestamptz  NOT NULL DEFAULT now()
);

-- Every change of a state ID, with the full value before and after: Meltano keeps no history,
-- Tapline does, so any bookmark can be rolled back. Rows outlive a cleared state ID.
CREATE TABLE singer_state_version (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    state_id         varchar(900) NOT NULL,
    version          bigint       NOT NULL,
    source           varchar(16)  NOT NULL
        CONSTRAINT ck_state_version_source CHECK (source IN ('RUN', 'STATE_EDIT', 'IMPORT', 'ROLLBACK')),
    action           varchar(32)  NOT NULL,
    actor            varchar(200) NOT NULL,
    run_id           uuid,
    completed_before text,
    partial_before   text,
    completed_after  text,
    partial_after    text,
    created_at       timestamptz  NOT NULL DEFAULT now(),
    CONSTRAINT uq_state_version UNIQUE (state_id, version)
);
