DROP INDEX ledger_entries_registry_events;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_key_id_fkey
    FOREIGN KEY (key_id) REFERENCES table_keys (key_id);
ALTER TABLE ledger_entries ALTER COLUMN seq_no SET NOT NULL;
