DROP TABLE round_kinds;
ALTER TABLE adjudications DROP COLUMN payout_third_moment_h3;
