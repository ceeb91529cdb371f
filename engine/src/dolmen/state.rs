//! The complete state of a Die Dolmengötter game, hidden dolmen values included.

use crate::Seat;

/// The whole game state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub players: u8,
    pub active: Seat,
    pub turn: u32,
}

impl State {
    pub fn pieces_conserved(&self) -> bool {
        todo!("helper")
    }
}
