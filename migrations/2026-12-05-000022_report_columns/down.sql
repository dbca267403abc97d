ALTER TABLE adjudications
    DROP COLUMN wheel_result,
    DROP COLUMN time_collection,
    DROP COLUMN tournament_overlay_h,
    DROP COLUMN tournament_fee_h;
