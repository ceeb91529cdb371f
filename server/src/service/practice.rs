//! The games of the viewer's practice page, made and found again: a practice
//! game is a client's game like any other, except that the seats of the
//! server's bots hold tokens the server can derive again and names that say
//! their strategy, so that its bots play on after a restart or a takeover
//! (`crate::practice_bots`).

use druids_bots::Strategy;
use druids_contract::{Kind, pb};
use druids_engine::Seat;
use std::sync::Arc;
use tokio::sync::mpsc;
use tonic::{Request, Status};

use super::Service;
use crate::bounds::checked;
use crate::room::Room;

impl Service {
    /// CreateGame for a practice game: seat 0 the person's, every other seat
    /// the server's bots' ([`crate::lobby::Lobby::create_practice`]); made on
    /// this node, within the caller's quotas as any CreateGame.
    pub async fn create_practice_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<pb::CreateGameResponse, Status> {
        let caller = self.caller(&request)?;
        let request = self.refused(checked(request))?;
        self.refused(self.setup(&caller))?;
        let (lobby, address) = (Arc::clone(&self.lobby), caller.peer);
        let req = request.into_parts().2;
        let created = self
            .off_the_workers(move || lobby.create_practice(req, address))
            .await?;
        Ok(self.refused(created)?)
    }

    /// The practice game `id`, if it is in play in this server's memory.
    pub fn practice_game(&self, id: &str) -> Option<PracticeGame> {
        let room = self.rooms.in_memory(id).ok().flatten()?;
        self.practice_game_of(&room)
    }

    /// The practice games in play in this server's memory.
    pub fn practice_games(&self) -> Vec<PracticeGame> {
        let rooms = self.rooms.all();
        rooms
            .iter()
            .filter_map(|r| self.practice_game_of(r))
            .collect()
    }

    /// The ids of the games in play rebuilt from the store from now on
    /// (taken over from another node); only the first caller is told.
    pub fn rebuilt_games(&self) -> Option<mpsc::UnboundedReceiver<String>> {
        self.rooms.rebuilt_games()
    }

    /// `room`'s game if it is a practice game in play: its seats but the
    /// first are named as the server names its bots ([`seat_name`]), a
    /// cheap test passed first, and hold the tokens it derives for them.
    fn practice_game_of(&self, room: &Room) -> Option<PracticeGame> {
        if !room.is_live() {
            return None;
        }
        let bots = room
            .summary()
            .seats
            .into_iter()
            .skip(1)
            .map(|s| {
                let seat = Seat(u8::try_from(s.seat).ok()?);
                let strategy = strategy_of(&s.name, seat)?;
                let (token, hash) = self.lobby.practice_bot_token(&room.id, seat);
                (room.seat_of(&hash) == Some(seat)).then_some(PracticeBot { token, strategy })
            })
            .collect::<Option<Vec<_>>>()?;
        (!bots.is_empty()).then(|| PracticeGame {
            id: room.id.clone(),
            kind: room.kind(),
            bots,
        })
    }
}

/// The name of the server's bot on `seat` of a practice game (seat 0 is the
/// person's).
pub fn seat_name(strategy: Strategy, seat: u32) -> String {
    format!("{} bot {seat}", strategy.name())
}

/// The strategy a bot's seat name says ([`seat_name`]).
fn strategy_of(name: &str, seat: Seat) -> Option<Strategy> {
    name.strip_suffix(&format!(" bot {}", seat.0))?.parse().ok()
}

/// A practice game in play: the seats the server's bots play.
pub struct PracticeGame {
    /// Game id.
    pub id: String,
    /// Which game.
    pub kind: Kind,
    /// Every seat but the person's.
    pub bots: Vec<PracticeBot>,
}

/// One of the server's bots' seats in a practice game.
pub struct PracticeBot {
    /// Its token (derived from the server secret).
    pub token: String,
    /// Its strategy, as its seat's name says.
    pub strategy: Strategy,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_s_name_says_its_strategy() {
        for strategy in Strategy::ALL {
            for seat in 1..4 {
                let name = seat_name(strategy, seat);
                assert_eq!(strategy_of(&name, Seat(seat as u8)), Some(strategy));
                assert_eq!(strategy_of(&name, Seat(seat as u8 + 1)), None);
            }
        }
        assert_eq!(strategy_of("player", Seat(1)), None);
    }
}
