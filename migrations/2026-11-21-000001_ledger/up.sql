-- The ledger and the facts it depends on. Every table here is append-only: the database itself
-- refuses UPDATE, DELETE and TRUNCATE, and `dozor verify` catches anything that still changes a row.

CREATE FUNCTION dozor_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'dozor: % on % is not allowed: the table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TABLE gaming_tables (
    table_id      TEXT PRIMARY KEY CHECK (table_id ~ '^[A-Za-z0-9_.-]{1,64}$'),
    game          TEXT NOT NULL,
    location      TEXT NOT NULL CHECK (length(location) BETWEEN 1 AND 200),
    plan_id       TEXT NOT NULL,
    registered_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE table_keys (
    key_id        TEXT PRIMARY KEY,
    table_id      TEXT NOT NULL REFERENCES gaming_tables (table_id),
    public_key    BYTEA NOT NULL UNIQUE CHECK (length(public_key) = 32),
    valid_from    TIMESTAMPTZ NOT NULL,
    registered_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX table_keys_by_table ON table_keys (table_id);

CREATE TABLE table_key_revocations (
    key_id      TEXT PRIMARY KEY REFERENCES table_keys (key_id),
    revoked_at  TIMESTAMPTZ NOT NULL,
    reason      TEXT NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL
);

-- Entry i is the RFC 8785 canonical JSON of {index, received_at, prev_hash, envelope};
-- leaf_hash = SHA-256(0x00 || entry) and prev_hash of entry i is leaf_hash of entry i-1.
CREATE TABLE ledger_entries (
    idx         BIGINT PRIMARY KEY CHECK (idx >= 0),
    received_at TIMESTAMPTZ NOT NULL,
    prev_hash   BYTEA NOT NULL CHECK (length(prev_hash) = 32),
    leaf_hash   BYTEA NOT NULL UNIQUE CHECK (length(leaf_hash) = 32),
    entry       BYTEA NOT NULL,
    record_type TEXT NOT NULL,
    table_id    TEXT NOT NULL REFERENCES gaming_tables (table_id),
    seq_no      BIGINT NOT NULL CHECK (seq_no >= 0),
    key_id      TEXT NOT NULL REFERENCES table_keys (key_id),
    record_hash BYTEA NOT NULL CHECK (length(record_hash) = 32),
    CONSTRAINT ledger_entries_table_seq UNIQUE (table_id, seq_no)
);

-- Rejected submissions that matter to an inspector (a second, different record under a used
-- sequence number), kept with the offending signed envelope as evidence.
CREATE TABLE significant_events (
    id           BIGSERIAL PRIMARY KEY,
    occurred_at  TIMESTAMPTZ NOT NULL,
    kind         TEXT NOT NULL,
    table_id     TEXT NOT NULL,
    seq_no       BIGINT NOT NULL,
    ledger_index BIGINT REFERENCES ledger_entries (idx),
    details      JSONB NOT NULL
);
CREATE INDEX significant_events_by_table ON significant_events (table_id, occurred_at);

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['gaming_tables', 'table_keys', 'table_key_revocations',
                             'ledger_entries', 'significant_events']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;

-- Privileges: the role a deployment's server logs in as (a member of dozor_writer) may read and
-- append, never change. The owner that runs migrations is still held back by the triggers.
DO $$
BEGIN
    CREATE ROLE dozor_writer NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL; -- roles are cluster-wide: another database of the cluster made it already
END;
$$;
GRANT SELECT, INSERT ON gaming_tables, table_keys, table_key_revocations, ledger_entries,
    significant_events TO dozor_writer;
GRANT USAGE ON SEQUENCE significant_events_id_seq TO dozor_writer;
