-- Signed checkpoints (C2SP tlog-checkpoint in a signed note) of the Merkle tree, newest last.
-- The note is stored exactly as served; the verifier key that signed it is kept beside it, so
-- checkpoints signed before a key rotation stay verifiable.
CREATE TABLE checkpoints (
    size         BIGINT PRIMARY KEY CHECK (size >= 0),
    root         BYTEA NOT NULL CHECK (length(root) = 32),
    note         TEXT NOT NULL,
    verifier_key TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL
);

CREATE TRIGGER checkpoints_append_only BEFORE UPDATE OR DELETE ON checkpoints
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER checkpoints_no_truncate BEFORE TRUNCATE ON checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();

GRANT SELECT, INSERT ON checkpoints TO dozor_writer;
