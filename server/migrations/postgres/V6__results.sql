-- Each finished game's result and the arena's games by game id, for
-- ListGames (server/src/listing.rs): the same as the SQLite schema's seventh
-- migration (server/src/sqlite/mod.rs).

-- An encoded druids.Outcome; NULL for games that ended before this migration,
-- and for abandoned ones.
ALTER TABLE games ADD COLUMN outcome BYTEA;

CREATE INDEX match_games_game ON match_games(game_id);
