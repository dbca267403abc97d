-- Derived data: the verdict of every round and its findings. Recomputable from the ledger at
-- any time (a corrected rule re-runs history), so these rows are not append-only.

CREATE TABLE adjudications (
    ledger_index       BIGINT PRIMARY KEY REFERENCES ledger_entries (idx),
    table_id           TEXT NOT NULL,
    game               TEXT NOT NULL,
    plan_id            TEXT NOT NULL,
    rules_version      TEXT NOT NULL,
    played_at          TIMESTAMPTZ NOT NULL,
    void               BOOLEAN NOT NULL,
    stakes_h           BIGINT NOT NULL,
    expected_paid_h    BIGINT NOT NULL,
    paid_h             BIGINT NOT NULL,
    rtp_stakes_h       BIGINT NOT NULL,
    expected_payout_mh BIGINT NOT NULL,
    payout_variance_h2 DOUBLE PRECISION NOT NULL,
    finding_count      INTEGER NOT NULL,
    verdict            JSONB NOT NULL
);
CREATE INDEX adjudications_by_time ON adjudications (played_at, game, table_id);

CREATE TABLE findings (
    id           BIGSERIAL PRIMARY KEY,
    ledger_index BIGINT NOT NULL REFERENCES adjudications (ledger_index),
    table_id     TEXT NOT NULL,
    game         TEXT NOT NULL,
    played_at    TIMESTAMPTZ NOT NULL,
    kind         TEXT NOT NULL,
    bet_ids      JSONB NOT NULL,
    expected_h   BIGINT,
    actual_h     BIGINT,
    amount_h     BIGINT NOT NULL,
    message      TEXT NOT NULL
);
CREATE INDEX findings_by_time ON findings (played_at);
CREATE INDEX findings_by_table ON findings (table_id, played_at);
CREATE INDEX findings_by_kind ON findings (kind, played_at);
CREATE INDEX findings_by_entry ON findings (ledger_index);

GRANT SELECT, INSERT, UPDATE, DELETE ON adjudications, findings TO dozor_writer;
GRANT USAGE ON SEQUENCE findings_id_seq TO dozor_writer;
