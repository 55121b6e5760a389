-- A dealt run (`dealt`): the server keeps the day's seed and deals the draws its game
-- needs, a command at a time, so that its player never holds the seed while the day
-- lasts. Every run before this migration sent its own draws (the seed was handed over at
-- its start): false.
ALTER TABLE runs ADD COLUMN dealt boolean NOT NULL DEFAULT false;
