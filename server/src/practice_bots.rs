//! The server's bots in practice games (`POST /web/v1/practice`): started
//! with the game, and started again for every practice game in play that
//! this server rebuilds from the store — at start-up after a restart, or
//! when it takes a game over from another node — so that a person's game
//! never waits on bots that are gone.
//!
//! A practice game is known by its bots' seat names, which say their
//! strategy ([`crate::service::seat_name`]), and their seat tokens, which
//! only the server can derive ([`crate::auth::practice_bot_token`]). Bots
//! started again draw a fresh seed and play without the pause the person
//! asked for (neither is stored); at most one set of bots plays a game in
//! one process ([`crate::bot_cpu::Lease::bind`]).

use std::sync::Arc;
use std::time::Duration;

use druids_bots::{Budget, Strategy};
use druids_contract::Kind;
use tokio::task::JoinHandle;

use crate::bot_cpu::Lease;
use crate::seat_bot::SeatBot;
use crate::service::{PracticeGame, Service};

/// MCTS thinking time per decision: enough to play sensibly, short enough
/// that a person does not wait.
const MCTS_THINK: Duration = Duration::from_millis(300);

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
        .map(|b| (b.token, b.strategy, rand::random()))
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
