//! The bounds of `DruidsService` requests (and so of `POST /api/v1/...`).
//!
//! A game's seat count comes from its engine (Meduris 2-4, Die Dolmengötter
//! 2-5), so no per-seat vector is ever sized by a client's number. Page sizes
//! above their maximum are read as the maximum (as AIP-158 asks); an action's
//! own fields are bounded by its game's codec when it is decoded.

use druids_contract::{Kind, pb};

use super::{Bounded, at_most, at_most_bytes, printable, within};
use crate::error::ServiceError;

/// Longest display name of a seat.
pub const MAX_NAME_BYTES: usize = 64;
/// Longest idempotency key.
pub const MAX_KEY_BYTES: usize = 128;
/// Longest request id.
pub const MAX_REQUEST_ID_BYTES: usize = 128;
/// Most turns the `max_turns` safeguard may allow.
pub const MAX_TURNS: u32 = 10_000;
/// Longest turn clock per decision, ms (an hour).
pub const MAX_DECISION_MS: u32 = 3_600_000;
/// Largest time bank, ms (a day).
pub const MAX_TIME_BANK_MS: u32 = 86_400_000;
/// Most consecutive timeouts before autopilot that may be asked for.
pub const MAX_AUTOPILOT_AFTER: u32 = 1_000;

/// The seat counts game `kind` is played with (its descriptor's);
/// INVALID_ARGUMENT (`kind`) for no game this build knows.
pub fn players_of(kind: i32) -> Result<std::ops::RangeInclusive<u32>, ServiceError> {
    let game = Kind::from_number(kind)?.descriptor();
    Ok((game.min_players() as u32)..=(game.max_players() as u32))
}

/// Most seats of any game: a seat number is below it.
pub fn max_seats() -> u32 {
    Kind::built()
        .map(|k| k.descriptor().max_players() as u32)
        .max()
        .unwrap_or(0)
}

/// Seat `seat` of a request, checked before its game is read: within the
/// largest game's seats (the game's own are checked once it is read).
fn some_game_has(seat: u32) -> Result<(), ServiceError> {
    let max = max_seats();
    if seat < max {
        return Ok(());
    }
    Err(ServiceError::invalid(
        "seat",
        format!(
            "seat {seat} does not exist in any game (no game has more than {max} seats); \
             a game's seats are numbered from 0 to its number of players minus one"
        ),
    ))
}

/// The longest game id looked up: the server's ids are 16 hex digits, so a
/// longer one is refused before any store is asked.
pub const MAX_GAME_ID: usize = 64;

/// A game id is required and at most [`MAX_GAME_ID`] bytes (an unknown one
/// is NOT_FOUND).
pub fn check_game_id(id: &str) -> Result<(), ServiceError> {
    if id.is_empty() {
        return Err(ServiceError::invalid("game_id", "game_id is required"));
    }
    if id.len() > MAX_GAME_ID {
        return Err(ServiceError::invalid(
            "game_id",
            format!(
                "game_id is {} bytes, longer than any game's id (at most {MAX_GAME_ID})",
                id.len()
            ),
        ));
    }
    Ok(())
}

/// The options of a game of `players` seats.
fn check_options(o: &pb::GameOptions, players: u32) -> Result<(), ServiceError> {
    if let Some(s) = o.start_seat {
        within("options.start_seat", s, 0..=players.saturating_sub(1))?;
    }
    if let Some(t) = o.max_turns {
        within("options.max_turns", t, 1..=MAX_TURNS)?;
    }
    if let Some(ms) = o.decision_ms {
        within("options.decision_ms", ms, 0..=MAX_DECISION_MS)?;
    }
    if let Some(ms) = o.time_bank_ms {
        within("options.time_bank_ms", ms, 0..=MAX_TIME_BANK_MS)?;
    }
    if let Some(n) = o.autopilot_after {
        within("options.autopilot_after", n, 0..=MAX_AUTOPILOT_AFTER)?;
    }
    Ok(())
}

impl Bounded for pb::CreateGameRequest {
    fn check(&self) -> Result<(), ServiceError> {
        at_most_bytes("request_id", &self.request_id, MAX_REQUEST_ID_BYTES)?;
        // With start_from, the replay names the game and its seats.
        let (kind, players) = match self.start_from.as_ref().and_then(|s| s.replay.as_ref()) {
            Some(replay) => (replay.kind, replay.players),
            None => (self.kind, self.players),
        };
        let field = if self.start_from.is_some() {
            "start_from.replay.players"
        } else {
            "players"
        };
        let range = players_of(kind)?;
        if !range.contains(&players) {
            let name = Kind::from_number(kind).map_or("the game", Kind::name);
            let e = druids_engine::SetupError::PlayerCount {
                game: name,
                min: *range.start() as usize,
                max: *range.end() as usize,
                got: players as usize,
            };
            return Err(ServiceError::invalid(field, e.to_string()));
        }
        if let Some(start) = &self.start_from {
            let Some(replay) = &start.replay else {
                return Err(ServiceError::invalid(
                    "start_from.replay",
                    "start_from.replay is required",
                ));
            };
            if let Some(o) = &replay.options {
                check_options(o, players)?;
            }
            for a in &replay.actions {
                within("start_from.replay.actions.seat", a.seat, 0..=players - 1)?;
            }
            within(
                "start_from.actions",
                start.actions as usize,
                0..=replay.actions.len(),
            )?;
        }
        if let Some(o) = &self.options {
            check_options(o, players)?;
        }
        at_most("seat_names", &self.seat_names, players as usize)?;
        for name in &self.seat_names {
            at_most_bytes("seat_names", name, MAX_NAME_BYTES)?;
            printable("seat_names", name)?;
        }
        at_most("open_seats", &self.open_seats, players as usize)?;
        for &s in &self.open_seats {
            within("open_seats", s, 0..=players - 1)?;
        }
        Ok(())
    }
}

impl Bounded for pb::JoinGameRequest {
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)?;
        if let Some(s) = self.seat {
            some_game_has(s)?;
        }
        at_most_bytes("name", &self.name, MAX_NAME_BYTES)?;
        printable("name", &self.name)?;
        at_most_bytes("request_id", &self.request_id, MAX_REQUEST_ID_BYTES)
    }
}

impl Bounded for pb::GetLegalActionsRequest {
    /// `page_size` above its maximum is read as the maximum (crate::legal).
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)
    }
}

impl Bounded for pb::SubmitActionRequest {
    /// `legal_action_id` names an entry of the list or is refused by the
    /// room; `expected_version` is any version (ABORTED when stale); the
    /// action is bounded by its game's codec.
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)?;
        at_most_bytes("idempotency_key", &self.idempotency_key, MAX_KEY_BYTES)
    }
}

impl Bounded for pb::ResignRequest {
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)?;
        at_most_bytes("idempotency_key", &self.idempotency_key, MAX_KEY_BYTES)
    }
}

impl Bounded for pb::StreamEventsRequest {
    /// `from_seq` beyond the log's end + 1 is refused by the room.
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)
    }
}

impl Bounded for pb::GetStateRequest {
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)
    }
}

impl Bounded for pb::ExportReplayRequest {
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)
    }
}

impl Bounded for pb::ListGamesRequest {
    /// The filters are checked against the contract's enums by the listing;
    /// `page_size` above its maximum is read as the maximum.
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::GetReplayViewsRequest {
    /// `from_version` is bounded by the game's own length, when it is read;
    /// `page_size` above its maximum is read as the maximum.
    fn check(&self) -> Result<(), ServiceError> {
        check_game_id(&self.game_id)?;
        if let Some(seat) = self.seat {
            some_game_has(seat)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(players: u32) -> pb::CreateGameRequest {
        pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players,
            ..Default::default()
        }
    }

    #[test]
    fn seat_counts_come_from_the_engines() {
        assert_eq!(players_of(pb::GameKind::Dolmen as i32).unwrap(), 2..=5);
        assert_eq!(max_seats(), 5);
        assert!(players_of(0).is_err());
        create(4).check().unwrap();
        for bad in [0, 1, 5, u32::MAX] {
            assert!(create(bad).check().is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_and_options_are_bounded_before_anything_is_built() {
        let mut req = create(2);
        req.open_seats = vec![0, 1, 1];
        assert!(req.check().is_err());
        req.open_seats = vec![u32::MAX];
        assert!(req.check().is_err());
        let mut req = create(2);
        req.options = Some(pb::GameOptions {
            max_turns: Some(u32::MAX),
            ..Default::default()
        });
        assert!(req.check().is_err());
        let mut req = create(2);
        req.start_from = Some(pb::StartFrom {
            replay: Some(pb::Replay {
                kind: pb::GameKind::Meduris as i32,
                players: u32::MAX,
                ..Default::default()
            }),
            actions: 0,
        });
        req.players = 0;
        req.kind = 0;
        let e = req.check().unwrap_err();
        assert_eq!(e.field(), Some("start_from.replay.players"), "{e}");
    }
}
