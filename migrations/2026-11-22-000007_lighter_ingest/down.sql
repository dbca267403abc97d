DROP TRIGGER adjudications_keep_entries ON adjudications;
DROP TRIGGER adjudications_have_entries ON adjudications;
DROP TRIGGER ledger_entries_name_registered_tables ON ledger_entries;
DROP FUNCTION dozor_references_exist();
ALTER TABLE adjudications ADD CONSTRAINT adjudications_ledger_index_fkey
    FOREIGN KEY (ledger_index) REFERENCES ledger_entries (idx);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_table_id_fkey
    FOREIGN KEY (table_id) REFERENCES gaming_tables (table_id);
ALTER TABLE adjudications ALTER COLUMN verdict SET COMPRESSION pglz;
ALTER TABLE ledger_entries ALTER COLUMN entry SET COMPRESSION pglz;
ALTER TABLE adjudications ALTER COLUMN verdict TYPE jsonb USING verdict::jsonb;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_leaf_hash_key UNIQUE (leaf_hash);
