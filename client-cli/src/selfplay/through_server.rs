//! Self-play through a running server: K complete games between random bots, C
//! at a time, each seat an event-driven bot on its own connection — exactly
//! what bots in any language do. A fraction of the seats can be made silent
//! (they never answer) to exercise the server's turn clocks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use tokio_stream::StreamExt;

use crate::connect::{CliError, ServerAddr, connect};
use crate::lines::{GameRecord, game_line};
use crate::output::GameLog;
use crate::seat::choosers::RandomChooser;
use crate::seat::player::play_seat;

/// What `druids selfplay --server` is asked to do.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The server.
    pub server: ServerAddr,
    /// Game kind.
    pub kind: druids_contract::Kind,
    /// Seats per game.
    pub players: u32,
    /// Games.
    pub games: u64,
    /// Games at once.
    pub concurrency: usize,
    /// Seed of game 0 (game i uses seed + i).
    pub seed: u64,
    /// Fraction of seats that never answer.
    pub silent_fraction: f64,
    /// Turn clock per decision (ms), 0 for none.
    pub decision_ms: u32,
    /// Consecutive timeouts before autopilot, 0 for never.
    pub autopilot_after: u32,
}

/// Totals of a run.
#[derive(Debug, Default)]
pub struct Totals {
    /// Games started.
    pub games: AtomicU64,
    /// Games played to the end.
    pub completed: AtomicU64,
    /// Games that failed.
    pub errors: AtomicU64,
    /// Actions submitted by the bots.
    pub actions: AtomicU64,
    /// Decisions the server took for silent seats (timeouts and autopilot).
    pub timeouts: AtomicU64,
}

/// A game as it ended: its id (empty if it was never created), and its
/// outcome and the actions its bots submitted, or why it failed.
struct Ended {
    game_id: String,
    seats: Vec<String>,
    result: Result<(pb::Outcome, u64), CliError>,
}

/// Plays the plan, reporting each game to `log`; returns totals and elapsed
/// seconds.
pub async fn run(plan: Plan, log: Arc<GameLog>) -> Result<(Arc<Totals>, f64), CliError> {
    if plan.silent_fraction > 0.0 && plan.decision_ms == 0 {
        return Err(CliError::Usage(
            "--silent-fraction needs a turn clock: give --decision-ms".into(),
        ));
    }
    connect(&plan.server).await?; // Fail fast when the server is not there.
    let totals = Arc::new(Totals::default());
    let next = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers: Vec<tokio::task::JoinHandle<Result<(), CliError>>> = Vec::new();
    for _ in 0..plan.concurrency.max(1) {
        let (plan, totals, next) = (plan.clone(), Arc::clone(&totals), Arc::clone(&next));
        let log = Arc::clone(&log);
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= plan.games {
                    return Ok(());
                }
                totals.games.fetch_add(1, Ordering::Relaxed);
                let ended = play_game(&plan, i, &totals).await;
                let (outcome, actions, error) = match &ended.result {
                    Ok((outcome, actions)) => {
                        totals.completed.fetch_add(1, Ordering::Relaxed);
                        (Some(outcome), *actions, None)
                    }
                    Err(e) => {
                        eprintln!("game {i}: {e}");
                        totals.errors.fetch_add(1, Ordering::Relaxed);
                        (None, 0, Some(e.to_string()))
                    }
                };
                log.game(|| {
                    game_line(&GameRecord {
                        index: i,
                        game_id: &ended.game_id,
                        seed: plan.seed.wrapping_add(i),
                        seats: &ended.seats,
                        outcome,
                        actions,
                        error: error.as_deref(),
                    })
                })?;
            }
        }));
    }
    for w in workers {
        w.await??;
    }
    Ok((totals, started.elapsed().as_secs_f64()))
}

/// Seats of game `i` that stay silent: `round(fraction × players)` of them,
/// rotating with the game number.
fn silent_seats(plan: &Plan, i: u64) -> Vec<u32> {
    let n = (plan.silent_fraction * plan.players as f64).round() as u32;
    (0..n.min(plan.players))
        .map(|k| ((i as u32).wrapping_add(k)) % plan.players)
        .collect()
}

async fn play_game(plan: &Plan, i: u64, totals: &Totals) -> Ended {
    let mut ended = Ended {
        game_id: String::new(),
        seats: Vec::new(),
        result: Err(CliError::Protocol("not played".into())),
    };
    ended.result = play(plan, i, totals, &mut ended).await;
    ended
}

/// Creates game `i` and plays it to the end, naming it in `ended` as soon
/// as it has an id.
async fn play(
    plan: &Plan,
    i: u64,
    totals: &Totals,
    ended: &mut Ended,
) -> Result<(pb::Outcome, u64), CliError> {
    let mut client = connect(&plan.server).await?;
    let seed = plan.seed.wrapping_add(i);
    let options = pb::GameOptions {
        decision_ms: (plan.decision_ms > 0).then_some(plan.decision_ms),
        autopilot_after: (plan.autopilot_after > 0).then_some(plan.autopilot_after),
        ..Default::default()
    };
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: plan.kind.number(),
            players: plan.players,
            seed: Some(seed),
            options: Some(options),
            ..Default::default()
        })
        .await?
        .into_inner();
    let silent = silent_seats(plan, i);
    ended.game_id = created.game_id.clone();
    ended.seats = (0..plan.players)
        .map(|s| {
            if silent.contains(&s) {
                "silent"
            } else {
                "random"
            }
            .to_owned()
        })
        .collect();
    let mut bots = Vec::new();
    for s in created.seats.iter().filter(|s| !silent.contains(&s.seat)) {
        let (server, id, token) = (
            plan.server.clone(),
            created.game_id.clone(),
            s.token.clone(),
        );
        let chooser = RandomChooser::new(seed.wrapping_mul(31).wrapping_add(s.seat as u64));
        bots.push(tokio::spawn(async move {
            let mut c = connect(&server).await?;
            play_seat(&mut c, &id, &token, chooser, None).await
        }));
    }
    let mut outcomes = Vec::new();
    let mut actions = 0;
    for b in bots {
        let r = b.await??;
        totals.actions.fetch_add(r.actions, Ordering::Relaxed);
        actions += r.actions;
        outcomes.push(r.outcome);
    }
    if !silent.is_empty() {
        totals.timeouts.fetch_add(
            count_timeouts(&mut client, &created.game_id).await?,
            Ordering::Relaxed,
        );
    }
    let state = client
        .get_state(pb::GetStateRequest {
            game_id: created.game_id.clone(),
        })
        .await?
        .into_inner()
        .state
        .unwrap_or_default();
    if state.status != pb::GameStatus::Finished as i32 {
        return Err(CliError::Protocol(format!(
            "game {} did not finish",
            created.game_id
        )));
    }
    if outcomes.iter().any(|o| *o != state.outcome) {
        return Err(CliError::Protocol(format!(
            "game {}: the bots saw different results",
            created.game_id
        )));
    }
    Ok((state.outcome.unwrap_or_default(), actions))
}

async fn count_timeouts(
    client: &mut crate::connect::Client,
    game_id: &str,
) -> Result<u64, CliError> {
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: game_id.to_owned(),
            from_seq: 1,
        })
        .await?
        .into_inner();
    let mut n = 0;
    while let Some(e) = stream.next().await {
        if let Some(Body::TimedOut(_)) = e?.body {
            n += 1;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silent_seats_rotate_and_follow_the_fraction() {
        let plan = Plan {
            server: ServerAddr::parse("127.0.0.1:1", None).unwrap(),
            kind: druids_contract::Kind::Meduris,
            players: 4,
            games: 10,
            concurrency: 1,
            seed: 0,
            silent_fraction: 0.25,
            decision_ms: 100,
            autopilot_after: 0,
        };
        assert_eq!(silent_seats(&plan, 0), [0]);
        assert_eq!(silent_seats(&plan, 5), [1]);
        let none = Plan {
            silent_fraction: 0.0,
            ..plan.clone()
        };
        assert!(silent_seats(&none, 3).is_empty());
        let half = Plan {
            silent_fraction: 0.5,
            ..plan
        };
        assert_eq!(silent_seats(&half, 3), [3, 0]);
    }
}
