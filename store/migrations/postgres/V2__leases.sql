-- Several nodes on one database (server/src/cluster/): which node owns each
-- game in play, and until when each node is alive.
--
-- A game's lease is its row here plus its owner's row in `nodes`: a node
-- renews the expiry of all its leases with one write to its own row. Every
-- takeover raises the game's epoch; an action or seat claim is committed only
-- under the game's current epoch (server/src/postgres/commit.rs), so a node
-- that lost a game cannot write to it any more.

-- A node: where its peers reach it, and until when its leases hold.
CREATE TABLE nodes (
    node_id    TEXT PRIMARY KEY,
    addr       TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);

-- The owner of a game and the epoch it holds the game under.
CREATE TABLE leases (
    game_id TEXT COLLATE "C" PRIMARY KEY REFERENCES games(id),
    node_id TEXT NOT NULL,
    epoch   BIGINT NOT NULL
);
CREATE INDEX leases_node ON leases(node_id);
