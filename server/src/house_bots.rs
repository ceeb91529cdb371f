//! House bots, played: the arena ([`crate::arena::house`]) decides when its
//! house bots join a seek; this plays their seats. Each house seek's events
//! come here; each game of its match is played by a built-in bot of the
//! house bot's level through the contract (its API key as the seat's token,
//! exactly as a remote bot plays), in this process.
//!
//! Each is a [`SeatBot`], as practice games' bots are; its thinking runs
//! where every server-run bot's does, on the shared bounded CPU budget
//! ([`crate::bot_cpu`]), each house game holding the budget's house lease,
//! off the async workers.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb::seek_event::Event;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::arena::house::{HouseSeek, Level};
use crate::bot_cpu::Owner;
use crate::seat_bot::SeatBot;
use crate::service::Service;

/// Starts the house bots of `service`'s arena (none without an arena, or
/// with `--house-bots none`): registers them, then plays every house seek
/// the arena opens, until the task is aborted.
pub fn start(service: &Arc<Service>) -> Option<JoinHandle<()>> {
    let arena = Arc::clone(service.arena()?);
    let levels = service.limits().arena.house_bots.0.clone();
    if levels.is_empty() {
        return None;
    }
    let service = Arc::clone(service);
    Some(tokio::spawn(async move {
        let (tx, mut seeks) = mpsc::unbounded_channel();
        // Registration writes to the store.
        let started = service
            .blocking()
            .run(move || arena.start_house_bots(&levels, tx))
            .await;
        let bots: HashMap<u64, (Level, String)> = match started {
            Ok(Ok(bots)) => bots.into_iter().map(|b| (b.no, (b.level, b.key))).collect(),
            Ok(Err(e)) => return tracing::warn!("no house bots: {e}"),
            Err(e) => return tracing::warn!("no house bots: {e}"),
        };
        while let Some(seek) = seeks.recv().await {
            if let Some((level, key)) = bots.get(&seek.bot).cloned() {
                tokio::spawn(play(Arc::clone(&service), seek, level, key));
            }
        }
    }))
}

/// Plays the games of a house seek's match, each on a task of its own as it
/// starts (a duplicate match's games are played at once, in step with its
/// dice), until the match ends or the seek is taken back unused.
async fn play(service: Arc<Service>, mut seek: HouseSeek, level: Level, key: String) {
    while let Some(Ok(event)) = seek.events.recv().await {
        match event.event {
            Some(Event::GameStarted(game)) => {
                let lease = match service.bot_cpu().lease(Owner::House) {
                    Ok(lease) => Arc::new(lease),
                    Err(e) => {
                        // The seat is left to its turn clock's autopilot.
                        tracing::warn!(game_id = %game.game_id, "a house bot cannot play: {e}");
                        continue;
                    }
                };
                let bot = SeatBot::new(
                    Arc::clone(&service),
                    game.game_id,
                    key.clone(),
                    Duration::ZERO,
                    lease,
                );
                let seed = rand::random::<u64>();
                let (kind, level) = (seek.kind, level);
                tokio::spawn(async move {
                    druids_contract::with_game!(kind, |G| {
                        bot.run::<G>(level.strategy.build(seed, level.budget()))
                            .await
                    });
                });
            }
            Some(Event::MatchFinished(_)) => return,
            _ => {}
        }
    }
}
