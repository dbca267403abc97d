-- The table records followed, as runs of consecutive seq_nos per table: a table's seq_nos come
-- almost always as one increasing run, so a table costs a row per gap in its seq_nos (plus one),
-- not a row per record. Each run keeps the index of its first and of its last seq_no; the
-- exact index of a seq_no inside a run is not kept (a replay of one is told by its run).
-- This is the monitor's state, not evidence: a bundle that extends or joins runs replaces their
-- rows, so the table has no append-only trigger.
-- seq_no is a JSON integer from 0 to 2^53-1 (rules::MAX_SEQ_NO), within BIGINT.
CREATE TABLE monitor_record_runs (
    casino       TEXT NOT NULL REFERENCES monitor_casinos (casino),
    table_id     TEXT NOT NULL,
    first_seq    BIGINT NOT NULL CHECK (first_seq >= 0),
    last_seq     BIGINT NOT NULL CHECK (last_seq >= first_seq),
    first_index  BIGINT NOT NULL CHECK (first_index >= 0),
    last_index   BIGINT NOT NULL CHECK (last_index >= 0),
    PRIMARY KEY (casino, table_id, first_seq)
);

-- The records kept one a row become their runs (gaps and islands: within a run of consecutive
-- seq_nos, seq_no minus its rank is the same), each with the index of its first and last seq_no.
WITH islands AS (
    SELECT casino, table_id, seq_no,
           seq_no - row_number() OVER (PARTITION BY casino, table_id ORDER BY seq_no) AS island
    FROM monitor_rounds
), runs AS (
    SELECT casino, table_id, min(seq_no) AS first_seq, max(seq_no) AS last_seq
    FROM islands
    GROUP BY casino, table_id, island
)
INSERT INTO monitor_record_runs (casino, table_id, first_seq, last_seq, first_index, last_index)
SELECT r.casino, r.table_id, r.first_seq, r.last_seq, f.ledger_index, l.ledger_index
FROM runs r
JOIN monitor_rounds f ON f.casino = r.casino AND f.table_id = r.table_id AND f.seq_no = r.first_seq
JOIN monitor_rounds l ON l.casino = r.casino AND l.table_id = r.table_id AND l.seq_no = r.last_seq;

-- Its triggers go with it.
DROP TABLE monitor_rounds;
