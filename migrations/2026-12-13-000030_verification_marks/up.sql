-- A verification mark (`ledger_verified`): the operator's check of its own ledger, signed into
-- it; a registry event about no table.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'table_limits_set', 'api_key_created', 'api_key_revoked',
                     'finding_resolved', 'report_published', 'package_delivery',
                     'log_rotated', 'rollback_accepted', 'range_archived',
                     'ledger_verified')) = (seq_no IS NULL)
);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_only_api_key_events_have_no_table;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_only_api_key_events_have_no_table CHECK (
    (record_type IN ('api_key_created', 'api_key_revoked', 'report_published',
                     'package_delivery', 'log_rotated', 'rollback_accepted',
                     'range_archived', 'ledger_verified')) = (table_id IS NULL)
);
