-- A round's bet-kind figures move into its verdict row: the kinds in order (the rules' order,
-- by name) and, for each figure, an array with an element per kind. A row per kind (5.75 a
-- roulette round, most of the rows ingest wrote, each with its own insert-time check) cost ingest
-- about 12 % against the same figures in the verdict's row, measured alternating
-- (docs/PERFORMANCE.md). The monthly report unnests them; `verify` compares them with what it
-- re-derives from each signed record, as before.
ALTER TABLE adjudications
    ADD COLUMN kind_names TEXT[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_bets BIGINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_stakes_h BIGINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_paid_h BIGINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_expected_payout_mh BIGINT[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_variance_h2 DOUBLE PRECISION[] NOT NULL DEFAULT '{}',
    ADD COLUMN kind_third_moment_h3 DOUBLE PRECISION[] NOT NULL DEFAULT '{}';

-- The rows kept so far, once, into their rounds' verdicts (kinds in byte order, as the rules
-- order them). The verdicts refuse UPDATE; only this migration, as the owner, sets them.
ALTER TABLE adjudications DISABLE TRIGGER adjudications_append_only;
UPDATE adjudications a
SET kind_names = k.kind_names, kind_bets = k.kind_bets, kind_stakes_h = k.kind_stakes_h,
    kind_paid_h = k.kind_paid_h, kind_expected_payout_mh = k.kind_expected_payout_mh,
    kind_variance_h2 = k.kind_variance_h2, kind_third_moment_h3 = k.kind_third_moment_h3
FROM (SELECT ledger_index,
             array_agg(kind ORDER BY kind COLLATE "C") AS kind_names,
             array_agg(bets ORDER BY kind COLLATE "C") AS kind_bets,
             array_agg(stakes_h ORDER BY kind COLLATE "C") AS kind_stakes_h,
             array_agg(paid_h ORDER BY kind COLLATE "C") AS kind_paid_h,
             array_agg(expected_payout_mh ORDER BY kind COLLATE "C") AS kind_expected_payout_mh,
             array_agg(variance_h2 ORDER BY kind COLLATE "C") AS kind_variance_h2,
             array_agg(third_moment_h3 ORDER BY kind COLLATE "C") AS kind_third_moment_h3
      FROM round_kinds GROUP BY ledger_index) k
WHERE a.ledger_index = k.ledger_index;
ALTER TABLE adjudications ENABLE TRIGGER adjudications_append_only;

-- Every verdict states its kinds: no default from here on.
ALTER TABLE adjudications
    ALTER COLUMN kind_names DROP DEFAULT,
    ALTER COLUMN kind_bets DROP DEFAULT,
    ALTER COLUMN kind_stakes_h DROP DEFAULT,
    ALTER COLUMN kind_paid_h DROP DEFAULT,
    ALTER COLUMN kind_expected_payout_mh DROP DEFAULT,
    ALTER COLUMN kind_variance_h2 DROP DEFAULT,
    ALTER COLUMN kind_third_moment_h3 DROP DEFAULT;
-- An element per kind in every figure, none of them NULL, one dimension.
ALTER TABLE adjudications ADD CONSTRAINT adjudications_an_element_per_kind CHECK (
    coalesce(array_ndims(kind_names), 1) = 1
    AND cardinality(kind_bets) = cardinality(kind_names)
    AND cardinality(kind_stakes_h) = cardinality(kind_names)
    AND cardinality(kind_paid_h) = cardinality(kind_names)
    AND cardinality(kind_expected_payout_mh) = cardinality(kind_names)
    AND cardinality(kind_variance_h2) = cardinality(kind_names)
    AND cardinality(kind_third_moment_h3) = cardinality(kind_names)
    AND array_position(kind_names, NULL) IS NULL
    AND array_position(kind_bets, NULL) IS NULL
    AND array_position(kind_stakes_h, NULL) IS NULL
    AND array_position(kind_paid_h, NULL) IS NULL
    AND array_position(kind_expected_payout_mh, NULL) IS NULL
    AND array_position(kind_variance_h2, NULL) IS NULL
    AND array_position(kind_third_moment_h3, NULL) IS NULL
);

-- A range of the bet-kind rows archived before this migration has already left (detached; the
-- operator drops it with its range, docs/OPERATIONS.md).
DROP TABLE round_kinds;

-- The growing tables' ranges are the entries' and the verdicts' only.
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
        FOREACH t IN ARRAY ARRAY['ledger_entries', 'adjudications'] LOOP
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
                WHERE i.inhparent IN ('ledger_entries'::regclass, 'adjudications'::regclass)
    LOOP
        EXECUTE format('DROP TABLE %I', part.name);
    END LOOP;
    UPDATE ledger_partitioning SET span = new_span;
    PERFORM dozor_ensure_partitions(new_span);
END;
$$;
