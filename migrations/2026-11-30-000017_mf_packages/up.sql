-- The Ministry's packages as issued: each version's ZIP, the digest of its content (its files
-- without their first line, which holds the package's name and creation time) and the
-- `report_published` event that sealed the ZIP's SHA-256. Asking for a month's package again
-- answers the latest version while its content is the same, and only a changed content gets
-- the next version. Insert-only; `verify` checks each row against its seal.
CREATE TABLE mf_packages (
    name           TEXT PRIMARY KEY,
    month          TEXT NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
    premises       TEXT NOT NULL,
    version        INTEGER NOT NULL CHECK (version BETWEEN 1 AND 99),
    content_sha256 BYTEA NOT NULL CHECK (length(content_sha256) = 32),
    zip            BYTEA NOT NULL,
    sealed_at      BIGINT NOT NULL REFERENCES ledger_entries (idx),
    UNIQUE (month, premises, version)
);

GRANT SELECT, INSERT ON mf_packages TO dozor_writer;
REVOKE UPDATE, DELETE, TRUNCATE ON mf_packages FROM dozor_writer;
CREATE TRIGGER mf_packages_append_only BEFORE UPDATE OR DELETE ON mf_packages
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER mf_packages_no_truncate BEFORE TRUNCATE ON mf_packages
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
