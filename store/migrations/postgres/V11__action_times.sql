-- When each action was made (ms since the Unix epoch; 0 for those stored
-- before), so that a restart replays the turn clocks as they ran: a pending
-- decision keeps the deadline it was announced with (store/src/games.rs,
-- ActionRecord::at_ms). The same as SQLite's ninth migration.
ALTER TABLE actions ADD COLUMN at_ms BIGINT NOT NULL DEFAULT 0;
