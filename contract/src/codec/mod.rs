//! The codec between engine types and the proto contract.
//!
//! Each game implements [`ProtoGame`]: how its actions, events, views and
//! decisions look on the wire. Decoding validates everything a client sends, so
//! the engines only ever see well-formed actions; whether an action is *legal*
//! stays the engine's call.

mod dolmen;
pub mod generic;
mod meduris;

/// Cairn, the test tree's game: its codec lives beside its engine in
/// `tests/cairn/` and is built only with the `test-game` feature.
#[cfg(feature = "test-game")]
#[path = "../../../tests/cairn/codec.rs"]
mod cairn;

use druids_engine::{Game, Outcome, Seat, Viewer};

use crate::pb;

/// Why a proto message could not be turned into an engine value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A required field is unset.
    #[error("{0} is required")]
    Missing(&'static str),
    /// An enum field holds a value outside the contract (or UNSPECIFIED).
    #[error("{field} has no valid value ({value})")]
    BadEnum {
        /// The field.
        field: &'static str,
        /// The value received.
        value: i32,
    },
    /// A number is out of the range the contract allows.
    #[error("{field} = {value} is out of range (at most {max})")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value received.
        value: u64,
        /// The largest allowed value.
        max: u64,
    },
    /// Two fields of a message contradict each other (e.g. a Meduris offer
    /// whose kind its payment's size rules out).
    #[error("{field} contradicts the rest of the message: {why}")]
    Contradiction {
        /// The field.
        field: &'static str,
        /// Why.
        why: &'static str,
    },
    /// The action or option belongs to another game.
    #[error("this is a {expected} game: send a {expected} action")]
    WrongGame {
        /// The game being played.
        expected: &'static str,
    },
    /// A field holds a value of another type or shape (in the generic
    /// messages, whose fields are JSON values).
    #[error("{field} is not {expected}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A list has the wrong number of entries (views: one per seat, field, ...).
    #[error("{field} has {got} entries, expected {expected}")]
    Count {
        /// The list.
        field: &'static str,
        /// Entries received.
        got: u64,
        /// Entries the contract requires here.
        expected: u64,
    },
    /// A list has more entries than the contract allows.
    #[error("{field} has {got} entries, at most {max} allowed")]
    TooMany {
        /// The list.
        field: &'static str,
        /// Entries received.
        got: u64,
        /// The most allowed.
        max: u64,
    },
    /// A signed number is out of the range the contract allows.
    #[error("{field} = {value} is out of range ({min} to {max})")]
    OutOfSpan {
        /// The field.
        field: &'static str,
        /// The value received.
        value: i64,
        /// The smallest allowed value.
        min: i64,
        /// The largest allowed value.
        max: i64,
    },
}

impl DecodeError {
    /// The field it is about, as named in the proto (`options.start_seat`);
    /// none: the message as a whole.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            DecodeError::Missing(field)
            | DecodeError::BadEnum { field, .. }
            | DecodeError::OutOfRange { field, .. }
            | DecodeError::Contradiction { field, .. }
            | DecodeError::WrongType { field, .. }
            | DecodeError::Count { field, .. }
            | DecodeError::TooMany { field, .. }
            | DecodeError::OutOfSpan { field, .. } => Some(field),
            DecodeError::WrongGame { .. } => None,
        }
    }
}

/// A game as it appears on the wire: the proto shapes of its actions, events,
/// views and decisions. Every game takes its draws from a script when asked
/// ([`druids_engine::Chance`], see [`crate::chance`]).
pub trait ProtoGame: Game + druids_engine::Chance {
    /// The game in the registry (whose number is its kind on the wire).
    const KIND: crate::registry::Kind;

    /// The engine options from the contract's options (unset fields: defaults).
    fn decode_options(options: &pb::GameOptions) -> Result<Self::Options, DecodeError>;

    /// An action as sent on the wire.
    fn encode_action(action: &Self::Action) -> pb::Action;

    /// An action from the wire, fully validated in form (not in legality).
    fn decode_action(action: &pb::Action) -> Result<Self::Action, DecodeError>;

    /// An action taken by `actor` as `viewer` may see it on the wire: the
    /// engine's [`Game::redact_action`], then [`ProtoGame::encode_action`]
    /// (e.g. a Die Dolmengötter dolmen's value is unset for everyone but its
    /// owner). For actions a host reports in events, such as the one a turn
    /// clock applied.
    fn encode_action_for(action: &Self::Action, viewer: Viewer, actor: Seat) -> pb::Action {
        Self::encode_action(&Self::redact_action(action, viewer, actor))
    }

    /// An event as sent on the wire (already redacted for its viewer).
    fn encode_event(event: &Self::Event) -> pb::game_event::Body;

    /// A view as sent on the wire.
    fn encode_view(view: &Self::View) -> pb::state_view::Game;

    /// The decision pending now, `None` once the game is over.
    fn decision(&self) -> Option<pb::Decision>;

    /// The decision pending now in plain English, as the engine words it
    /// (what it is about and what its choices earn); empty once the game is
    /// over. `StateView.decision_description` on the wire.
    fn decision_description(&self) -> String;

    /// The engine view a state on the wire shows: the game's own part
    /// (`state.game`, see [`ProtoGame::encode_view`]) and the fields every game
    /// carries at the top of `StateView` (`viewer_seat`, `to_act`, `decision`,
    /// `outcome`). The inverse of what the server sends, for clients that run
    /// engine-side logic, e.g. the search bots of `druids-bots` playing over
    /// the network. Everything is checked for form (enums, ranges, one entry
    /// per seat, field or site) so the result is safe to hand to the engine.
    fn decode_view(state: &pb::StateView) -> Result<Self::View, DecodeError>;

    /// Every legal action with every distinct payment, for games whose actions
    /// carry one; the default is the plain legal-action list.
    fn legal_actions_all_payments(&self, out: &mut Vec<Self::Action>) {
        self.legal_actions(out);
    }
}

/// A seat number from the wire.
pub(crate) fn seat_u32(seat: Seat) -> u32 {
    seat.0 as u32
}

/// Decodes an enum field, rejecting UNSPECIFIED and unknown values.
pub(crate) fn enum_field<E: TryFrom<i32>>(
    field: &'static str,
    value: i32,
) -> Result<E, DecodeError> {
    if value == 0 {
        return Err(DecodeError::BadEnum { field, value });
    }
    E::try_from(value).map_err(|_| DecodeError::BadEnum { field, value })
}

/// A small number from the wire that must fit in a `u8` (fields, heights ...).
pub(crate) fn small(field: &'static str, value: u32, max: u8) -> Result<u8, DecodeError> {
    if value > max as u32 {
        return Err(DecodeError::OutOfRange {
            field,
            value: value as u64,
            max: max as u64,
        });
    }
    Ok(value as u8)
}

/// The options both games share: start seat and the max_turns safeguard.
/// The engine checks them against the player count.
pub(crate) fn common_options(options: &pb::GameOptions) -> Result<(u8, u32), DecodeError> {
    let start_seat = small(
        "options.start_seat",
        options.start_seat.unwrap_or(0),
        u8::MAX,
    )?;
    let max_turns = options.max_turns.unwrap_or(1000);
    Ok((start_seat, max_turns))
}

/// The viewer of a state on the wire: its `viewer_seat`, or a spectator.
pub(crate) fn decode_viewer(state: &pb::StateView, players: usize) -> Result<Viewer, DecodeError> {
    state
        .viewer_seat
        .map(|s| decode_seat("viewer_seat", s, players).map(Viewer::Seat))
        .transpose()
        .map(|v| v.unwrap_or(Viewer::Spectator))
}

/// The seat that must decide (`to_act`) of a state on the wire.
pub(crate) fn decode_to_act(
    state: &pb::StateView,
    players: usize,
) -> Result<Option<Seat>, DecodeError> {
    state
        .to_act
        .map(|s| decode_seat("to_act", s, players))
        .transpose()
}

/// The number of seats of a view on the wire, within what game `G` allows.
pub(crate) fn players<G: Game>(field: &'static str, seats: usize) -> Result<usize, DecodeError> {
    if seats < G::MIN_PLAYERS {
        return Err(DecodeError::Count {
            field,
            got: seats as u64,
            expected: G::MIN_PLAYERS as u64,
        });
    }
    if seats > G::MAX_PLAYERS {
        return Err(DecodeError::OutOfRange {
            field,
            value: seats as u64,
            max: G::MAX_PLAYERS as u64,
        });
    }
    Ok(seats)
}

/// A seat number from the wire, which must name one of `players` seats.
pub(crate) fn decode_seat(
    field: &'static str,
    value: u32,
    players: usize,
) -> Result<Seat, DecodeError> {
    if value as usize >= players {
        return Err(DecodeError::OutOfRange {
            field,
            value: value as u64,
            max: players.saturating_sub(1) as u64,
        });
    }
    Ok(Seat(value as u8))
}

/// Checks that a list has one entry per seat, field, site ...
pub(crate) fn count<T>(
    field: &'static str,
    list: &[T],
    expected: usize,
) -> Result<(), DecodeError> {
    if list.len() != expected {
        return Err(DecodeError::Count {
            field,
            got: list.len() as u64,
            expected: expected as u64,
        });
    }
    Ok(())
}

/// An outcome from the wire, for a game of `players` seats.
pub fn decode_outcome(outcome: &pb::Outcome, players: usize) -> Result<Outcome, DecodeError> {
    count("outcome.scores", &outcome.scores, players)?;
    let seats = |field, list: &[u32]| {
        list.iter()
            .map(|&s| decode_seat(field, s, players))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Outcome {
        scores: outcome.scores.clone(),
        winners: seats("outcome.winners", &outcome.winners)?,
        ranking: seats("outcome.ranking", &outcome.ranking)?,
        by_safeguard: outcome.by_safeguard,
        tie_breaks: outcome.tie_breaks.iter().map(|t| t.keys.clone()).collect(),
        tie_break_names: outcome.tie_break_names.clone(),
        resigned: seats("outcome.resigned", &outcome.resigned)?,
    })
}

/// An outcome on the wire.
pub fn encode_outcome(outcome: &druids_engine::Outcome) -> pb::Outcome {
    pb::Outcome {
        scores: outcome.scores.clone(),
        winners: outcome.winners.iter().map(|&s| seat_u32(s)).collect(),
        ranking: outcome.ranking.iter().map(|&s| seat_u32(s)).collect(),
        by_safeguard: outcome.by_safeguard,
        tie_breaks: outcome
            .tie_breaks
            .iter()
            .map(|keys| pb::TieBreakKeys { keys: keys.clone() })
            .collect(),
        tie_break_names: outcome.tie_break_names.clone(),
        resigned: outcome.resigned.iter().map(|&s| seat_u32(s)).collect(),
    }
}

/// The result of `game` on the wire, once it is over: the engine's outcome,
/// or, when the seat `resigned` gave up, the standing it gave up on with that
/// seat ranked last ([`Outcome::resigned_by`]).
pub fn final_outcome<G: druids_engine::Game>(
    game: &G,
    resigned: Option<Seat>,
) -> Option<pb::Outcome> {
    match resigned {
        Some(seat) => Some(encode_outcome(&game.standing().resigned_by(seat))),
        None => game.outcome().as_ref().map(encode_outcome),
    }
}

/// The default list of legal actions as the contract lists them
/// (`GetLegalActions`, a bot's `decision` message): numbered from 0, each
/// with its action and its description in words.
pub fn legal_list<G: ProtoGame>(actions: &[G::Action]) -> Vec<pb::LegalAction> {
    actions
        .iter()
        .enumerate()
        .map(|(i, a)| pb::LegalAction {
            id: Some(i as u32),
            action: Some(G::encode_action(a)),
            description: a.to_string(),
        })
        .collect()
}

/// What the codecs' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// The `StateView` a server sends `viewer` (the parts `decode_view` reads).
    pub(crate) fn state_view<G: ProtoGame>(game: &G, viewer: Viewer) -> pb::StateView {
        pb::StateView {
            kind: G::KIND.number(),
            viewer_seat: match viewer {
                Viewer::Seat(s) => Some(seat_u32(s)),
                Viewer::Spectator => None,
            },
            to_act: game.to_act().map(seat_u32),
            decision: ProtoGame::decision(game),
            outcome: game.outcome().as_ref().map(encode_outcome),
            game: Some(G::encode_view(&game.view(viewer))),
            ..Default::default()
        }
    }

    /// Plays random games of each player count from each seed and checks, at
    /// every position, that every seat's and a spectator's view survive the
    /// round trip engine view → wire → engine view, and so does every legal
    /// action (with every distinct payment). Returns the positions checked.
    pub(crate) fn round_trip<G: ProtoGame>(
        players: std::ops::RangeInclusive<usize>,
        seeds: std::ops::Range<u64>,
    ) -> usize {
        let mut events = Vec::new();
        let mut legal = Vec::new();
        let mut checked = 0;
        for seed in seeds {
            for n in players.clone() {
                let mut game = G::new(n, seed, &G::Options::default(), &mut events).unwrap();
                let mut i = 0usize;
                loop {
                    let viewers = (0..n as u8)
                        .map(|s| Viewer::Seat(Seat(s)))
                        .chain([Viewer::Spectator]);
                    for viewer in viewers {
                        let wire = state_view(&game, viewer);
                        assert_eq!(
                            G::decode_view(&wire),
                            Ok(game.view(viewer)),
                            "seed {seed}, {n} players, action {i}, {viewer:?}"
                        );
                    }
                    checked += 1;
                    let Some(seat) = game.to_act() else { break };
                    legal.clear();
                    game.legal_actions_all_payments(&mut legal);
                    for a in &legal {
                        assert_eq!(G::decode_action(&G::encode_action(a)).as_ref(), Ok(a));
                    }
                    let a = legal[(i * 7 + seed as usize) % legal.len()].clone();
                    game.apply(seat, &a, &mut events).unwrap();
                    i += 1;
                }
            }
        }
        checked
    }
}
