-- A removed challenge leaves its row behind for a while, marked with when it
-- was removed (store/src/postgres/arena.rs): a save retried after a lost
-- connection, whose first attempt committed before another server removed
-- the challenge, must not bring it back. Rows removed over an hour ago are
-- deleted by later removals.
ALTER TABLE challenges ADD COLUMN removed_at TIMESTAMPTZ;
