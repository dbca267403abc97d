-- Ten years of entries: the tables that grow with every round (ledger_entries, adjudications,
-- round_kinds) are partitioned by ledger index in ranges of 2^20 entries. A range is a whole
-- subtree of the Merkle tree, so a range that has been exported, verified and recorded as
-- archived can leave the database (DETACH PARTITION) without any proof of a kept entry needing
-- one of its leaves; the interior nodes (merkle_nodes) stay.
--
-- What a partitioned table cannot enforce moves to tables that are not partitioned:
--   * a table's sequence numbers are unique across the whole ledger: table_records, written by
--     a trigger from every statement that appends entries;
--   * references to an entry or a verdict are checked when a row is inserted (the statement
--     triggers of 000007) instead of by foreign keys, which would stop a range from leaving;
--     deleting a referenced row is refused by the append-only triggers as before.

CREATE TABLE table_records (
    table_id     TEXT NOT NULL,
    seq_no       BIGINT NOT NULL CHECK (seq_no >= 0),
    ledger_index BIGINT NOT NULL,
    PRIMARY KEY (table_id, seq_no)
);
INSERT INTO table_records (table_id, seq_no, ledger_index)
    SELECT table_id, seq_no, idx FROM ledger_entries WHERE seq_no IS NOT NULL;
CREATE TRIGGER table_records_append_only BEFORE UPDATE OR DELETE ON table_records
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER table_records_no_truncate BEFORE TRUNCATE ON table_records
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
GRANT SELECT, INSERT ON table_records TO dozor_writer;

CREATE FUNCTION dozor_record_sequence_numbers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_records (table_id, seq_no, ledger_index)
        SELECT table_id, seq_no, idx FROM new_rows WHERE seq_no IS NOT NULL;
    RETURN NULL;
END;
$$;

-- Foreign keys into the tables about to be partitioned become checks at insert.
ALTER TABLE api_key_revocations DROP CONSTRAINT api_key_revocations_ledger_index_fkey;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_ledger_index_fkey;
ALTER TABLE finding_resolutions DROP CONSTRAINT finding_resolutions_ledger_index_fkey;
ALTER TABLE findings DROP CONSTRAINT findings_ledger_index_fkey;
ALTER TABLE mf_confirmations DROP CONSTRAINT mf_confirmations_ledger_index_fkey;
ALTER TABLE mf_deliveries DROP CONSTRAINT mf_deliveries_sealed_at_fkey;
ALTER TABLE mf_packages DROP CONSTRAINT mf_packages_sealed_at_fkey;
ALTER TABLE significant_events DROP CONSTRAINT significant_events_ledger_index_fkey;
DO $$
DECLARE r RECORD;
BEGIN
    FOR r IN SELECT * FROM (VALUES
            ('api_key_revocations', 'ledger_index', 'ledger_entries', 'idx'),
            ('api_keys', 'ledger_index', 'ledger_entries', 'idx'),
            ('finding_resolutions', 'ledger_index', 'ledger_entries', 'idx'),
            ('findings', 'ledger_index', 'adjudications', 'ledger_index'),
            ('mf_confirmations', 'ledger_index', 'ledger_entries', 'idx'),
            ('mf_deliveries', 'sealed_at', 'ledger_entries', 'idx'),
            ('mf_packages', 'sealed_at', 'ledger_entries', 'idx'),
            ('significant_events', 'ledger_index', 'ledger_entries', 'idx'))
        AS t(tab, col, target, key)
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_references_exist(%L, %L, %L)',
                       r.tab || '_reference_' || r.target, r.tab, r.col, r.target, r.key);
    END LOOP;
END;
$$;

-- The partitions: `<table>_p<n>` holds indexes [n·span, (n+1)·span), span 2^20 unless set
-- otherwise while the ledger is still empty (dozor_set_partition_span: a casino of a few tables
-- archives by the month with smaller ranges). The server's writer asks for the next range
-- before it is needed (dozor_ensure_partitions, below); the owner's privileges create it,
-- nothing else can.
CREATE TABLE ledger_partitioning (
    one  BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    span BIGINT NOT NULL CHECK (span BETWEEN 16 AND 1073741824 AND (span & (span - 1)) = 0)
);
INSERT INTO ledger_partitioning (span) VALUES (1048576);
GRANT SELECT ON ledger_partitioning TO dozor_writer;
CREATE FUNCTION dozor_partition_span() RETURNS BIGINT LANGUAGE sql STABLE
    AS 'SELECT span FROM ledger_partitioning';

CREATE FUNCTION dozor_ensure_partitions(through BIGINT) RETURNS BIGINT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    span CONSTANT BIGINT := dozor_partition_span();
    head BIGINT;
    first BIGINT;
    n BIGINT;
    t TEXT;
    part TEXT;
BEGIN
    IF through IS NULL OR through < 0 THEN
        RAISE EXCEPTION 'dozor: partitions through % cannot be made', through;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('dozor_ensure_partitions'));
    -- From the range holding the ledger's head: the ranges below it are there or archived.
    SELECT max(idx) INTO head FROM ledger_entries;
    first := coalesce(head, 0) / span;
    FOR n IN first .. through / span LOOP
        FOREACH t IN ARRAY ARRAY['ledger_entries', 'adjudications', 'round_kinds'] LOOP
            part := format('%s_p%s', t, lpad(n::text, 6, '0'));
            IF to_regclass(part) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
                               part, t, n * span, (n + 1) * span);
                -- Statement triggers are not inherited: a partition refuses TRUNCATE itself.
                EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                                FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()',
                               part || '_no_truncate', part);
            END IF;
        END LOOP;
    END LOOP;
    RETURN (through / span + 1) * span;
END;
$$;
REVOKE ALL ON FUNCTION dozor_ensure_partitions(BIGINT) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dozor_ensure_partitions(BIGINT) TO dozor_writer;

-- The same, giving up (NULL) when a long read holds the table a moment too long: making a range
-- needs the table to itself, and the writer asks again with its next batch, well before the
-- range is needed.
CREATE FUNCTION dozor_try_partitions(through BIGINT) RETURNS BIGINT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '200ms' AS $$
BEGIN
    RETURN dozor_ensure_partitions(through);
EXCEPTION WHEN lock_not_available THEN
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION dozor_try_partitions(BIGINT) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION dozor_try_partitions(BIGINT) TO dozor_writer;

-- Ranges of another size, while the ledger is empty (the owner only).
CREATE FUNCTION dozor_set_partition_span(new_span BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE part RECORD;
BEGIN
    IF EXISTS (SELECT 1 FROM ledger_entries) THEN
        RAISE EXCEPTION 'dozor: the ledger holds entries; the size of its ranges is kept'
            USING ERRCODE = 'object_in_use';
    END IF;
    FOR part IN SELECT c.relname::text AS name FROM pg_inherits i
                JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent IN ('ledger_entries'::regclass, 'adjudications'::regclass,
                                      'round_kinds'::regclass)
    LOOP
        EXECUTE format('DROP TABLE %I', part.name);
    END LOOP;
    UPDATE ledger_partitioning SET span = new_span;
    PERFORM dozor_ensure_partitions(new_span);
END;
$$;
REVOKE ALL ON FUNCTION dozor_set_partition_span(BIGINT) FROM PUBLIC;

-- Each table is rebuilt partitioned and its rows copied (once; a large existing ledger takes
-- the time of one copy of it).
ALTER TABLE ledger_entries RENAME TO ledger_entries_unpartitioned;
ALTER TABLE adjudications RENAME TO adjudications_unpartitioned;
ALTER TABLE round_kinds RENAME TO round_kinds_unpartitioned;
CREATE TABLE ledger_entries (LIKE ledger_entries_unpartitioned INCLUDING ALL EXCLUDING INDEXES)
    PARTITION BY RANGE (idx);
CREATE TABLE adjudications (LIKE adjudications_unpartitioned INCLUDING ALL EXCLUDING INDEXES)
    PARTITION BY RANGE (ledger_index);
CREATE TABLE round_kinds (LIKE round_kinds_unpartitioned INCLUDING ALL EXCLUDING INDEXES)
    PARTITION BY RANGE (ledger_index);
-- The ranges the rows need, and the next one.
SELECT dozor_ensure_partitions(
    coalesce((SELECT max(idx) FROM ledger_entries_unpartitioned), 0) + dozor_partition_span());
INSERT INTO ledger_entries SELECT * FROM ledger_entries_unpartitioned ORDER BY idx;
INSERT INTO adjudications SELECT * FROM adjudications_unpartitioned ORDER BY ledger_index;
INSERT INTO round_kinds SELECT * FROM round_kinds_unpartitioned ORDER BY ledger_index, kind;
DROP TABLE ledger_entries_unpartitioned, adjudications_unpartitioned, round_kinds_unpartitioned;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (idx);
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

-- Row triggers are cloned onto every partition, present and future.
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER adjudications_append_only BEFORE UPDATE OR DELETE ON adjudications
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_kinds_append_only BEFORE UPDATE OR DELETE ON round_kinds
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER adjudications_no_truncate BEFORE TRUNCATE ON adjudications
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_kinds_no_truncate BEFORE TRUNCATE ON round_kinds
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER ledger_entries_name_registered_tables AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('table_id', 'gaming_tables', 'table_id');
CREATE TRIGGER ledger_entries_record_sequence_numbers AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_record_sequence_numbers();
CREATE TRIGGER adjudications_have_entries AFTER INSERT ON adjudications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'ledger_entries', 'idx');
CREATE TRIGGER round_kinds_have_verdicts AFTER INSERT ON round_kinds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'adjudications', 'ledger_index');

GRANT SELECT, INSERT ON ledger_entries, adjudications, round_kinds TO dozor_writer;
