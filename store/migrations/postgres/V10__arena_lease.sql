-- The arena's work on several nodes (server/src/arena_work/): one node at a
-- time forms matches, runs their clocks and tournaments and records results,
-- by a lease like a game's (V2__leases.sql): the row here names the owner and
-- the epoch it holds the arena under; the owner's row in `nodes` says until
-- when. Every takeover raises the epoch.
CREATE TABLE arena_lease (
    id      SMALLINT PRIMARY KEY CHECK (id = 1),
    node_id TEXT,
    epoch   BIGINT NOT NULL
);
INSERT INTO arena_lease (id, node_id, epoch) VALUES (1, NULL, 0);

-- Fencing: a node that holds the arena sets `druids.arena_fence` to
-- 'node:epoch' on the connections it writes the arena's tables with
-- (store/src/postgres/arena_lease.rs). A write under a fence that is not the
-- lease's any more is refused (SQLSTATE DRA01); the lease row is locked
-- (FOR SHARE) until the write commits, so a takeover, which updates it,
-- waits for the write: a write is either done before the new owner loads the
-- arena, or refused. Connections without a fence (a single server) are not
-- checked.
CREATE FUNCTION arena_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    fence TEXT := current_setting('druids.arena_fence', true);
BEGIN
    IF fence IS NOT NULL AND fence <> '' THEN
        PERFORM 1 FROM arena_lease
          WHERE id = 1 AND node_id || ':' || epoch = fence FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'the arena''s lease moved on from %', fence
                USING ERRCODE = 'DRA01';
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER bots_fenced BEFORE INSERT OR UPDATE OR DELETE ON bots
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER matches_fenced BEFORE INSERT OR UPDATE OR DELETE ON matches
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER match_games_fenced BEFORE INSERT OR UPDATE OR DELETE ON match_games
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER bot_events_fenced BEFORE INSERT OR UPDATE OR DELETE ON bot_events
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER tournaments_fenced BEFORE INSERT OR UPDATE OR DELETE ON tournaments
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER tournament_events_fenced BEFORE INSERT OR UPDATE OR DELETE ON tournament_events
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();
CREATE TRIGGER challenges_fenced BEFORE INSERT OR UPDATE OR DELETE ON challenges
    FOR EACH STATEMENT EXECUTE FUNCTION arena_fence();

-- What a node that does not hold the arena asks when a bot's key plays a seat
-- of an arena game it serves: the bot of a key (the match of a game has its
-- index, V8__results.sql).
CREATE INDEX bots_key_hash ON bots(key_hash);
