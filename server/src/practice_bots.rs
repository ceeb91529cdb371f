//! The server's bots in practice games (`POST /web/v1/practice`): started
//! with the game, and started again for every practice game in play that
//! this server rebuilds from the store — at start-up after a restart, or
//! when it takes a game over from another node — so that a person's game
//! never waits on bots that are gone.
//!
//! A practice game is known by its bots' seat tokens, which only the server
//! can derive ([`crate::auth::practice_bot_token`]), and its bots' strategy
//! by their seats' names, which the server gave them ([`seat_name`]). Bots
//! started again draw a fresh seed and play without the pause the person
//! asked for (neither is stored); at most one set of bots plays a game in
//! one process ([`crate::bot_cpu::Lease::bind`]).

use std::sync::Arc;
use std::time::Duration;

use druids_bots::{Budget, Strategy};
use druids_contract::Kind;
use druids_engine::Seat;
use tokio::task::JoinHandle;

use crate::bot_cpu::Lease;
use crate::seat_bot::SeatBot;
use crate::service::{PracticeGame, Service};

/// MCTS thinking time per decision: enough to play sensibly, short enough
/// that a person does not wait.
const MCTS_THINK: Duration = Duration::from_millis(300);

/// The name of the bot on `seat` (seat 0 is the person's).
pub(crate) fn seat_name(strategy: Strategy, seat: u32) -> String {
    format!("{} bot {seat}", strategy.name())
}

/// The strategy a bot's seat name says ([`seat_name`]).
fn strategy_of(name: &str, seat: Seat) -> Option<Strategy> {
    name.strip_suffix(&format!(" bot {}", seat.0))?.parse().ok()
}

/// The bots of one practice game.
pub(crate) struct Bots {
    /// The game.
    pub(crate) game_id: String,
    /// Which game.
    pub(crate) kind: Kind,
    /// Each bot's seat token, strategy and seed.
    pub(crate) seats: Vec<(String, Strategy, u64)>,
    /// The pause before each action.
    pub(crate) delay: Duration,
}

/// Starts the bots of a practice game, each on a task of its own, thinking
/// on the CPU budget `lease` holds; they play until the game ends.
pub(crate) fn play(service: &Arc<Service>, bots: Bots, lease: Arc<Lease>) {
    for (token, strategy, seed) in bots.seats {
        let bot = SeatBot::new(
            Arc::clone(service),
            bots.game_id.clone(),
            token,
            bots.delay,
            Arc::clone(&lease),
        );
        druids_contract::with_game!(bots.kind, |G| {
            tokio::spawn(bot.run::<G>(strategy.build(seed, Budget::Time(MCTS_THINK))));
        });
    }
}

/// Starts the bots of every practice game in play that this server rebuilt
/// from the store, now and whenever it takes one over; the task runs until
/// it is aborted.
pub fn start(service: &Arc<Service>) -> JoinHandle<()> {
    let service = Arc::clone(service);
    // Listening before the games in play are looked at: none is missed
    // (one seen twice gets its bots once).
    let rebuilt = service.rebuilt_games();
    tokio::spawn(async move {
        for game in service.practice_games() {
            resume(&service, game);
        }
        let Some(mut rebuilt) = rebuilt else { return };
        while let Some(id) = rebuilt.recv().await {
            if let Some(game) = service.practice_game(&id) {
                resume(&service, game);
            }
        }
    })
}

/// Starts the bots of practice game `game` again, unless bots of this
/// process play it.
fn resume(service: &Arc<Service>, game: PracticeGame) {
    let Some(lease) = service.bot_cpu().resume(&game.id) else {
        return;
    };
    let seats = game
        .bots
        .into_iter()
        .map(|b| {
            let strategy = strategy_of(&b.name, b.seat).unwrap_or_else(|| {
                tracing::warn!(game_id = %game.id, seat = b.seat.0, "a practice bot's name names no strategy: it plays at random");
                Strategy::Random
            });
            (b.token, strategy, rand::random())
        })
        .collect();
    tracing::info!(game_id = %game.id, "a practice game's bots play on");
    let bots = Bots {
        game_id: game.id,
        kind: game.kind,
        seats,
        delay: Duration::ZERO,
    };
    play(service, bots, Arc::new(lease));
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
