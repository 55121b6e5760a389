-- A game's play is known by a second encoding (sandglass_replay::play, "sandglass play
-- 2"): the seed and the events, leaving out the header's other fields, every dash and
-- where each throw was aimed, so that a stranger's copy re-stamped with another rules
-- version or ruleset, or with a dash slipped in, is the same play as the game it copies.
-- Every held game's play is worked out again from its bytes (plays::learn_older); until
-- none is left, a game sent is asked to wait (plays::all_known).
DELETE FROM play_marks;
UPDATE games SET play = NULL, commands = NULL;
CREATE INDEX games_play_unknown ON games (submitted_at) WHERE play IS NULL;
