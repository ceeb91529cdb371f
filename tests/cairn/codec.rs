//! Cairn on the wire, in the contract's generic messages
//! (`proto/druids/v1/generic.proto`): it has no messages of its own, as a
//! test-only game must not add any to the public contract. Compiled into
//! `druids-contract` only with its `test-game` feature.
//!
//! | value | name | fields |
//! |---|---|---|
//! | action | `hide`, `roll`, `stop` | `hide`: `value` (1 to 3; left out for other seats) |
//! | decision | `hide`, `turn` | none |
//! | event | `hidden` | `seat`, `value` (its owner only) |
//! | event | `rolled` | `seat`, `die` |
//! | event | `collapsed` | `seat`, `lost` |
//! | event | `stopped` | `seat`, `added`, `cairn` |
//! | event | `revealed` | `seat`, `value` |
//! | event | `ended` | `by_safeguard` |
//! | view | `cairn` | `seats` (each `cairn`, `hidden`, `offering` for its owner), `pile`, `last_die` (if any), `turns`, `start_seat`, `max_turns` |

use druids_engine::Game;
use druids_engine::cairn::{Action, Cairn, Decision, Event, Options, SeatView, View};

use super::generic::{Fields, Read, unknown_name};
use super::{DecodeError, ProtoGame, common_options, decode_to_act, decode_viewer, players, small};
use crate::pb;

/// The most a cairn or a pile can hold on the wire (far beyond a real game).
const MAX_POINTS: u32 = 1_000_000;

fn decision(d: Decision) -> pb::Decision {
    let name = match d {
        Decision::Hide => "hide",
        Decision::Turn => "turn",
    };
    pb::Decision {
        game: Some(pb::decision::Game::Generic(Fields::new().value(name))),
    }
}

impl ProtoGame for Cairn {
    const KIND: crate::registry::Kind =
        crate::registry::Kind::Testing(crate::registry::TestGame::Cairn);

    fn decode_options(options: &pb::GameOptions) -> Result<Options, DecodeError> {
        let (start_seat, max_turns) = common_options(options)?;
        Ok(Options {
            start_seat,
            max_turns,
        })
    }

    fn encode_action(action: &Action) -> pb::Action {
        let value = match *action {
            Action::Hide { value } => Fields::new().maybe_number("value", value).value("hide"),
            Action::Roll => Fields::new().value("roll"),
            Action::Stop => Fields::new().value("stop"),
        };
        pb::Action {
            game: Some(pb::action::Game::Generic(value)),
        }
    }

    fn decode_action(action: &pb::Action) -> Result<Action, DecodeError> {
        let generic = match &action.game {
            Some(pb::action::Game::Generic(g)) => g,
            Some(_) => return Err(DecodeError::WrongGame { expected: "cairn" }),
            None => return Err(DecodeError::Missing("action.game")),
        };
        let (name, read) = Read::of("action.generic", Some(generic))?;
        Ok(match name {
            "hide" => Action::Hide {
                value: read
                    .maybe_number("value", u32::from(u8::MAX))?
                    .map(|v| v as u8),
            },
            "roll" => Action::Roll,
            "stop" => Action::Stop,
            _ => return Err(unknown_name("action.generic", "hide, roll or stop")),
        })
    }

    fn encode_event(event: &Event) -> pb::game_event::Body {
        let (name, fields) = match *event {
            Event::Hidden { seat, value } => (
                "hidden",
                Fields::new()
                    .number("seat", seat.0)
                    .maybe_number("value", value),
            ),
            Event::Rolled { seat, die } => (
                "rolled",
                Fields::new().number("seat", seat.0).number("die", die),
            ),
            Event::Collapsed { seat, lost } => (
                "collapsed",
                Fields::new().number("seat", seat.0).number("lost", lost),
            ),
            Event::Stopped { seat, added, cairn } => (
                "stopped",
                Fields::new()
                    .number("seat", seat.0)
                    .number("added", added)
                    .number("cairn", cairn),
            ),
            Event::Revealed { seat, value } => (
                "revealed",
                Fields::new().number("seat", seat.0).number("value", value),
            ),
            Event::Ended { by_safeguard } => {
                ("ended", Fields::new().boolean("by_safeguard", by_safeguard))
            }
        };
        pb::game_event::Body::Generic(fields.value(name))
    }

    fn encode_view(view: &View) -> pb::state_view::Game {
        let seats = view.seats.iter().map(|s| {
            Fields::new()
                .number("cairn", s.cairn)
                .boolean("hidden", s.hidden)
                .maybe_number("offering", s.offering)
                .object()
        });
        let fields = Fields::new()
            .list("seats", seats)
            .number("pile", view.pile)
            .maybe_number("last_die", view.last_die)
            .number("turns", view.turns)
            .number("start_seat", view.options.start_seat)
            .number("max_turns", view.options.max_turns);
        pb::state_view::Game::Generic(fields.value(Cairn::NAME))
    }

    fn decision(&self) -> Option<pb::Decision> {
        Cairn::decision(self).map(decision)
    }

    fn decision_description(&self) -> String {
        Cairn::decision(self).map_or_else(String::new, |d| d.to_string())
    }

    fn decode_view(state: &pb::StateView) -> Result<View, DecodeError> {
        let generic = match &state.game {
            Some(pb::state_view::Game::Generic(g)) => Some(g),
            Some(_) => return Err(DecodeError::WrongGame { expected: "cairn" }),
            None => None,
        };
        let (name, read) = Read::of("state.game.generic", generic)?;
        if name != Cairn::NAME {
            return Err(unknown_name("state.game.generic", "a cairn view"));
        }
        let listed = read.list("seats")?;
        let n = players::<Cairn>("seats", listed.len())?;
        let seats = listed
            .iter()
            .map(|s| {
                let s = Read::object("seats", s)?;
                Ok(SeatView {
                    cairn: s.number("cairn", MAX_POINTS)?,
                    hidden: s.boolean("hidden")?,
                    offering: s.maybe_number("offering", 3)?.map(|v| v as u8),
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        let decision = match state.decision.as_ref().and_then(|d| d.game.as_ref()) {
            None => None,
            Some(pb::decision::Game::Generic(g)) => Some(match g.name.as_str() {
                "hide" => Decision::Hide,
                "turn" => Decision::Turn,
                _ => return Err(unknown_name("decision.generic", "hide or turn")),
            }),
            Some(_) => return Err(DecodeError::WrongGame { expected: "cairn" }),
        };
        let start_seat = read.number("start_seat", u32::from(u8::MAX))?;
        Ok(View {
            viewer: decode_viewer(state, n)?,
            seats,
            to_act: decode_to_act(state, n)?,
            decision,
            pile: read.number("pile", MAX_POINTS)?,
            last_die: read.maybe_number("last_die", 6)?.map(|d| d as u8),
            turns: read.number("turns", u32::MAX)?,
            options: Options {
                start_seat: small("start_seat", start_seat, u8::MAX)?,
                max_turns: read.number("max_turns", u32::MAX)?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::round_trip;
    use super::*;

    #[test]
    fn every_view_and_action_survives_the_wire() {
        assert!(round_trip::<Cairn>(2..=4, 0..20) > 1000);
    }

    #[test]
    fn malformed_actions_are_refused_with_the_field() {
        let generic = |v: pb::GenericValue| pb::Action {
            game: Some(pb::action::Game::Generic(v)),
        };
        assert_eq!(
            Cairn::decode_action(&generic(Fields::new().value("fly"))),
            Err(DecodeError::WrongType {
                field: "action.generic",
                expected: "hide, roll or stop"
            })
        );
        assert_eq!(
            Cairn::decode_action(&generic(Fields::new().number("value", 2.5).value("hide"))),
            Err(DecodeError::WrongType {
                field: "value",
                expected: "a whole number from 0"
            })
        );
        assert_eq!(
            Cairn::decode_action(&generic(Fields::new().number("value", 300).value("hide"))),
            Err(DecodeError::OutOfRange {
                field: "value",
                value: 300,
                max: 255
            })
        );
        assert_eq!(
            Cairn::decode_action(&pb::Action::default()),
            Err(DecodeError::Missing("action.game"))
        );
        assert_eq!(
            Cairn::decode_action(&generic(Fields::new().number("value", 2).value("hide"))),
            Ok(Action::Hide { value: Some(2) })
        );
    }
}
