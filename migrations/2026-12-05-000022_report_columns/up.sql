-- The figures reports sum or count, each in a column of its own: reports read columns, never
-- the verdict's JSON. Ingest writes them from the verdict it computed; `verify` derives them
-- again from the signed record and compares, as the other figures of a verdict.
ALTER TABLE adjudications
    -- A tournament's fee and what the operator added to reach its guarantee (0 in other games).
    ADD COLUMN tournament_fee_h BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN tournament_overlay_h BIGINT NOT NULL DEFAULT 0,
    -- A poker cash game's time collection: its bets are the players' payments for their seats.
    ADD COLUMN time_collection BOOLEAN NOT NULL DEFAULT false,
    -- The pocket (roulette) or segment index (money wheel) the spin stopped on; NULL for a void
    -- spin and in other games.
    ADD COLUMN wheel_result INTEGER;

-- The verdicts already stored, from their JSON: once, here. The rows stay insert-only; only
-- this migration's own updates pass the trigger, which is on again before it commits. A text
-- match first, so that only the verdicts that can hold a figure are parsed.
ALTER TABLE adjudications DISABLE TRIGGER adjudications_append_only;
UPDATE adjudications
   SET tournament_fee_h = coalesce((verdict::json -> 'tournament' ->> 'fee_h')::bigint, 0),
       tournament_overlay_h = coalesce((verdict::json -> 'tournament' ->> 'overlay_h')::bigint, 0)
 WHERE verdict LIKE '%"tournament"%';
UPDATE adjudications
   SET time_collection = true
 WHERE verdict LIKE '%"time_collection"%'
   AND verdict::json -> 'bets' -> 0 ->> 'kind' = 'time_collection';
UPDATE adjudications
   SET wheel_result = coalesce(verdict::json ->> 'segment', verdict::json ->> 'winning_number')::int
 WHERE verdict LIKE '%"segment"%' OR verdict LIKE '%"winning_number"%';
ALTER TABLE adjudications ENABLE TRIGGER adjudications_append_only;
