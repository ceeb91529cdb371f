//! A Meduris field number the board in use does not have is one mistake with
//! one class, malformed, through the host: whether the codec (no board has it)
//! or the engine (this board has not) refuses it.

use druids_contract::DecodeError;
use druids_contract::pb;
use druids_contract::pb::meduris_action as act;
use druids_engine::meduris::{Decision, Meduris};
use druids_engine::{Game, Rejection};

use super::{ApplyError, Choice, Hosted, HostedGame};

/// A field the board in use does not have is one mistake with one class,
/// malformed, whether the codec (no board has it) or the engine (this
/// board has not) refuses it; the engine's message names the board's range.
#[test]
fn a_field_beyond_the_board_is_malformed_whoever_refuses_it() {
    let mut s = Hosted::<Meduris>::new(2, 1, &pb::GameOptions::default()).unwrap();
    s.start();
    while s.game().decision() != Some(Decision::Turn) {
        let seat = s.game().to_act().unwrap();
        s.apply(seat, &Choice::LegalActionId(0), None).unwrap();
    }
    let seat = s.game().to_act().unwrap();
    let temple = |field| {
        Choice::Action(pb::Action {
            game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                kind: Some(act::Kind::BuildTemple(act::BuildTemple {
                    field,
                    payment: None,
                })),
            })),
        })
    };
    for field in [32, 45, 63] {
        match s.apply(seat, &temple(field), None) {
            Err(ApplyError::Rule(e)) => {
                assert_eq!(e.rejection(), Rejection::Malformed);
                assert_eq!(
                    e.to_string(),
                    format!("field {field} does not exist: this board has fields 0 to 31")
                );
            }
            other => panic!("field {field}: {other:?}"),
        }
    }
    assert!(matches!(
        s.apply(seat, &temple(64), None),
        Err(ApplyError::Decode(DecodeError::OutOfRange { .. }))
    ));
}
