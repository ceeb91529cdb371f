-- The PostgreSQL schema of the druids store (server/src/postgres/): the same
-- tables, columns and indexes as the SQLite schema after its third migration
-- (server/src/sqlite/mod.rs). Applied once by refinery, in one transaction.
--
-- Game ids sort byte by byte ("C" collation), as the server and SQLite sort
-- them, whatever the database's locale: ListGames pages and exports resume
-- after an id.

-- A game: its creation record, and once it ended, when and at which version.
CREATE TABLE games (
    id              TEXT COLLATE "C" PRIMARY KEY,
    kind            INTEGER NOT NULL,
    players         INTEGER NOT NULL,
    seed            BIGINT NOT NULL,
    seed_chosen     BOOLEAN NOT NULL DEFAULT TRUE,
    options         BYTEA NOT NULL,
    created_unix_ms BIGINT NOT NULL,
    abandoned       TEXT,
    ended_unix_ms   BIGINT,
    version         BIGINT NOT NULL DEFAULT 0
);

-- Seats claimed, at creation or later (claim_no orders them).
CREATE TABLE seats (
    game_id    TEXT COLLATE "C" NOT NULL REFERENCES games(id),
    seat       SMALLINT NOT NULL,
    name       TEXT NOT NULL,
    token_hash BYTEA NOT NULL,
    at_create  BOOLEAN NOT NULL,
    claim_no   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- The append-only log: one row per applied action. `epoch` is for fencing
-- writers once several servers share the database (always 0 for now).
CREATE TABLE actions (
    game_id TEXT COLLATE "C" NOT NULL REFERENCES games(id),
    version BIGINT NOT NULL,
    seat    SMALLINT NOT NULL,
    origin  SMALLINT NOT NULL,
    action  BYTEA NOT NULL,
    request BYTEA NOT NULL,
    epoch   BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, version)
);

-- Request ids of retry-safe CreateGame/JoinGame calls.
CREATE TABLE requests (
    key         BYTEA PRIMARY KEY,
    fingerprint BYTEA NOT NULL,
    game_id     TEXT COLLATE "C" NOT NULL REFERENCES games(id),
    seat        SMALLINT,
    started     BOOLEAN NOT NULL,
    at_ms       BIGINT NOT NULL
);
CREATE INDEX requests_at ON requests(at_ms);
CREATE INDEX requests_game ON requests(game_id);

-- The server secret (key 'token_secret').
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);

-- Start-up reads the games in play, ListGames pages the ended ones, retention
-- finds old ones: each through its own partial index.
CREATE INDEX games_in_play ON games(created_unix_ms, id) WHERE ended_unix_ms IS NULL;
CREATE INDEX games_ended_list ON games(created_unix_ms DESC, id) WHERE ended_unix_ms IS NOT NULL;
CREATE INDEX games_ended_at ON games(ended_unix_ms) WHERE ended_unix_ms IS NOT NULL;
