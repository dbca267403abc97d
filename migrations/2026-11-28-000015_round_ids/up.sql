-- A table's own id for a round (`round_id`) names one round: the same id under a second
-- `seq_no` is refused and kept as a significant event, not counted twice. Derived data,
-- insert-only like the verdicts; `verify` compares each round's row with its signed record.
CREATE TABLE round_ids (
    table_id     TEXT NOT NULL,
    round_id     TEXT NOT NULL,
    ledger_index BIGINT NOT NULL,
    PRIMARY KEY (table_id, round_id)
);
CREATE INDEX round_ids_by_entry ON round_ids USING brin (ledger_index)
    WITH (autosummarize = on);

-- A round id belongs to a stored verdict (checked per statement, as the bet-kind rows).
CREATE TRIGGER round_ids_have_verdicts AFTER INSERT ON round_ids
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'adjudications', 'ledger_index');

-- The rounds already in the ledger: the first round under each id (a later one, which could
-- be appended before this table existed, is named by `verify`).
INSERT INTO round_ids (table_id, round_id, ledger_index)
SELECT DISTINCT ON (table_id, round_id) table_id, round_id, ledger_index
  FROM (SELECT a.table_id, a.ledger_index,
               convert_from(l.entry, 'UTF8')::jsonb #>> '{envelope,record,round_id}' AS round_id
          FROM adjudications a JOIN ledger_entries l ON l.idx = a.ledger_index) r
 WHERE round_id IS NOT NULL
 ORDER BY table_id, round_id, ledger_index;

GRANT SELECT, INSERT ON round_ids TO dozor_writer;
REVOKE UPDATE, DELETE, TRUNCATE ON round_ids FROM dozor_writer;
CREATE TRIGGER round_ids_append_only BEFORE UPDATE OR DELETE ON round_ids
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_ids_no_truncate BEFORE TRUNCATE ON round_ids
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
