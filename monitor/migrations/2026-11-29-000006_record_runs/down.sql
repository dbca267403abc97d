-- monitor_rounds as 2026-11-29-000005_table_records made it, refilled from the runs.
-- Every table record followed, by the (table, seq_no) its table signed, and where it is in the
-- log. A table signs the record, not its place: ingest appends a (table_id, seq_no) once, so a
-- second entry of one is a replay by whoever appends, refused and never counted again.
CREATE TABLE monitor_rounds (
    casino        TEXT NOT NULL REFERENCES monitor_casinos (casino),
    table_id      TEXT NOT NULL,
    seq_no        BIGINT NOT NULL,
    ledger_index  BIGINT NOT NULL,
    PRIMARY KEY (casino, table_id, seq_no)
);

CREATE TRIGGER monitor_rounds_append_only BEFORE UPDATE OR DELETE ON monitor_rounds
    FOR EACH ROW EXECUTE FUNCTION monitor_refuse_change();
CREATE TRIGGER monitor_rounds_no_truncate BEFORE TRUNCATE ON monitor_rounds
    FOR EACH STATEMENT EXECUTE FUNCTION monitor_refuse_change();

-- A row per seq_no of each run. The runs keep the index of their first and last seq_no only:
-- the seq_nos between get the run's first_index (their exact index is not kept).
INSERT INTO monitor_rounds (casino, table_id, seq_no, ledger_index)
SELECT casino, table_id, seq_no,
       CASE WHEN seq_no = last_seq THEN last_index ELSE first_index END
FROM monitor_record_runs, generate_series(first_seq, last_seq) AS seq_no;

DROP TABLE monitor_record_runs;
