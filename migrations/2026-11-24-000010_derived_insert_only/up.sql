-- Verdicts and findings are insert-only like the ledger they are derived from: the writer role
-- may no longer change or delete them, and the triggers hold back the owner too. `verify`
-- re-adjudicates every round and compares, so a row changed past these (as superuser) is named.
-- A corrected rule is applied by a migration of its own, which disables the triggers explicitly.
REVOKE UPDATE, DELETE, TRUNCATE ON adjudications, findings FROM dozor_writer;

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['adjudications', 'findings']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I
                        FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change()', t || '_append_only', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()', t || '_no_truncate', t);
    END LOOP;
END;
$$;
