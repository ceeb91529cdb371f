-- Each finished game's result and the arena's games by game id, for
-- ListGames (server/src/list_games.rs): the same as the SQLite schema's eighth
-- migration (store/src/sqlite/schema.rs).

-- An encoded druids.Outcome; NULL for games that ended before this migration,
-- and for abandoned ones.
ALTER TABLE games ADD COLUMN outcome BYTEA;

CREATE INDEX match_games_game ON match_games(game_id);
