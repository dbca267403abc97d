-- Table registrations, key additions and key revocations are ledger entries too, signed by the
-- operator, so that which key was valid for a record follows from the ledger alone. They carry no
-- sequence number, and their signing key is the operator's (not a row of table_keys).
ALTER TABLE ledger_entries ALTER COLUMN seq_no DROP NOT NULL;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_key_id_fkey;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked')) = (seq_no IS NULL)
);
CREATE INDEX ledger_entries_registry_events ON ledger_entries (idx) WHERE seq_no IS NULL;
