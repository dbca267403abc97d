-- Who may do what: API keys with roles, and compliance officers' resolutions of findings. Both
-- are registry events in the ledger (signed by the operator); these tables index them and are
-- append-only like the ledger. `dozor verify` compares every row with its ledger entry.

-- The new registry events. API key events concern no gaming table: their table_id is NULL.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ALTER COLUMN table_id DROP NOT NULL;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'api_key_created', 'api_key_revoked', 'finding_resolved')) = (seq_no IS NULL)
);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_only_api_key_events_have_no_table CHECK (
    (record_type IN ('api_key_created', 'api_key_revoked')) = (table_id IS NULL)
);

-- A NULL reference (an API key event's table) refers to nothing and needs nothing to exist.
CREATE OR REPLACE FUNCTION dozor_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing TEXT;
BEGIN
    EXECUTE format('SELECT n.v::text FROM (SELECT DISTINCT %1$I AS v FROM new_rows) n
                    WHERE n.v IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM %2$I r WHERE r.%3$I = n.v) LIMIT 1',
                   TG_ARGV[0], TG_ARGV[1], TG_ARGV[2])
        INTO missing;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'dozor: %.% % does not exist in %', TG_TABLE_NAME, TG_ARGV[0], missing, TG_ARGV[1]
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END;
$$;

-- Only the SHA-256 of a token is kept; key_id is its first 8 bytes in hex (what the ledger and
-- the logs name).
CREATE TABLE api_keys (
    key_id       TEXT PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
    token_sha256 BYTEA NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
    name         TEXT NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9_.@-]{1,64}$'),
    role         TEXT NOT NULL CHECK (role IN ('admin', 'compliance', 'regulator', 'reporter')),
    created_by   TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ,
    ledger_index BIGINT NOT NULL UNIQUE REFERENCES ledger_entries (idx),
    CHECK (substr(encode(token_sha256, 'hex'), 1, 16) = key_id)
);

CREATE TABLE api_key_revocations (
    key_id       TEXT PRIMARY KEY REFERENCES api_keys (key_id),
    revoked_at   TIMESTAMPTZ NOT NULL,
    revoked_by   TEXT NOT NULL,
    reason       TEXT NOT NULL,
    ledger_index BIGINT NOT NULL UNIQUE REFERENCES ledger_entries (idx)
);

-- A finding is the `finding`-th (from 0) of its round's verdict; `position` says which.
ALTER TABLE findings ADD COLUMN position INTEGER;
UPDATE findings f SET position = n.position
  FROM (SELECT id, (row_number() OVER (PARTITION BY ledger_index ORDER BY id) - 1)::integer AS position
          FROM findings) n
 WHERE f.id = n.id;
ALTER TABLE findings ALTER COLUMN position SET NOT NULL;
ALTER TABLE findings ADD CONSTRAINT findings_position_non_negative CHECK (position >= 0);
CREATE UNIQUE INDEX findings_by_round_and_position ON findings (ledger_index, position);
DROP INDEX findings_by_entry; -- the index above serves the same lookups

CREATE TABLE finding_resolutions (
    ledger_index     BIGINT PRIMARY KEY REFERENCES ledger_entries (idx),
    round_index      BIGINT NOT NULL,
    finding          INTEGER NOT NULL CHECK (finding >= 0),
    table_id         TEXT NOT NULL,
    kind             TEXT NOT NULL,
    rules_version    TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('confirmed', 'dismissed', 'escalated')),
    amount_settled_h BIGINT CHECK (amount_settled_h >= 0),
    reason           TEXT,
    comment          TEXT NOT NULL,
    key_id           TEXT NOT NULL REFERENCES api_keys (key_id),
    key_name         TEXT NOT NULL,
    key_role         TEXT NOT NULL,
    resolved_at      TIMESTAMPTZ NOT NULL,
    CHECK ((state = 'confirmed') OR amount_settled_h IS NULL),
    CHECK ((state = 'dismissed') = (reason IS NOT NULL))
);
CREATE INDEX finding_resolutions_by_finding ON finding_resolutions (round_index, finding, ledger_index);

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['api_keys', 'api_key_revocations', 'finding_resolutions']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;

GRANT SELECT, INSERT ON api_keys, api_key_revocations, finding_resolutions TO dozor_writer;
