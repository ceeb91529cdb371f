//! Re-running a recorded game: a [`pb::Replay`] holds a game's set-up and every
//! action; [`verify`] plays them through the engine again and checks that the
//! recorded result comes out, and [`views`] gives the state after each action
//! as one viewer saw it (what a replay viewer draws, so that it applies no
//! rule itself).

use druids_engine::{Seat, SetupError, Viewer};

use crate::chance::{ScriptError, Scripted};
use crate::codec::{DecodeError, ProtoGame, final_outcome};
use crate::pb;

/// Whether `refused`, ExportReplay's answer for a finished game, says its
/// replay is withheld for now: the game belongs to a duplicate match still
/// being played, whose games share its seed (`FAILED_PRECONDITION`,
/// `GAME_RUNNING`). Who lists a bot's finished games leaves such a game out.
pub fn withheld(refused: &tonic::Status) -> bool {
    use tonic_types::StatusExt;
    refused.code() == tonic::Code::FailedPrecondition
        && refused
            .get_details_error_info()
            .is_some_and(|info| info.reason == crate::reason_name(pb::ErrorReason::GameRunning))
}

/// Why a replay does not reproduce its game.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The kind is unset or unknown.
    #[error("the replay's {0}")]
    UnknownKind(#[from] crate::registry::UnknownKind),
    /// The options do not decode.
    #[error("the replay's options are invalid: {0}")]
    Options(DecodeError),
    /// The options' chance script cannot be played.
    #[error("the replay's options are invalid: {0}")]
    Script(ScriptError),
    /// The engine refuses the set-up.
    #[error("the replay's set-up is invalid: {0}")]
    Setup(#[from] SetupError),
    /// An action does not decode.
    #[error("action {index} is malformed: {source}")]
    Malformed {
        /// Position in the replay, from 0.
        index: usize,
        /// Why.
        source: DecodeError,
    },
    /// An action does not apply.
    #[error("action {index} (seat {seat}) does not apply: {source}")]
    Action {
        /// Position in the replay, from 0.
        index: usize,
        /// Its seat.
        seat: u32,
        /// The engine's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An action has no body.
    #[error("action {0} is empty")]
    Empty(usize),
    /// An entry follows a resignation, which ended the game.
    #[error("action {0} follows a resignation, which ended the game")]
    AfterResignation(usize),
    /// The actions end before the game does, or go on after it.
    #[error("the game is {state} after the last action, but the replay says {recorded}")]
    Unfinished {
        /// What the engine says.
        state: &'static str,
        /// What the file says.
        recorded: &'static str,
    },
    /// The result differs.
    #[error("the replay produces {got}, but {recorded} was recorded")]
    Outcome {
        /// Recomputed.
        got: String,
        /// From the file.
        recorded: String,
    },
}

/// A recorded game's state after some of its actions, as one viewer saw it:
/// the parts of a `StateView` the engine gives (the host adds the rest).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayView {
    /// Actions applied so far.
    pub version: u64,
    /// The seat that had to decide then (none once the game was over).
    pub to_act: Option<u32>,
    /// What it had to decide.
    pub decision: Option<pb::Decision>,
    /// That decision in the engine's words.
    pub decision_description: String,
    /// The result, in the view after the last action of a finished game.
    pub outcome: Option<pb::Outcome>,
    /// The game's own part of the state.
    pub game: pb::state_view::Game,
}

/// The views of `replay`'s states from version `from` on (at most `count`),
/// as `viewer` saw them; version 0 is the game as set up. Each is what
/// [`druids_engine::Game::view`] gives after that many actions, so it can
/// never disagree with the engine. `from` beyond the last version gives none.
pub fn views(
    replay: &pb::Replay,
    viewer: Viewer,
    from: u64,
    count: usize,
) -> Result<Vec<ReplayView>, ReplayError> {
    let kind = crate::registry::Kind::from_number(replay.kind)?;
    crate::with_game!(kind, |G| views_of::<G>(replay, viewer, from, count))
}

fn views_of<G: ProtoGame>(
    replay: &pb::Replay,
    viewer: Viewer,
    from: u64,
    count: usize,
) -> Result<Vec<ReplayView>, ReplayError> {
    let last = replay.actions.len() as u64;
    let until = from.saturating_add(count as u64).min(last + 1);
    let mut out = Vec::with_capacity(until.saturating_sub(from) as usize);
    replay_through::<G>(replay, until, |game, resigned, version| {
        if version >= from {
            let playing = resigned.is_none();
            out.push(ReplayView {
                version,
                to_act: game.to_act().filter(|_| playing).map(|s| u32::from(s.0)),
                decision: game.decision().filter(|_| playing),
                decision_description: if playing {
                    game.decision_description()
                } else {
                    String::new()
                },
                outcome: final_outcome(game, resigned),
                game: G::encode_view(&game.view(viewer)),
            });
        }
    })?;
    Ok(out)
}

/// Sets `replay`'s game up and applies its actions before version `until`
/// (all of them for `u64::MAX`), showing `each` the game as set up (version
/// 0) and after every action, with the seat that resigned if one did; the
/// game and that seat at the end.
fn replay_through<G: ProtoGame>(
    replay: &pb::Replay,
    until: u64,
    mut each: impl FnMut(&G, Option<Seat>, u64),
) -> Result<(G, Option<Seat>), ReplayError> {
    let options = replay.options.clone().unwrap_or_default();
    let mut script = Scripted::parse(&options.chance_script).map_err(ReplayError::Options)?;
    let options = G::decode_options(&options).map_err(ReplayError::Options)?;
    let mut events = Vec::new();
    let mut game: G = script
        .new_game(replay.players as usize, replay.seed, &options, &mut events)
        .map_err(|e| match e {
            ScriptError::Setup(e) => ReplayError::Setup(e),
            e => ReplayError::Script(e),
        })?;
    if until > 0 {
        each(&game, None, 0);
    }
    let mut resigned = None;
    for (index, a) in replay.actions.iter().enumerate() {
        let version = index as u64 + 1;
        if version >= until {
            break;
        }
        if resigned.is_some() || (a.resigned && game.to_act().is_none()) {
            return Err(ReplayError::AfterResignation(index));
        }
        if a.resigned {
            let seat = crate::codec::decode_seat("actions.seat", a.seat, game.players())
                .map_err(|source| ReplayError::Malformed { index, source })?;
            resigned = Some(seat);
            each(&game, resigned, version);
            continue;
        }
        let action = a.action.as_ref().ok_or(ReplayError::Empty(index))?;
        let action =
            G::decode_action(action).map_err(|source| ReplayError::Malformed { index, source })?;
        events.clear();
        game.apply(Seat(a.seat.min(255) as u8), &action, &mut events)
            .map_err(|e| ReplayError::Action {
                index,
                seat: a.seat,
                source: Box::new(e),
            })?;
        script.play(&mut game, &mut events);
        each(&game, None, version);
    }
    Ok((game, resigned))
}

/// Plays `replay` through the engine and returns the outcome it produces, if
/// it equals the recorded one.
pub fn verify(replay: &pb::Replay) -> Result<Option<pb::Outcome>, ReplayError> {
    let kind = crate::registry::Kind::from_number(replay.kind)?;
    crate::with_game!(kind, |G| verify_game::<G>(replay))
}

fn verify_game<G: ProtoGame>(replay: &pb::Replay) -> Result<Option<pb::Outcome>, ReplayError> {
    let (game, resigned) = replay_through::<G>(replay, u64::MAX, |_, _, _| {})?;
    let abandoned = replay.status == pb::GameStatus::Abandoned as i32;
    match (game.to_act().is_none() || resigned.is_some(), abandoned) {
        (true, true) => {
            return Err(ReplayError::Unfinished {
                state: "over",
                recorded: "abandoned",
            });
        }
        (false, false) => {
            return Err(ReplayError::Unfinished {
                state: "not over",
                recorded: "finished",
            });
        }
        _ => {}
    }
    let got = final_outcome(&game, resigned);
    // A replay exported before outcomes carried their tie-break keys is
    // checked on the rest.
    let comparable = match (&got, &replay.outcome) {
        (Some(g), Some(r)) if r.tie_breaks.is_empty() && r.tie_break_names.is_empty() => {
            Some(pb::Outcome {
                tie_breaks: Vec::new(),
                tie_break_names: Vec::new(),
                ..g.clone()
            })
        }
        _ => got.clone(),
    };
    if comparable != replay.outcome {
        return Err(ReplayError::Outcome {
            got: format!("{got:?}"),
            recorded: format!("{:?}", replay.outcome),
        });
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use druids_engine::Game;
    use druids_engine::dolmen::Dolmen;

    /// A finished Die Dolmengötter game played by the first legal action.
    fn finished_replay() -> pb::Replay {
        let mut events = Vec::new();
        let mut game = Dolmen::new(2, 9, &Default::default(), &mut events).unwrap();
        let mut actions = Vec::new();
        let mut legal = Vec::new();
        while let Some(seat) = game.to_act() {
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[legal.len() / 2];
            game.apply(seat, &a, &mut events).unwrap();
            actions.push(pb::ReplayAction {
                seat: u32::from(seat.0),
                action: Some(Dolmen::encode_action(&a)),
                ..Default::default()
            });
        }
        pb::Replay {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            seed: 9,
            actions,
            outcome: game.outcome().as_ref().map(crate::codec::encode_outcome),
            status: pb::GameStatus::Finished as i32,
            ..Default::default()
        }
    }

    #[test]
    fn views_are_the_engines_views_version_by_version() {
        let replay = finished_replay();
        let last = replay.actions.len() as u64;
        let all = views(&replay, Viewer::Spectator, 0, usize::MAX).unwrap();
        assert_eq!(all.len() as u64, last + 1);
        assert!(all.iter().enumerate().all(|(i, v)| v.version == i as u64));
        assert!(all[0].outcome.is_none() && all[0].decision.is_some());
        assert_eq!(all.last().unwrap().outcome, replay.outcome);
        assert_eq!(all.last().unwrap().to_act, None);
        // A page is the same views as the whole; past the end there are none.
        let page = views(&replay, Viewer::Spectator, 5, 3).unwrap();
        assert_eq!(page, all[5..8]);
        assert_eq!(
            views(&replay, Viewer::Spectator, last, 10).unwrap(),
            all[last as usize..]
        );
        assert!(
            views(&replay, Viewer::Spectator, last + 1, 10)
                .unwrap()
                .is_empty()
        );
        // A seat sees its own dolmens' values, a spectator does not.
        let seat0 = views(&replay, Viewer::Seat(Seat(0)), 0, usize::MAX).unwrap();
        let values = |vs: &[ReplayView]| {
            vs.iter()
                .filter_map(|v| match &v.game {
                    pb::state_view::Game::Dolmen(d) => Some(d),
                    _ => None,
                })
                .flat_map(|d| d.circles.iter().flat_map(|c| c.stack.iter()))
                .filter(|d| d.seat == 0 && d.value.is_some())
                .count()
        };
        assert!(values(&seat0) > 0);
        assert_eq!(values(&all), 0);
    }
}
