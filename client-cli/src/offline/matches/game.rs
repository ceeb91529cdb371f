//! One game of a match, played to its end on the engine: built-in bots
//! decide on their seat's view, programs get the line protocol's messages
//! built exactly as the server builds them (the seat's `StateView`, the
//! legal actions with ids and descriptions), and every action is recorded
//! for the replay.

use druids_bots::{Bot, Searchable};
use druids_contract::codec::{encode_outcome, legal_list};
use druids_contract::{ProtoGame, pb};
use druids_engine::{Game, Seat, Viewer};

use crate::bridge::in_process::{Choice, Program, ProgramError};
use crate::offline::matches::lineup::{Lineup, Program as How};

/// What is played: which game of the match, who sits where, which dice.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The game's number in the match, from 0.
    pub index: u64,
    /// Its id in reports and replays.
    pub game_id: String,
    /// The engine's seed.
    pub seed: u64,
    /// Seat `s` is played by entry `seating[s]`.
    pub seating: Vec<usize>,
}

/// A game played (or failed).
#[derive(Clone, Debug)]
pub struct Played {
    /// What was played.
    pub plan: Plan,
    /// Its replay (every action, the outcome when it finished).
    pub replay: pb::Replay,
    /// Why it could not be finished, if it could not.
    pub error: Option<String>,
}

/// A seat's player for one game.
enum Player<G: Game> {
    Bot(Box<dyn Bot<G>>),
    Program(Program),
}

/// The state `viewer` sees after `version` actions, as the server sends it.
fn state_view<G: ProtoGame>(
    game: &G,
    game_id: &str,
    seats: &[pb::SeatInfo],
    viewer: Seat,
    version: u64,
) -> pb::StateView {
    let outcome = game.outcome().map(|o| encode_outcome(&o));
    let status = if outcome.is_some() {
        pb::GameStatus::Finished
    } else {
        pb::GameStatus::Running
    };
    pb::StateView {
        game_id: game_id.to_owned(),
        kind: G::KIND.number(),
        status: status as i32,
        version,
        seats: seats.to_vec(),
        viewer_seat: Some(u32::from(viewer.0)),
        to_act: game.to_act().map(|s| u32::from(s.0)),
        decision: G::decision(game),
        outcome,
        game: Some(G::encode_view(&game.view(Viewer::Seat(viewer)))),
        ..Default::default()
    }
}

/// Plays `plan` with `lineup` to the end.
pub fn play<G: ProtoGame + Searchable>(lineup: &Lineup, plan: Plan) -> Played {
    let players = lineup.players();
    let mut replay = pb::Replay {
        game_id: plan.game_id.clone(),
        kind: G::KIND.number(),
        players: players as u32,
        seed: plan.seed,
        options: Some(pb::GameOptions::default()),
        status: pb::GameStatus::Abandoned as i32,
        ..Default::default()
    };
    let error = run::<G>(lineup, &plan, &mut replay).err();
    Played {
        plan,
        replay,
        error,
    }
}

fn run<G: ProtoGame + Searchable>(
    lineup: &Lineup,
    plan: &Plan,
    replay: &mut pb::Replay,
) -> Result<(), String> {
    let players = lineup.players();
    let mut events = Vec::new();
    let mut game = G::new(players, plan.seed, &G::Options::default(), &mut events)
        .map_err(|e| e.to_string())?;
    let seats: Vec<pb::SeatInfo> = (0..players)
        .map(|s| pb::SeatInfo {
            seat: s as u32,
            name: lineup.entries()[plan.seating[s]].name.clone(),
            claimed: true,
        })
        .collect();
    let failed = |seat: usize, e: ProgramError| format!("seat {seat} ({}): {e}", seats[seat].name);
    let mut table: Vec<Player<G>> = Vec::with_capacity(players);
    for (s, &entry) in plan.seating.iter().enumerate() {
        let seat = Seat(s as u8);
        table.push(match &lineup.entries()[entry].program {
            How::Builtin(strategy, think) => {
                // Distinct choices per game and entry, the same on a rerun.
                let seed = plan.seed ^ (plan.index << 16) ^ entry as u64;
                Player::Bot(strategy.build::<G>(seed, *think))
            }
            How::Exec(spec) => {
                let view = state_view(&game, &plan.game_id, &seats, seat, 0);
                let program = Program::start(spec, &plan.game_id, s as u32, &view)
                    .map_err(|e| failed(s, e))?;
                Player::Program(program)
            }
        });
    }
    let mut legal = Vec::new();
    let mut version = 0u64;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        let action = match &mut table[seat.index()] {
            Player::Bot(bot) => bot.choose(seat, &game.view(Viewer::Seat(seat)), &legal),
            Player::Program(program) => {
                let view = state_view(&game, &plan.game_id, &seats, seat, version);
                let listed = legal_list::<G>(&legal);
                program
                    .decide(version, &view, &listed, |choice| {
                        pick::<G>(&game, &legal, choice)
                    })
                    .map_err(|e| failed(seat.index(), e))?
            }
        };
        events.clear();
        game.apply(seat, &action, &mut events)
            .map_err(|e| format!("seat {} ({}): {e}", seat.0, seats[seat.index()].name))?;
        replay.actions.push(pb::ReplayAction {
            seat: u32::from(seat.0),
            action: Some(G::encode_action(&action)),
            timeout: false,
            autopilot: false,
            resigned: false,
        });
        version += 1;
    }
    let outcome = game.outcome().map(|o| encode_outcome(&o));
    replay.outcome = outcome.clone();
    replay.status = pb::GameStatus::Finished as i32;
    for player in table {
        if let Player::Program(program) = player {
            program.finish(&plan.game_id, outcome.as_ref());
        }
    }
    Ok(())
}

/// The engine action a program's answer names, checked as the bridge checks
/// it: an id of the default list, or an action among every legal one (all
/// payments included).
fn pick<G: ProtoGame>(game: &G, legal: &[G::Action], choice: Choice) -> Result<G::Action, String> {
    match choice {
        Choice::Id(n) => legal.get(n as usize).cloned().ok_or_else(|| {
            format!(
                "id {n} is not a legal action id of this decision (ids 0 to {})",
                legal.len().saturating_sub(1)
            )
        }),
        Choice::Action(a) => {
            let action =
                G::decode_action(&a).map_err(|e| format!("the action is malformed: {e}"))?;
            let mut all = Vec::new();
            game.legal_actions_all_payments(&mut all);
            if all.contains(&action) {
                Ok(action)
            } else {
                Err("the action is not legal now (not among the legal actions, all payments included)".into())
            }
        }
    }
}
