REVOKE ALL ON gaming_tables, table_keys, table_key_revocations, ledger_entries,
    significant_events FROM dozor_writer;
DROP TABLE significant_events;
DROP TABLE ledger_entries;
DROP TABLE table_key_revocations;
DROP TABLE table_keys;
DROP TABLE gaming_tables;
DROP FUNCTION dozor_refuse_change();
