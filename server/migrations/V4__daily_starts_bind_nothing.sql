-- A daily start binds nothing until its run's first stretch lands: the name and key it
-- claimed wait in the run (`player_id` empty meanwhile), and a start that never streams
-- is forgotten after a while. A key has at most one such start a day and ruleset.
ALTER TABLE runs ALTER COLUMN player_id DROP NOT NULL;
ALTER TABLE runs ADD COLUMN claimed_name text;
ALTER TABLE runs ADD COLUMN claimed_key text;
ALTER TABLE runs ADD CHECK ((player_id IS NULL) = (claimed_key IS NOT NULL));
CREATE UNIQUE INDEX runs_started_by_key ON runs (day, ruleset, claimed_key)
    WHERE player_id IS NULL;
