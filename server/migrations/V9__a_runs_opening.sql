-- A run's opening (sandglass_replay::play: the digest of its first 50 commands and their
-- draws) and when the server kept it (openings::note). Of two players' runs of one
-- desert that share it, the one that kept it first owns those moves; the other copied
-- them (watched live, say), and `copied_from` names the first: it is never ranked, and
-- its game never shown.
ALTER TABLE runs ADD COLUMN opening text;
ALTER TABLE runs ADD COLUMN opening_at timestamptz;
ALTER TABLE runs ADD COLUMN copied_from bigint REFERENCES runs (id);
CREATE INDEX runs_by_opening ON runs (day, ruleset, opening);
