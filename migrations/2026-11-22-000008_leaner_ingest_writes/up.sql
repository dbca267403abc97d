-- Three more per-record costs of ingest, with the same guarantees.

-- Verdicts are written only by dozor's serializer and never queried inside except for two small
-- fields of two reports. Parsing each one again on insert (the `json` type's check) was the
-- largest single cost left in PostgreSQL's share of ingest; `text` stores the same bytes (checked
-- to be UTF-8). What a verdict says is proven elsewhere: an inspection export carries every
-- verdict and `dozor verify` derives each one again from its signed record.
ALTER TABLE adjudications ALTER COLUMN verdict TYPE text USING verdict::text;
DO $$
BEGIN
    ALTER TABLE adjudications ALTER COLUMN verdict SET COMPRESSION lz4; -- a new type resets it
EXCEPTION WHEN invalid_parameter_value OR feature_not_supported THEN
    NULL;
END;
$$;

-- Reports read verdicts by a range of played_at, never in its order. Rounds arrive roughly in
-- time order, so a block-range (BRIN) index finds a day's rows as well as a B-tree did, and costs
-- next to nothing per inserted row instead of a three-column B-tree insert. A table that uploads
-- late only widens the ranges it lands in; results stay exact either way (BRIN only narrows
-- which blocks are read; every row read is still checked against the range).
DROP INDEX adjudications_by_time;
CREATE INDEX adjudications_by_played_at ON adjudications USING brin (played_at)
    WITH (autosummarize = on);

-- A COPY of entries names a handful of tables: look each up once, not once per row.
CREATE OR REPLACE FUNCTION dozor_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing TEXT;
BEGIN
    EXECUTE format('SELECT n.v::text FROM (SELECT DISTINCT %1$I AS v FROM new_rows) n
                    WHERE NOT EXISTS (SELECT 1 FROM %2$I r WHERE r.%3$I = n.v) LIMIT 1',
                   TG_ARGV[0], TG_ARGV[1], TG_ARGV[2])
        INTO missing;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'dozor: %.% % does not exist in %', TG_TABLE_NAME, TG_ARGV[0], missing, TG_ARGV[1]
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END;
$$;
