-- Tournaments (server/src/arena_store.rs, server/src/postgres/arena.rs): the
-- same as the SQLite schema's fifth migration (server/src/sqlite/mod.rs).

-- The tournament and round a match belongs to; both NULL for a match outside
-- any (as every match formed before this migration).
ALTER TABLE matches ADD COLUMN tournament_id TEXT COLLATE "C";
ALTER TABLE matches ADD COLUMN round INTEGER;

-- A tournament: its settings (an encoded druids.CreateTournamentRequest),
-- and once its last match is over, when. `seq` orders tournaments by
-- creation: an identity, so servers sharing the database never hand out the
-- same one.
CREATE TABLE tournaments (
    id               TEXT COLLATE "C" PRIMARY KEY,
    seq              BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    settings         BYTEA NOT NULL,
    created_unix_ms  BIGINT NOT NULL,
    finished_unix_ms BIGINT
);
