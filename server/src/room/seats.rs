//! Seats claimed after creation (`JoinGame`): the claim is stored first, then
//! the seat is taken, and the game starts once every seat is.

use druids_engine::Seat;

use super::{Room, SeatSlot};
use crate::auth::TokenHash;
use crate::error::ServiceError;
use crate::store::{Games, RequestRecord};

/// A claimed seat, as JoinGame answers it.
#[derive(Clone, Debug)]
pub struct Claimed {
    /// The seat.
    pub seat: Seat,
    /// Its display name.
    pub name: String,
    /// Whether this claim started the game.
    pub started: bool,
}

impl Room {
    /// Claims seat `wanted` (or the lowest open one) for `name`, storing the
    /// claim first; `mint` makes the seat's token (and the request record of a
    /// retry-safe call). Returns the claim and the token.
    pub fn claim(
        &self,
        wanted: Option<u32>,
        name: &str,
        games: &dyn Games,
        now_ms: u64,
        mint: impl FnOnce(Seat) -> (String, TokenHash, Option<RequestRecord>),
    ) -> Result<(Claimed, String, TokenHash), ServiceError> {
        let mut state = self.lock();
        if state.game.started() {
            return Err(ServiceError::NoOpenSeat(self.id.clone()));
        }
        let players = state.seats.len();
        let seat = match wanted {
            Some(s) if s as usize >= players => {
                return Err(ServiceError::invalid(
                    "seat",
                    format!(
                        "seat {s} does not exist: the game has seats 0 to {}",
                        players - 1
                    ),
                ));
            }
            Some(s) if state.seats[s as usize].token.is_some() => {
                return Err(ServiceError::SeatTaken(s));
            }
            Some(s) => s as usize,
            None => state
                .seats
                .iter()
                .position(|s| s.token.is_none())
                .expect("a game that has not started has an open seat"),
        };
        let seat = Seat(seat as u8);
        let name = if name.is_empty() {
            format!("seat {}", seat.0)
        } else {
            name.to_owned()
        };
        let started = state
            .seats
            .iter()
            .enumerate()
            .all(|(i, s)| i == seat.index() || s.token.is_some());
        let (token, hash, mut request) = mint(seat);
        if let Some(r) = &mut request {
            r.seat = Some(seat);
            r.started = started;
        }
        games.claim_seat(
            &self.id,
            seat,
            &name,
            &hash,
            request.as_ref(),
            self.setup.epoch,
        )?;
        state.seats[seat.index()] = SeatSlot {
            name: name.clone(),
            token: Some(hash),
        };
        state.game.seat_joined(seat, &name);
        state.last_activity_ms = now_ms;
        if started {
            state.game.start();
        }
        state.after_change(now_ms);
        self.announce(&state);
        Ok((
            Claimed {
                seat,
                name,
                started,
            },
            token,
            hash,
        ))
    }
}
