-- A player is a key: a name belongs to the first key that claims it, and a key plays
-- under one name. No password is stored.
CREATE TABLE players (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE,
    public_key text NOT NULL UNIQUE,
    joined_at timestamptz NOT NULL DEFAULT now()
);

-- A game sent to the server: its bytes are in object storage under `hash` (the SHA-256
-- of the bytes, so the same game sent twice is one row and one object). The header's
-- fields are what the bytes say, read when they were checked; nothing here is a score.
CREATE TABLE games (
    hash text PRIMARY KEY,
    player_id bigint NOT NULL REFERENCES players (id),
    size bigint NOT NULL,
    rules_version integer NOT NULL,
    ruleset text NOT NULL,
    seed text NOT NULL,
    events bigint NOT NULL,
    submitted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_by_player ON games (player_id, submitted_at);

-- The work to do: a game waiting for a verifier. A worker takes one with
-- SELECT ... FOR UPDATE SKIP LOCKED and deletes it in the transaction that writes its
-- verdict; a worker that dies rolls back, and the game waits for the next.
CREATE TABLE queue (
    game text PRIMARY KEY REFERENCES games (hash),
    queued_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX queue_by_age ON queue (queued_at);

-- What folding a game's log came to, written once (the primary key): `line` is what
-- `sandglass verify` prints of it. The score's columns are the fold's, never a client's,
-- and are empty for a game refused; `outcome` is empty for a game still in play.
CREATE TABLE verdicts (
    game text PRIMARY KEY REFERENCES games (hash),
    ok boolean NOT NULL,
    line text NOT NULL,
    final_hash text,
    outcome text CHECK (outcome IN ('won', 'died', 'quit')),
    depth integer,
    turns bigint,
    kills integer,
    points bigint,
    verified_at timestamptz NOT NULL DEFAULT now(),
    CHECK (ok = (final_hash IS NOT NULL))
);
CREATE INDEX verdicts_ranked ON verdicts (points DESC, turns) WHERE ok AND outcome IS NOT NULL;

-- Token buckets for the limits on submissions, one per address and one per key: kept
-- here so that every server process counts against the same limits.
CREATE TABLE buckets (
    name text PRIMARY KEY,
    tokens double precision NOT NULL,
    refilled_at timestamptz NOT NULL
);
