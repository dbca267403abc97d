-- Back to one table each (rows copied), with the unique sequence numbers and foreign keys of
-- before. A range detached since cannot come back this way: reattach it first.
ALTER TABLE ledger_entries RENAME TO ledger_entries_partitioned;
ALTER TABLE adjudications RENAME TO adjudications_partitioned;
ALTER TABLE round_kinds RENAME TO round_kinds_partitioned;
CREATE TABLE ledger_entries (LIKE ledger_entries_partitioned INCLUDING ALL EXCLUDING INDEXES);
CREATE TABLE adjudications (LIKE adjudications_partitioned INCLUDING ALL EXCLUDING INDEXES);
CREATE TABLE round_kinds (LIKE round_kinds_partitioned INCLUDING ALL EXCLUDING INDEXES);
INSERT INTO ledger_entries SELECT * FROM ledger_entries_partitioned ORDER BY idx;
INSERT INTO adjudications SELECT * FROM adjudications_partitioned ORDER BY ledger_index;
INSERT INTO round_kinds SELECT * FROM round_kinds_partitioned ORDER BY ledger_index, kind;
DROP TABLE ledger_entries_partitioned, adjudications_partitioned, round_kinds_partitioned;
DROP FUNCTION dozor_set_partition_span(BIGINT);
DROP FUNCTION dozor_try_partitions(BIGINT);
DROP FUNCTION dozor_ensure_partitions(BIGINT);
DROP FUNCTION dozor_partition_span();
DROP TABLE ledger_partitioning;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (idx);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_table_seq UNIQUE (table_id, seq_no);
CREATE INDEX ledger_entries_log_rotations ON ledger_entries (idx) WHERE record_type = 'log_rotated';
CREATE INDEX ledger_entries_operations ON ledger_entries (table_id, seq_no)
    WHERE record_type = ANY (ARRAY['table_open', 'table_fill', 'table_credit', 'table_drop',
                                   'table_tips', 'table_close', 'cage_open', 'cage_transaction',
                                   'cage_close']);
CREATE INDEX ledger_entries_package_deliveries ON ledger_entries (idx)
    WHERE record_type = 'package_delivery';
CREATE INDEX ledger_entries_published_reports ON ledger_entries (idx)
    WHERE record_type = 'report_published';
CREATE INDEX ledger_entries_registry_events ON ledger_entries (idx) WHERE seq_no IS NULL;
ALTER TABLE adjudications ADD CONSTRAINT adjudications_pkey PRIMARY KEY (ledger_index);
CREATE INDEX adjudications_by_played_at ON adjudications USING brin (played_at)
    WITH (autosummarize = on);
CREATE INDEX round_kinds_by_entry ON round_kinds USING brin (ledger_index)
    WITH (autosummarize = on);
CREATE INDEX round_kinds_by_played_at ON round_kinds USING brin (played_at)
    WITH (autosummarize = on);
DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['ledger_entries', 'adjudications', 'round_kinds'] LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;
CREATE TRIGGER ledger_entries_name_registered_tables AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('table_id', 'gaming_tables', 'table_id');
CREATE TRIGGER adjudications_have_entries AFTER INSERT ON adjudications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'ledger_entries', 'idx');
CREATE TRIGGER adjudications_keep_entries AFTER UPDATE ON adjudications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'ledger_entries', 'idx');
CREATE TRIGGER round_kinds_have_verdicts AFTER INSERT ON round_kinds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'adjudications', 'ledger_index');
GRANT SELECT, INSERT ON ledger_entries, adjudications, round_kinds TO dozor_writer;

DROP TRIGGER api_key_revocations_reference_ledger_entries ON api_key_revocations;
DROP TRIGGER api_keys_reference_ledger_entries ON api_keys;
DROP TRIGGER finding_resolutions_reference_ledger_entries ON finding_resolutions;
DROP TRIGGER findings_reference_adjudications ON findings;
DROP TRIGGER mf_confirmations_reference_ledger_entries ON mf_confirmations;
DROP TRIGGER mf_deliveries_reference_ledger_entries ON mf_deliveries;
DROP TRIGGER mf_packages_reference_ledger_entries ON mf_packages;
DROP TRIGGER significant_events_reference_ledger_entries ON significant_events;
ALTER TABLE api_key_revocations ADD CONSTRAINT api_key_revocations_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);
ALTER TABLE finding_resolutions ADD CONSTRAINT finding_resolutions_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);
ALTER TABLE findings ADD CONSTRAINT findings_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES adjudications (ledger_index);
ALTER TABLE mf_confirmations ADD CONSTRAINT mf_confirmations_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);
ALTER TABLE mf_deliveries ADD CONSTRAINT mf_deliveries_sealed_at_fkey
    FOREIGN KEY (sealed_at) REFERENCES ledger_entries (idx);
ALTER TABLE mf_packages ADD CONSTRAINT mf_packages_sealed_at_fkey
    FOREIGN KEY (sealed_at) REFERENCES ledger_entries (idx);
ALTER TABLE significant_events ADD CONSTRAINT significant_events_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);

DROP TABLE table_records;
DROP FUNCTION dozor_record_sequence_numbers();
