-- More of the arena (server/src/arena_store.rs, server/src/postgres/arena.rs):
-- the same as the SQLite schema's sixth migration (server/src/sqlite/mod.rs).

-- When a bot's key was revoked; NULL while it works (as for every bot
-- registered before this migration). A new key clears it.
ALTER TABLE bots ADD COLUMN revoked_unix_ms BIGINT;

-- Each tournament's event log (encoded druids.TournamentEvent), by seq.
CREATE TABLE tournament_events (
    tournament_id TEXT COLLATE "C" NOT NULL REFERENCES tournaments(id),
    seq           BIGINT NOT NULL,
    event         BYTEA NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

-- A challenge waiting for answers: its info (an encoded druids.ChallengeInfo)
-- and the opponents who accepted so far (a JSON list of bot ids, in the order
-- they did). `seq` orders challenges by when they were first saved: an
-- identity, so servers sharing the database never hand out the same one; a
-- replaced challenge keeps its row, so its seq.
CREATE TABLE challenges (
    id       TEXT COLLATE "C" PRIMARY KEY,
    seq      BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    info     BYTEA NOT NULL,
    accepted TEXT NOT NULL
);
