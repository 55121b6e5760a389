-- A UTC day's desert for one ruleset: its seed, made from the system's randomness when
-- the day is first asked for and never changed, kept secret until the day is over; and
-- the commitment to it, published from the start: the SHA-256 of the line
-- `sandglass daily DAY RULESET SEED SALT`, which anyone can check once the seed and salt
-- are shown. The salt keeps the seed from being found by trying every one.
CREATE TABLE days (
    day date NOT NULL,
    ruleset text NOT NULL,
    rules_version integer NOT NULL,
    seed text NOT NULL,
    salt text NOT NULL,
    commitment text NOT NULL,
    made_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (day, ruleset)
);

-- A daily run: one per player, day and ruleset, streamed as it is played. `events` is
-- how many of its events the server holds, all checked by folding; `turns`, `depth`
-- and `outcome` are that fold's. `refused` says why the stream was stopped (an event
-- that does not fold, at `refused_at`); `game` is the finished run as a replay, sent to
-- the verifiers as any game is.
CREATE TABLE runs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    day date NOT NULL,
    ruleset text NOT NULL,
    player_id bigint NOT NULL REFERENCES players (id),
    started_at timestamptz NOT NULL DEFAULT now(),
    events bigint NOT NULL DEFAULT 0,
    turns bigint NOT NULL DEFAULT 0,
    depth integer NOT NULL DEFAULT 1,
    outcome text CHECK (outcome IN ('won', 'died', 'quit')),
    refused text,
    refused_at bigint,
    game text REFERENCES games (hash),
    last_event_at timestamptz,
    UNIQUE (day, ruleset, player_id),
    FOREIGN KEY (day, ruleset) REFERENCES days (day, ruleset) ON UPDATE CASCADE
);
CREATE INDEX runs_of_a_day ON runs (day, ruleset);

-- A run's events as they came, in stretches: `first` is the index of a stretch's first
-- event, `bytes` its events as sandglass_replay::events_to_bytes writes them, `turn` the
-- game's turn after it (what a delayed live view counts by).
CREATE TABLE run_events (
    run bigint NOT NULL REFERENCES runs (id),
    first bigint NOT NULL,
    count bigint NOT NULL CHECK (count > 0),
    turn bigint NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (run, first)
);

-- A finished daily run is a game like any other, but its header holds the day's seed:
-- its bytes, its page and its place on the boards wait until the day is over.
ALTER TABLE games ADD COLUMN hidden_until date;

-- The games the pages and the replay bytes show: every one but a daily run whose day
-- is not over yet. The one place that rule is written.
CREATE VIEW shown_games AS
    SELECT * FROM games
    WHERE hidden_until IS NULL OR hidden_until <= (now() AT TIME ZONE 'UTC')::date;
