DROP TABLE finding_resolutions;
DROP TABLE api_key_revocations;
DROP TABLE api_keys;
DROP INDEX findings_by_round_and_position;
CREATE INDEX findings_by_entry ON findings (ledger_index);
ALTER TABLE findings DROP CONSTRAINT findings_position_non_negative;
ALTER TABLE findings DROP COLUMN position;

CREATE OR REPLACE FUNCTION dozor_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing TEXT;
BEGIN
    EXECUTE format('SELECT n.v::text FROM (SELECT DISTINCT %1$I AS v FROM new_rows) n
                    WHERE NOT EXISTS (SELECT 1 FROM %2$I r WHERE r.%3$I = n.v) LIMIT 1',
                   TG_ARGV[0], TG_ARGV[1], TG_ARGV[2])
        INTO missing;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'dozor: %.% % does not exist in %', TG_TABLE_NAME, TG_ARGV[0], missing, TG_ARGV[1]
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END;
$$;

-- Entries of the new kinds cannot stay under the old constraints: this step down needs a ledger
-- without them.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_only_api_key_events_have_no_table;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ALTER COLUMN table_id SET NOT NULL;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked')) = (seq_no IS NULL)
);
