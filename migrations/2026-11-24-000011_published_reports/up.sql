-- Reports sealed into the ledger: a `report_published` registry event (signed by the operator)
-- carries each published report's SHA-256. It concerns no gaming table and has no seq_no.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'api_key_created', 'api_key_revoked', 'finding_resolved',
                     'report_published')) = (seq_no IS NULL)
);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_only_api_key_events_have_no_table;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_only_api_key_events_have_no_table CHECK (
    (record_type IN ('api_key_created', 'api_key_revoked', 'report_published')) = (table_id IS NULL)
);

-- Looked up by type before a report is published again; a partial index avoids a ledger scan.
CREATE INDEX ledger_entries_published_reports ON ledger_entries (idx)
    WHERE record_type = 'report_published';
