-- The third central moment of the payouts (h³): its skewness tells how many rounds a game's
-- month needs before a 3σ flag can be trusted, as the casino's reports tell it. Zero for tallies
-- kept before the column existed.
ALTER TABLE monitor_tallies ADD COLUMN payout_third_moment_h3 DOUBLE PRECISION NOT NULL DEFAULT 0;
