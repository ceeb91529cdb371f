//! `ListGames`: filters checked against the contract, newest first, in pages.
//!
//! A page token is the position of the last game of the page in the order
//! (creation time, then id) plus the filters it was given for, so paging is
//! stable while games are created and never mixes two queries. A page merges
//! the games in memory (in play, or ended within their grace period) with the
//! ended games of the store, so it blocks on the store: call it off the async
//! workers. A node of a cluster lists the games in play from the shared
//! database instead of its memory, so every node gives the same page.
//!
//! The arena's filters (a bot's games, a tournament's, arena or not, rated or
//! not) read the games' matches: the arena's tags for the games in memory
//! (those of matches being played), the store's match tables for ended ones,
//! whose row (with its result and match) is the one listed.

use std::collections::HashMap;

use druids_contract::pb;
use sha2::{Digest, Sha256};

use crate::catalog::Catalog;
use crate::error::ServiceError;
use crate::rooms::Rooms;
use crate::store::Leases;
use crate::store::{ArenaFilter, EndedQuery, MatchTag};

/// Games per page when the request does not say.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Most games per page.
pub const MAX_PAGE_SIZE: usize = 1000;

/// Where the previous page ended, and the query it belongs to.
#[derive(Debug, PartialEq, Eq)]
struct Cursor {
    kind: i32,
    status: i32,
    /// A digest of the arena's filters ("" without any: the tokens of
    /// servers before them stay valid).
    filters: String,
    created_unix_ms: u64,
    game_id: String,
}

impl Cursor {
    fn token(&self) -> String {
        if self.filters.is_empty() {
            format!(
                "v1.{}.{}.{}.{}",
                self.kind, self.status, self.created_unix_ms, self.game_id
            )
        } else {
            format!(
                "v2.{}.{}.{}.{}.{}",
                self.kind, self.status, self.filters, self.created_unix_ms, self.game_id
            )
        }
    }

    fn parse(token: &str) -> Option<Cursor> {
        let cursor = Cursor::read(token)?;
        // Only the very string given out (no sign, no leading zero), after a
        // game whose id could be one.
        (cursor.token() == token && cursor.game_id.len() <= crate::bounds::game::MAX_GAME_ID)
            .then_some(cursor)
    }

    fn read(token: &str) -> Option<Cursor> {
        let (filtered, rest) = match token.split_once('.')? {
            ("v1", rest) => (false, rest),
            ("v2", rest) => (true, rest),
            _ => return None,
        };
        let mut parts = rest.splitn(if filtered { 5 } else { 4 }, '.');
        Some(Cursor {
            kind: parts.next()?.parse().ok()?,
            status: parts.next()?.parse().ok()?,
            filters: if filtered {
                parts.next()?.to_owned()
            } else {
                String::new()
            },
            created_unix_ms: parts.next()?.parse().ok()?,
            game_id: parts.next()?.to_owned(),
        })
    }
}

/// The arena's filters of `req`, checked.
fn arena_filter(req: &pb::ListGamesRequest) -> Result<ArenaFilter, ServiceError> {
    // Bot and tournament ids are 16 hex digits.
    let id = |field: &'static str, value: &str| -> Result<Option<String>, ServiceError> {
        if value.is_empty() {
            return Ok(None);
        }
        crate::bounds::arena::check_id(field, value)?;
        Ok(Some(value.to_ascii_lowercase()))
    };
    Ok(ArenaFilter {
        bot_id: id("bot_id", &req.bot_id)?,
        tournament_id: id("tournament_id", &req.tournament_id)?,
        arena: req.arena,
        rated: req.rated,
    })
}

/// What a page token says of the arena's filters: a short digest.
fn digest(f: &ArenaFilter) -> String {
    if f.is_empty() {
        return String::new();
    }
    let hash = Sha256::digest(format!("{f:?}"));
    hash[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Newest first; ties by id.
fn order(a: &pb::GameSummary, b: &pb::GameSummary) -> std::cmp::Ordering {
    b.created_unix_ms
        .cmp(&a.created_unix_ms)
        .then_with(|| a.game_id.cmp(&b.game_id))
}

/// The page of this server's games that `req` asks for; with `shared`, the
/// games in play are those of the cluster's database. `tags` are the arena's
/// tags of the games of the matches it is playing.
pub fn list(
    rooms: &Rooms,
    shared: Option<&dyn Leases>,
    catalog: &Catalog,
    tags: &HashMap<String, MatchTag>,
    req: &pb::ListGamesRequest,
) -> Result<pb::ListGamesResponse, ServiceError> {
    let kind = match req.kind {
        0 => None,
        n => Some(catalog.parse(n)?),
    };
    if pb::GameStatus::try_from(req.status).is_err() {
        return Err(ServiceError::invalid(
            "status",
            format!("status {} is not a GameStatus of the contract", req.status),
        ));
    }
    let filter = arena_filter(req)?;
    let filters = digest(&filter);
    let after = if req.page_token.is_empty() {
        None
    } else {
        let cursor = Cursor::parse(&req.page_token)
            .filter(|c| c.kind == req.kind && c.status == req.status && c.filters == filters)
            .ok_or_else(|| {
                ServiceError::invalid(
                    "page_token",
                    "page_token is not a next_page_token given to this query: send it back as \
                     received, with the same filters",
                )
            })?;
        Some(pb::GameSummary {
            game_id: cursor.game_id,
            created_unix_ms: cursor.created_unix_ms,
            ..Default::default()
        })
    };
    let size = match req.page_size as usize {
        0 => DEFAULT_PAGE_SIZE,
        n => n.min(MAX_PAGE_SIZE),
    };
    let wanted = |g: &pb::GameSummary| {
        kind.is_none_or(|k| g.kind == k.number())
            && (req.status == 0 || g.status == req.status)
            && after
                .as_ref()
                .is_none_or(|a| order(a, g) == std::cmp::Ordering::Less)
    };
    let status = pb::GameStatus::try_from(req.status).unwrap_or_default();
    let tagged = |mut g: pb::GameSummary| {
        // An ended game's match may be over, and so no longer tagged: with
        // the arena's filters, ended games are the store's alone (a game's
        // end is stored before anyone sees it).
        let ended = g.status == pb::GameStatus::Finished as i32
            || g.status == pb::GameStatus::Abandoned as i32;
        if ended && !filter.is_empty() {
            return None;
        }
        let tag = tags.get(&g.game_id);
        if let Some(t) = tag {
            g.match_id = t.match_id.clone();
            g.rated = t.rated;
        }
        filter.admits(tag).then_some(g)
    };
    let mut games: Vec<pb::GameSummary> = match shared {
        None => rooms
            .all()
            .iter()
            .map(|room| room.summary())
            .filter(wanted)
            .filter_map(tagged)
            .collect(),
        Some(shared)
            if matches!(
                status,
                pb::GameStatus::Unspecified
                    | pb::GameStatus::WaitingForPlayers
                    | pb::GameStatus::Running
            ) =>
        {
            let after = after
                .as_ref()
                .map(|a| (a.created_unix_ms, a.game_id.clone()));
            // Filtered, and tagged with their matches, by the database.
            shared.list_in_play(kind, req.status, &filter, after, size + 1)?
        }
        Some(_) => Vec::new(),
    };
    if matches!(
        status,
        pb::GameStatus::Unspecified | pb::GameStatus::Finished | pb::GameStatus::Abandoned
    ) {
        let query = EndedQuery {
            kind,
            status: Some(status).filter(|s| *s != pb::GameStatus::Unspecified),
            after: after
                .as_ref()
                .map(|a| (a.created_unix_ms, a.game_id.clone())),
            arena: filter.clone(),
            limit: size + 1,
        };
        // An ended game still in memory is in the store too, which knows its
        // match: the store's row wins.
        let stored: Vec<pb::GameSummary> = rooms
            .store()
            .list_ended(&query)?
            .into_iter()
            .filter(|g| wanted(g))
            .collect();
        let ids: std::collections::HashSet<&str> =
            stored.iter().map(|g| g.game_id.as_str()).collect();
        games.retain(|g| !ids.contains(g.game_id.as_str()));
        games.extend(stored);
    }
    games.sort_by(order);
    let next_page_token = match games.get(size) {
        Some(_) => {
            let last = &games[size - 1];
            Cursor {
                kind: req.kind,
                status: req.status,
                filters,
                created_unix_ms: last.created_unix_ms,
                game_id: last.game_id.clone(),
            }
            .token()
        }
        None => String::new(),
    };
    games.truncate(size);
    Ok(pb::ListGamesResponse {
        games,
        next_page_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_with_dots_in_ids() {
        let c = Cursor {
            kind: 1,
            status: 0,
            filters: String::new(),
            created_unix_ms: 42,
            game_id: "a.b".into(),
        };
        assert_eq!(Cursor::parse(&c.token()), Some(c));
        let filtered = Cursor {
            kind: 1,
            status: 0,
            filters: "00ff00ff00ff00ff".into(),
            created_unix_ms: 42,
            game_id: "a.b".into(),
        };
        assert!(filtered.token().starts_with("v2."));
        assert_eq!(Cursor::parse(&filtered.token()), Some(filtered));
        assert_eq!(Cursor::parse("v2.1"), None);
        assert_eq!(Cursor::parse("v1.01.0.42.a"), None);
        assert_eq!(Cursor::parse("v1.1.0.+42.a"), None);
        assert_eq!(
            Cursor::parse(&format!("v1.1.0.42.{}", "a".repeat(65))),
            None
        );
        assert_eq!(Cursor::parse("v3.1.0.42.a"), None);
    }

    fn rooms() -> Rooms {
        Rooms::new(
            std::sync::Arc::new(crate::MemoryStore::default()),
            crate::rooms::Lifecycle {
                max_in_play: 1,
                max_in_play_per_address: 0,
                evict_after_ms: 0,
                recent_games: 1,
                retain_ms: None,
            },
        )
    }

    #[test]
    fn unknown_filters_are_refused() {
        let req = pb::ListGamesRequest {
            kind: 99,
            ..Default::default()
        };
        let refused = list(&rooms(), None, &Catalog::default(), &HashMap::new(), &req);
        assert_eq!(refused.unwrap_err().field(), Some("kind"));
        let req = pb::ListGamesRequest {
            status: -1,
            ..Default::default()
        };
        let refused = list(&rooms(), None, &Catalog::default(), &HashMap::new(), &req);
        assert_eq!(refused.unwrap_err().field(), Some("status"));
        let req = pb::ListGamesRequest {
            bot_id: "not.a.bot".into(),
            ..Default::default()
        };
        let refused = list(&rooms(), None, &Catalog::default(), &HashMap::new(), &req);
        assert_eq!(refused.unwrap_err().field(), Some("bot_id"));
    }
}
