-- Witnesses' cosignatures of the operator's checkpoints (C2SP tlog-cosignature), one per witness
-- and checkpoint, kept as the witness sent them. A cosignature authenticates itself (it verifies
-- under the witness's configured key over the checkpoint's note), so a row does not need the
-- ledger's signature to be trusted; it is checked whenever it is used. Insert-only.
CREATE TABLE checkpoint_cosignatures (
    size        BIGINT NOT NULL REFERENCES checkpoints (size),
    witness     TEXT NOT NULL,
    line        TEXT NOT NULL,
    cosigned_at TIMESTAMPTZ NOT NULL,
    received_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (size, witness)
);
CREATE INDEX checkpoint_cosignatures_by_witness ON checkpoint_cosignatures (witness, size);

GRANT SELECT, INSERT ON checkpoint_cosignatures TO dozor_writer;
REVOKE UPDATE, DELETE, TRUNCATE ON checkpoint_cosignatures FROM dozor_writer;
CREATE TRIGGER checkpoint_cosignatures_append_only BEFORE UPDATE OR DELETE ON checkpoint_cosignatures
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER checkpoint_cosignatures_no_truncate BEFORE TRUNCATE ON checkpoint_cosignatures
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
