-- What anyone but a day's own players may see of a day: its commitment from the start,
-- its seed and salt only once the day is over (`day_is_over`, migration 5), empty
-- before. The one place that rule is written: the pages, the day's JSON and the live
-- stream read a day's seed from this view, never from `days`, so that no query can show
-- a seed early by leaving out the condition; and a game is refused while its seed is
-- one this view does not show yet. `days` itself is read for its seed only where the
-- server needs it for its own work or gives it to a run's player (the start of a run,
-- the fold of its stretches).
CREATE VIEW shown_days AS
    SELECT day, ruleset, rules_version, commitment,
           day_is_over(day) AS revealed,
           CASE WHEN day_is_over(day) THEN seed END AS seed,
           CASE WHEN day_is_over(day) THEN salt END AS salt
    FROM days;

-- The games the pages and the replay bytes show, as before, but asking the day of
-- `utc_today` (migration 5) where migration 2 wrote the clock out again: a finished
-- daily run is hidden until the day after its own, the first on which its day is over.
CREATE OR REPLACE VIEW shown_games AS
    SELECT * FROM games
    WHERE hidden_until IS NULL OR hidden_until <= utc_today();
