-- A table's posted limits change during the night: `table_limits_set`, a registry event signed
-- by the operator, about one gaming table and with no seq_no.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'table_limits_set', 'api_key_created', 'api_key_revoked',
                     'finding_resolved', 'report_published')) = (seq_no IS NULL)
);
