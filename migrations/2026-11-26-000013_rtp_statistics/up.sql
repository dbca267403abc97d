-- Monthly RTP reports compare each game and each bet kind with its theory, in standard
-- deviations, and say how many rounds a 3σ flag needs before it can be trusted. Each round keeps
-- the third central moment of its payout, and one row per bet kind it holds: the kind's bets,
-- stakes, what the table paid, and the expected payout, variance and third moment of those bets
-- (the rules computed them; `verify` computes them again from the signed record).
--
-- Rows, not JSON: a month of a busy casino is millions of them, and summing plain columns is
-- what keeps the month's report within seconds. Table, game and time are repeated from the
-- verdict so the report reads this table alone.
ALTER TABLE adjudications ADD COLUMN payout_third_moment_h3 DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE adjudications ALTER COLUMN payout_third_moment_h3 DROP DEFAULT;

CREATE TABLE round_kinds (
    ledger_index       BIGINT NOT NULL,
    kind               TEXT NOT NULL,
    table_id           TEXT NOT NULL,
    game               TEXT NOT NULL,
    played_at          TIMESTAMPTZ NOT NULL,
    bets               BIGINT NOT NULL,
    stakes_h           BIGINT NOT NULL,
    paid_h             BIGINT NOT NULL,
    expected_payout_mh BIGINT NOT NULL,
    variance_h2        DOUBLE PRECISION NOT NULL,
    third_moment_h3    DOUBLE PRECISION NOT NULL
);
-- No primary key: a B-tree over every kind of every round cost ingest about 8 % more, measured (see
-- docs/PERFORMANCE.md). Rows arrive in ledger order and roughly in time order, so block ranges
-- find a round's rows (verify) and a month's (reports), as for the verdicts. Uniqueness of
-- (ledger_index, kind) is what dozor writes; `verify` compares each round's rows with the
-- re-derived ones, so a duplicate or a stray row is named.
CREATE INDEX round_kinds_by_entry ON round_kinds USING brin (ledger_index)
    WITH (autosummarize = on);
CREATE INDEX round_kinds_by_played_at ON round_kinds USING brin (played_at)
    WITH (autosummarize = on);

-- A kind row belongs to a stored verdict (checked per statement, as the verdicts' own entries).
CREATE TRIGGER round_kinds_have_verdicts AFTER INSERT ON round_kinds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'adjudications', 'ledger_index');

-- Insert-only, like the verdicts and findings they are derived with.
GRANT SELECT, INSERT ON round_kinds TO dozor_writer;
CREATE TRIGGER round_kinds_append_only BEFORE UPDATE OR DELETE ON round_kinds
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_kinds_no_truncate BEFORE TRUNCATE ON round_kinds
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
