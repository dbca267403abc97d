-- The Ministry's packages as delivered: each issued version encrypted to the Ministry (and the
-- operator) and sealed with the operator's seal, once. The file is kept byte for byte (it holds
-- a fresh content key and a signing time, so it could not be made again the same) and its
-- SHA-256 is sealed into the ledger by a `report_published` event named
-- `reports/mf/{package}.zip.p7e.p7s`. Insert-only; `verify` checks each row against its seal.
CREATE TABLE mf_deliveries (
    package     TEXT PRIMARY KEY REFERENCES mf_packages (name),
    sealed_file BYTEA NOT NULL,
    sealed_at   BIGINT NOT NULL REFERENCES ledger_entries (idx)
);

GRANT SELECT, INSERT ON mf_deliveries TO dozor_writer;
REVOKE UPDATE, DELETE, TRUNCATE ON mf_deliveries FROM dozor_writer;
CREATE TRIGGER mf_deliveries_append_only BEFORE UPDATE OR DELETE ON mf_deliveries
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER mf_deliveries_no_truncate BEFORE TRUNCATE ON mf_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();

-- The Ministry's side of a delivery (a download, a notification, a confirmation) is a
-- `package_delivery` registry event: signed by the operator, about no table, no seq_no.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_registry_events_have_no_seq_no;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_registry_events_have_no_seq_no CHECK (
    (record_type IN ('table_registered', 'table_key_added', 'table_key_revoked',
                     'table_limits_set', 'api_key_created', 'api_key_revoked',
                     'finding_resolved', 'report_published', 'package_delivery')) = (seq_no IS NULL)
);
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_only_api_key_events_have_no_table;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_only_api_key_events_have_no_table CHECK (
    (record_type IN ('api_key_created', 'api_key_revoked', 'report_published',
                     'package_delivery')) = (table_id IS NULL)
);
CREATE INDEX ledger_entries_package_deliveries ON ledger_entries (idx)
    WHERE record_type = 'package_delivery';

-- A file offered as the Ministry's confirmation, kept as it came whether its seal holds or
-- not: the evidence behind the `package_delivery` event at `ledger_index`.
CREATE TABLE mf_confirmations (
    ledger_index BIGINT PRIMARY KEY REFERENCES ledger_entries (idx),
    file_name    TEXT NOT NULL,
    file         BYTEA NOT NULL
);
GRANT SELECT, INSERT ON mf_confirmations TO dozor_writer;
REVOKE UPDATE, DELETE, TRUNCATE ON mf_confirmations FROM dozor_writer;
CREATE TRIGGER mf_confirmations_append_only BEFORE UPDATE OR DELETE ON mf_confirmations
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER mf_confirmations_no_truncate BEFORE TRUNCATE ON mf_confirmations
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
