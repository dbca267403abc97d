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
