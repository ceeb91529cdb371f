-- The arena (server/src/arena_store.rs, server/src/postgres/arena.rs): the
-- same tables as the SQLite schema's fourth migration (server/src/sqlite/mod.rs).
--
-- `seq` orders bots by registration and matches by formation: an identity,
-- so servers sharing the database never hand out the same one. Games are
-- referred to by id only, with no foreign key: retention deletes old games
-- and leaves the arena's rows alone.

-- A registered bot; its name is unique (a taken name registers nothing).
CREATE TABLE bots (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    seq                BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    name               TEXT NOT NULL UNIQUE,
    description        TEXT NOT NULL,
    owner_contact      TEXT NOT NULL,
    key_hash           BYTEA NOT NULL,
    registered_unix_ms BIGINT NOT NULL
);

-- A match formed: its record (bots: a JSON list of ids in the first game's
-- seat order), and once over, when and its placements (a JSON list of
-- [bot_id, rank, score]).
CREATE TABLE matches (
    id               TEXT COLLATE "C" PRIMARY KEY,
    seq              BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    kind             INTEGER NOT NULL,
    rated            BOOLEAN NOT NULL,
    seed             BIGINT NOT NULL,
    options          BYTEA NOT NULL,
    bots             TEXT NOT NULL,
    games            INTEGER NOT NULL,
    created_unix_ms  BIGINT NOT NULL,
    finished_unix_ms BIGINT,
    placements       BYTEA
);

-- The games of a match, by index, as they are started.
CREATE TABLE match_games (
    match_id TEXT COLLATE "C" NOT NULL REFERENCES matches(id),
    idx      INTEGER NOT NULL,
    game_id  TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (match_id, idx)
);

-- Each bot's event log (encoded druids.BotEvent), by seq.
CREATE TABLE bot_events (
    bot_id TEXT COLLATE "C" NOT NULL REFERENCES bots(id),
    seq    BIGINT NOT NULL,
    event  BYTEA NOT NULL,
    PRIMARY KEY (bot_id, seq)
);
