CREATE OR REPLACE FUNCTION dozor_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE missing TEXT;
BEGIN
    EXECUTE format('SELECT n.%1$I::text FROM new_rows n
                    WHERE NOT EXISTS (SELECT 1 FROM %2$I r WHERE r.%3$I = n.%1$I) LIMIT 1',
                   TG_ARGV[0], TG_ARGV[1], TG_ARGV[2])
        INTO missing;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'dozor: %.% % does not exist in %', TG_TABLE_NAME, TG_ARGV[0], missing, TG_ARGV[1]
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END;
$$;

DROP INDEX adjudications_by_played_at;
CREATE INDEX adjudications_by_time ON adjudications (played_at, game, table_id);

ALTER TABLE adjudications ALTER COLUMN verdict TYPE json USING verdict::json;
DO $$
BEGIN
    ALTER TABLE adjudications ALTER COLUMN verdict SET COMPRESSION lz4;
EXCEPTION WHEN invalid_parameter_value OR feature_not_supported THEN
    NULL;
END;
$$;
