//! The games of the viewer's practice page, made and found again: a practice
//! game is a client's game like any other, except that the seats of the
//! server's bots hold tokens the server can derive again, so that its bots
//! play on after a restart or a takeover (`crate::practice_bots`).

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

    fn practice_game_of(&self, room: &Room) -> Option<PracticeGame> {
        if !room.is_live() {
            return None;
        }
        let bots = self.lobby.practice_bot_seats(room);
        if bots.is_empty() {
            return None;
        }
        let names = room.summary().seats;
        let bots = bots
            .into_iter()
            .map(|(seat, token)| {
                let name = names
                    .iter()
                    .find(|s| s.seat == u32::from(seat.0))
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                PracticeBot { seat, token, name }
            })
            .collect();
        Some(PracticeGame {
            id: room.id.clone(),
            kind: room.kind(),
            bots,
        })
    }
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
    /// Its seat.
    pub seat: Seat,
    /// Its token (derived from the server secret).
    pub token: String,
    /// Its name, as the game was made with it.
    pub name: String,
}
