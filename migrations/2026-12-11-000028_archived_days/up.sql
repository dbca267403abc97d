-- The figures of each gaming day an archive took (`dozor log archive`), kept when its rounds
-- leave the database: what the daily, monthly, tax and wheel reports summed of the day's rounds
-- (per table, bet kind and game), computed by the reports' own queries in the archive's
-- transaction. `figures` is a JSON document sealed into the ledger as a `report_published`
-- event (`sealed_index`); the reports of an archived day add them to what the ledger still
-- holds of the day (rounds received after the archive) and say so.
CREATE TABLE archived_days (
    gaming_day              DATE NOT NULL,
    starts_at               TIMESTAMPTZ NOT NULL,
    ends_at                 TIMESTAMPTZ NOT NULL CHECK (ends_at > starts_at),
    -- The figures are of the entries below this index (the archived range's end).
    below_index             BIGINT NOT NULL CHECK (below_index > 0),
    figures                 BYTEA NOT NULL,
    sealed_index            BIGINT NOT NULL CHECK (sealed_index >= 0),
    range_archived_index    BIGINT NOT NULL CHECK (range_archived_index > sealed_index),
    -- A later archive may take rounds of an archived day received after it (late rounds): the
    -- day then has a row per archive, each of its own entries, and the reports add them all.
    PRIMARY KEY (gaming_day, below_index)
);
CREATE INDEX archived_days_by_start ON archived_days (starts_at);
CREATE TRIGGER archived_days_append_only BEFORE UPDATE OR DELETE ON archived_days
    FOR EACH ROW EXECUTE FUNCTION dozor_refuse_change();
CREATE TRIGGER archived_days_no_truncate BEFORE TRUNCATE ON archived_days
    FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change();
GRANT SELECT ON archived_days TO dozor_writer;
