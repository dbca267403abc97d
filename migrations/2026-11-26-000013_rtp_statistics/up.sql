-- Monthly RTP reports compare each bet kind with its theory and say how many rounds a 3σ flag
-- needs before it can be trusted: each round keeps its payout's third central moment and its
-- figures per bet kind, as JSON the rules computed (`verify` recomputes it).
ALTER TABLE adjudications ADD COLUMN statistics_detail text NOT NULL DEFAULT '{}';
ALTER TABLE adjudications ALTER COLUMN statistics_detail DROP DEFAULT;
