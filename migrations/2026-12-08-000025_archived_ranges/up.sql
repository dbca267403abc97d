-- A range of entries archived (`dozor log archive`): its rows leave the database as a verified
-- inspection export, its partitions detached. What stays, so that the ledger goes on and can
-- still be proven and replayed:
--   * of each entry, its leaf hash, record hash and receipt time (archived_entries): every
--     inclusion and consistency proof of the tree keeps working, the archived entries' own
--     included, and a record sent again years later is still told apart from another one
--     under its sequence number;
--   * its registry events whole (archived_registry_entries): who held which key, role and
--     table, replayed by the server and by verify as before.
-- The range itself is named by an operator-signed `range_archived` registry event.

-- `range_archived` is a registry event about no table.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'table_limits_set', 'api_key_created', 'api_key_revoked',
                     'finding_resolved', 'report_published', 'package_delivery',
                     'log_rotated', 'rollback_accepted', 'range_archived')) = (seq_no IS NULL)
);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_only_api_key_events_have_no_table;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_only_api_key_events_have_no_table CHECK (
    (record_type IN ('api_key_created', 'api_key_revoked', 'report_published',
                     'package_delivery', 'log_rotated', 'rollback_accepted',
                     'range_archived')) = (table_id IS NULL)
);

CREATE TABLE archived_entries (
    idx         BIGINT PRIMARY KEY CHECK (idx >= 0),
    received_at TIMESTAMPTZ NOT NULL,
    leaf_hash   BYTEA NOT NULL CHECK (length(leaf_hash) = 32),
    record_hash BYTEA NOT NULL CHECK (length(record_hash) = 32)
);
CREATE TABLE archived_registry_entries (LIKE ledger_entries INCLUDING ALL EXCLUDING INDEXES);
ALTER TABLE archived_registry_entries ADD PRIMARY KEY (idx);
ALTER TABLE archived_registry_entries ADD CONSTRAINT archived_registry_entries_are_registry_events
    CHECK (seq_no IS NULL);
DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['archived_entries', 'archived_registry_entries'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;
GRANT SELECT ON archived_entries, archived_registry_entries TO dozor_writer;

-- Every registry event, archived or not, in one place for those who replay them.
CREATE VIEW registry_entries AS
    SELECT * FROM ledger_entries WHERE seq_no IS NULL
    UNION ALL
    SELECT * FROM archived_registry_entries;
GRANT SELECT ON registry_entries TO dozor_writer;


-- A significant event may name an archived entry (a record sent again under an archived
-- sequence number): an index counts while the ledger has it or keeps what stays of it.
CREATE VIEW ledger_indexes AS
    SELECT idx FROM ledger_entries
    UNION ALL
    SELECT idx FROM archived_entries;
GRANT SELECT ON ledger_indexes TO dozor_writer;
DROP TRIGGER significant_events_reference_ledger_entries ON significant_events;
CREATE TRIGGER significant_events_reference_ledger_entries AFTER INSERT ON significant_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'ledger_indexes', 'idx');
