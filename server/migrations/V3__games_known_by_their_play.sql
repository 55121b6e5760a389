-- A game is known by its play (sandglass_replay::play), not its bytes: two files that
-- fold the same way are one game, the first sender's. `play` is the digest of the whole
-- play, `commands` how many commands it holds; both are empty only for a game kept
-- before this version, until the server works them out from its bytes.
ALTER TABLE games ADD COLUMN play text;
ALTER TABLE games ADD COLUMN commands bigint;
CREATE INDEX games_by_play ON games (play);

-- The digests of a game's first events, up to the end of each of its first commands'
-- draws: how a game that begins with another's moves is found.
CREATE TABLE play_marks (
    game text NOT NULL REFERENCES games (hash),
    commands integer NOT NULL,
    digest text NOT NULL,
    PRIMARY KEY (game, commands)
);
CREATE INDEX play_marks_by_digest ON play_marks (digest);
