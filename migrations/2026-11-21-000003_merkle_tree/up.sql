-- RFC 6962 tree over the ledger: the hash of every perfect subtree of 2^level entries
-- (level >= 1) starting at entry idx * 2^level. Level 0 is ledger_entries.leaf_hash.
-- Maintained in the same transaction as the entries it covers; append-only like the ledger.
CREATE TABLE merkle_nodes (
    level SMALLINT NOT NULL CHECK (level BETWEEN 1 AND 63),
    idx   BIGINT NOT NULL CHECK (idx >= 0),
    hash  BYTEA NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
);

CREATE TRIGGER merkle_nodes_append_only BEFORE UPDATE OR DELETE ON merkle_nodes
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER merkle_nodes_no_truncate BEFORE TRUNCATE ON merkle_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();

GRANT SELECT, INSERT ON merkle_nodes TO dozor_writer;
