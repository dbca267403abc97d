-- The monitor's own state, apart from any casino's database. What is evidence is append-only:
-- the database refuses UPDATE, DELETE and TRUNCATE of the checkpoints verified, the registry
-- events seen, the monitor's findings, the mismatches with the casinos' verdicts, the forks and
-- the alerts. A casino's progress and its tallies are the monitor's running figures: they change
-- with every bundle, in the same transaction as the evidence the bundle gave.

CREATE FUNCTION monitor_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'dozor monitor: % on % is not allowed: the table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TABLE monitor_casinos (
    casino            TEXT PRIMARY KEY CHECK (casino ~ '^[A-Za-z0-9_.-]{1,64}$'),
    -- Entries followed (verified, judged and counted), the frontier of their tree (the perfect
    -- subtrees' roots, largest first, 32 bytes each) and the last one's hash.
    size              BIGINT NOT NULL DEFAULT 0 CHECK (size >= 0),
    frontier          BYTEA NOT NULL DEFAULT '\x'::bytea,
    last_leaf         BYTEA CHECK (last_leaf IS NULL OR length(last_leaf) = 32),
    -- The latest checkpoint whose tree was shown to extend every earlier one.
    checkpoint_size   BIGINT CHECK (checkpoint_size >= size),
    checkpoint_root   BYTEA CHECK (checkpoint_root IS NULL OR length(checkpoint_root) = 32),
    checkpoint_note   TEXT,
    checkpoint_at     TIMESTAMPTZ,
    -- Why the monitor stopped following (a fork, a broken entry); NULL while it follows.
    halted            TEXT,
    -- The last attempt, its outcome, and the failures since the last success.
    last_attempt_at   TIMESTAMPTZ,
    last_success_at   TIMESTAMPTZ,
    last_error        TEXT,
    failures          INTEGER NOT NULL DEFAULT 0,
    CHECK ((checkpoint_size IS NULL) = (checkpoint_root IS NULL)
       AND (checkpoint_size IS NULL) = (checkpoint_note IS NULL))
);

CREATE TABLE monitor_checkpoints (
    casino       TEXT NOT NULL REFERENCES monitor_casinos (casino),
    size         BIGINT NOT NULL CHECK (size >= 0),
    root         BYTEA NOT NULL CHECK (length(root) = 32),
    note         TEXT NOT NULL,
    verified_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (casino, size)
);

CREATE TABLE monitor_registry_events (
    casino        TEXT NOT NULL REFERENCES monitor_casinos (casino),
    ledger_index  BIGINT NOT NULL CHECK (ledger_index >= 0),
    received_at   TIMESTAMPTZ NOT NULL,
    -- The key id of the operator key whose signature verified.
    signer        TEXT NOT NULL,
    -- The event's canonical JSON, as signed.
    event         TEXT NOT NULL,
    PRIMARY KEY (casino, ledger_index)
);

CREATE TABLE monitor_tallies (
    casino              TEXT NOT NULL REFERENCES monitor_casinos (casino),
    gaming_day          DATE NOT NULL,
    game                TEXT NOT NULL,
    rounds              BIGINT NOT NULL,
    unjudged_rounds     BIGINT NOT NULL,
    void_rounds         BIGINT NOT NULL,
    stakes_h            BIGINT NOT NULL,
    paid_h              BIGINT NOT NULL,
    expected_paid_h     BIGINT NOT NULL,
    rtp_stakes_h        BIGINT NOT NULL,
    expected_payout_mh  BIGINT NOT NULL,
    payout_variance_h2  DOUBLE PRECISION NOT NULL,
    findings            BIGINT NOT NULL,
    findings_amount_h   BIGINT NOT NULL,
    PRIMARY KEY (casino, gaming_day, game)
);

CREATE TABLE monitor_findings (
    casino        TEXT NOT NULL REFERENCES monitor_casinos (casino),
    ledger_index  BIGINT NOT NULL,
    position      INTEGER NOT NULL,
    table_id      TEXT NOT NULL,
    seq_no        BIGINT NOT NULL,
    kind          TEXT NOT NULL,
    amount_h      BIGINT NOT NULL,
    message       TEXT NOT NULL,
    PRIMARY KEY (casino, ledger_index, position)
);

CREATE TABLE monitor_mismatches (
    casino         TEXT NOT NULL REFERENCES monitor_casinos (casino),
    ledger_index   BIGINT NOT NULL,
    field          TEXT NOT NULL,
    casino_value   JSONB NOT NULL,
    monitor_value  JSONB NOT NULL,
    found_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (casino, ledger_index, field)
);

CREATE TABLE monitor_forks (
    id            BIGSERIAL PRIMARY KEY,
    casino        TEXT NOT NULL REFERENCES monitor_casinos (casino),
    -- rollback (a smaller tree), fork (another root of the same size), not_extending (a larger
    -- tree that does not contain the held one).
    kind          TEXT NOT NULL CHECK (kind IN ('rollback', 'fork', 'not_extending')),
    held_note     TEXT NOT NULL,
    seen_note     TEXT NOT NULL,
    found_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (casino, held_note, seen_note)
);

CREATE TABLE monitor_alerts (
    id          BIGSERIAL PRIMARY KEY,
    casino      TEXT NOT NULL REFERENCES monitor_casinos (casino),
    kind        TEXT NOT NULL,
    -- What makes an alert the same one again: raised once.
    key         TEXT NOT NULL,
    raised_at   TIMESTAMPTZ NOT NULL,
    message     TEXT NOT NULL,
    evidence    JSONB NOT NULL,
    UNIQUE (casino, key)
);

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['monitor_checkpoints', 'monitor_registry_events', 'monitor_findings',
                             'monitor_mismatches', 'monitor_forks', 'monitor_alerts']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION monitor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION monitor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;
