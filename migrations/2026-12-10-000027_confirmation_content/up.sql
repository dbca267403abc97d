-- What a confirmation's seal covers: the SHA-256 of the sealed content (the encrypted
-- `.zip.p7e` the Ministry sealed), none when the seal did not hold. The file's own bytes can be
-- re-encoded around an unchanged seal (its certificates and unsigned attributes are not
-- sealed), so "one confirmation counts for one package" is checked on this digest, under the
-- ledger's append lock. Rows kept before have none; their files' digests are in their entries.
ALTER TABLE mf_confirmations ADD COLUMN sealed_content_sha256 TEXT
    CHECK (sealed_content_sha256 ~ '^[0-9a-f]{64}$');
CREATE INDEX mf_confirmations_by_sealed_content ON mf_confirmations (sealed_content_sha256)
    WHERE sealed_content_sha256 IS NOT NULL;
