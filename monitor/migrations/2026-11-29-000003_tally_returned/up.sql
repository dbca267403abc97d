-- What void rounds paid back (their stakes returned): the RTP of a game's month counts the
-- payouts of the rounds played, as the casino's reports do, not the stakes a void round returns.
-- Zero for tallies kept before the column existed.
ALTER TABLE monitor_tallies ADD COLUMN returned_h BIGINT NOT NULL DEFAULT 0;
