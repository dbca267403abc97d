-- Back to a row per bet kind, partitioned like the entries.
CREATE TABLE round_kinds (
    ledger_index       BIGINT NOT NULL,
    kind               TEXT NOT NULL,
    table_id           TEXT NOT NULL,
    game               TEXT NOT NULL,
    played_at          TIMESTAMPTZ NOT NULL,
    bets               BIGINT NOT NULL,
    stakes_h           BIGINT NOT NULL,
    paid_h             BIGINT NOT NULL,
    expected_payout_mh BIGINT NOT NULL,
    variance_h2        DOUBLE PRECISION NOT NULL,
    third_moment_h3    DOUBLE PRECISION NOT NULL
) PARTITION BY RANGE (ledger_index);
CREATE OR REPLACE FUNCTION dozor_ensure_partitions(through BIGINT) RETURNS BIGINT
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

CREATE OR REPLACE FUNCTION dozor_set_partition_span(new_span BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
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

DO $$
DECLARE
    span CONSTANT BIGINT := dozor_partition_span();
    part RECORD;
    n BIGINT;
    name TEXT;
BEGIN
    FOR part IN SELECT c.relname::text AS name FROM pg_inherits i
                JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'ledger_entries'::regclass
    LOOP
        n := substr(part.name, length('ledger_entries_p') + 1)::BIGINT;
        name := format('round_kinds_p%s', lpad(n::text, 6, '0'));
        EXECUTE format('CREATE TABLE %I PARTITION OF round_kinds FOR VALUES FROM (%s) TO (%s)',
                       name, n * span, (n + 1) * span);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()',
                       name || '_no_truncate', name);
    END LOOP;
END;
$$;
INSERT INTO round_kinds
SELECT a.ledger_index, k.kind, a.table_id, a.game, a.played_at, k.bets, k.stakes_h, k.paid_h,
       k.expected_payout_mh, k.variance_h2, k.third_moment_h3
FROM adjudications a,
     unnest(a.kind_names, a.kind_bets, a.kind_stakes_h, a.kind_paid_h, a.kind_expected_payout_mh,
            a.kind_variance_h2, a.kind_third_moment_h3)
         AS k(kind, bets, stakes_h, paid_h, expected_payout_mh, variance_h2, third_moment_h3)
ORDER BY a.ledger_index, k.kind;
CREATE INDEX round_kinds_by_entry ON round_kinds USING brin (ledger_index)
    WITH (autosummarize = on);
CREATE INDEX round_kinds_by_played_at ON round_kinds USING brin (played_at)
    WITH (autosummarize = on);
CREATE TRIGGER round_kinds_append_only BEFORE UPDATE OR DELETE ON round_kinds
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_kinds_no_truncate BEFORE TRUNCATE ON round_kinds
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER round_kinds_have_verdicts AFTER INSERT ON round_kinds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION dozor_references_exist('ledger_index', 'adjudications', 'ledger_index');
GRANT SELECT, INSERT ON round_kinds TO dozor_writer;

ALTER TABLE adjudications DROP CONSTRAINT adjudications_an_element_per_kind,
    DROP COLUMN kind_names,
    DROP COLUMN kind_bets,
    DROP COLUMN kind_stakes_h,
    DROP COLUMN kind_paid_h,
    DROP COLUMN kind_expected_payout_mh,
    DROP COLUMN kind_variance_h2,
    DROP COLUMN kind_third_moment_h3;
