ALTER TABLE monitor_tallies DROP COLUMN payout_third_moment_h3;
