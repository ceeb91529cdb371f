//! `ListGames`: filters checked against the contract, newest first, in pages.
//!
//! A page token is the position of the last game of the page in the order
//! (creation time, then id) plus the filters it was given for, so paging is
//! stable while games are created and never mixes two queries. A page merges
//! the games in memory (in play, or ended within their grace period) with the
//! ended games of the store, so it blocks on the store: call it off the async
//! workers. A node of a cluster lists the games in play from the shared
//! database instead of its memory, so every node gives the same page.

use druids_contract::pb;

use crate::catalog::Catalog;
use crate::error::ServiceError;
use crate::rooms::Rooms;
use crate::store::EndedQuery;
use crate::store::Leases;

/// Games per page when the request does not say.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Most games per page.
pub const MAX_PAGE_SIZE: usize = 1000;

/// Where the previous page ended, and the query it belongs to.
#[derive(Debug, PartialEq, Eq)]
struct Cursor {
    kind: i32,
    status: i32,
    created_unix_ms: u64,
    game_id: String,
}

impl Cursor {
    fn token(&self) -> String {
        format!(
            "v1.{}.{}.{}.{}",
            self.kind, self.status, self.created_unix_ms, self.game_id
        )
    }

    fn parse(token: &str) -> Option<Cursor> {
        let mut parts = token.strip_prefix("v1.")?.splitn(4, '.');
        Some(Cursor {
            kind: parts.next()?.parse().ok()?,
            status: parts.next()?.parse().ok()?,
            created_unix_ms: parts.next()?.parse().ok()?,
            game_id: parts.next()?.to_owned(),
        })
    }
}

/// Newest first; ties by id.
fn order(a: &pb::GameSummary, b: &pb::GameSummary) -> std::cmp::Ordering {
    b.created_unix_ms
        .cmp(&a.created_unix_ms)
        .then_with(|| a.game_id.cmp(&b.game_id))
}

/// The page of this server's games that `req` asks for; with `shared`, the
/// games in play are those of the cluster's database.
pub fn list(
    rooms: &Rooms,
    shared: Option<&dyn Leases>,
    games: &Catalog,
    req: &pb::ListGamesRequest,
) -> Result<pb::ListGamesResponse, ServiceError> {
    let kind = match req.kind {
        0 => None,
        n => Some(games.parse(n)?),
    };
    if pb::GameStatus::try_from(req.status).is_err() {
        return Err(ServiceError::invalid(
            "status",
            format!("status {} is not a GameStatus of the contract", req.status),
        ));
    }
    let after = if req.page_token.is_empty() {
        None
    } else {
        let cursor = Cursor::parse(&req.page_token)
            .filter(|c| c.kind == req.kind && c.status == req.status)
            .ok_or_else(|| {
                ServiceError::invalid(
                    "page_token",
                    "page_token is not a next_page_token of this query (same kind and status)",
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
    let mut games: Vec<pb::GameSummary> = match shared {
        None => rooms
            .all()
            .iter()
            .map(|room| room.summary())
            .filter(wanted)
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
            shared.list_in_play(kind, req.status, after, size + 1)?
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
            limit: size + 1,
        };
        // An ended game still in memory is in the store too: memory's row wins.
        let in_memory: std::collections::HashSet<String> =
            games.iter().map(|g| g.game_id.clone()).collect();
        let stored = rooms.store().list_ended(&query)?;
        games.extend(
            stored
                .into_iter()
                .filter(|g| !in_memory.contains(&g.game_id) && wanted(g)),
        );
    }
    games.sort_by(order);
    let next_page_token = match games.get(size) {
        Some(_) => {
            let last = &games[size - 1];
            Cursor {
                kind: req.kind,
                status: req.status,
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
            created_unix_ms: 42,
            game_id: "a.b".into(),
        };
        assert_eq!(Cursor::parse(&c.token()), Some(c));
        assert_eq!(Cursor::parse("v2.1"), None);
    }

    fn rooms() -> Rooms {
        Rooms::new(
            std::sync::Arc::new(crate::MemoryStore::default()),
            crate::rooms::Lifecycle {
                max_in_play: 1,
                watch_all_live: false,
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
        assert!(matches!(
            list(&rooms(), None, &Catalog::default(), &req),
            Err(ServiceError::Invalid { field: "kind", .. })
        ));
        let req = pb::ListGamesRequest {
            status: -1,
            ..Default::default()
        };
        assert!(matches!(
            list(&rooms(), None, &Catalog::default(), &req),
            Err(ServiceError::Invalid {
                field: "status",
                ..
            })
        ));
    }
}
