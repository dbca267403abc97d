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
