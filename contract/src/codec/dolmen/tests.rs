//! Die Dolmengötter's codec round trips and refusals.

use super::*;
use druids_engine::{Game, Viewer};

/// Views carry the board's geometry: 73 sites, 28 circles with their shapes.
/// The action as others see it leaves a dolmen's value unset (hidden);
/// its owner sees it.
#[test]
fn an_action_is_encoded_per_viewer() {
    use druids_engine::Viewer;
    let place = Action::PlaceDolmen { value: Some(3) };
    let red = Seat(0);
    let value = |a: pb::Action| match a.game {
        Some(pb::action::Game::Dolmen(pb::DolmenAction {
            kind: Some(act::Kind::PlaceDolmen(p)),
        })) => p.value,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        value(Dolmen::encode_action_for(&place, Viewer::Seat(red), red)),
        Some(3)
    );
    assert_eq!(
        value(Dolmen::encode_action_for(
            &place,
            Viewer::Seat(Seat(1)),
            red
        )),
        None
    );
    assert_eq!(
        value(Dolmen::encode_action_for(&place, Viewer::Spectator, red)),
        None
    );
}

#[test]
fn views_carry_the_board() {
    let mut events = Vec::new();
    let game = Dolmen::new(3, 1, &Options::default(), &mut events).unwrap();
    let pb::state_view::Game::Dolmen(v) = Dolmen::encode_view(&game.view(Viewer::Spectator)) else {
        panic!("not a dolmen view");
    };
    assert_eq!(v.sites.len(), 73);
    assert_eq!(v.circles.len(), 28);
    assert_eq!(v.circles[1].letter, "B");
    assert_eq!(v.circles[1].shape, pb::DolmenShape::Octagon as i32);
    assert_eq!(v.circles[1].sites.len(), 8);
    assert_eq!(v.circles[27].letter, "b");
    assert!(v.sites.iter().all(|s| !s.circles.is_empty()));
    assert!(v.seats.iter().all(|s| s.hand.is_none()));
}

/// Every view of random games, for every seat and a spectator, and
/// every legal action with every payment, decode back to what was encoded.
#[test]
fn views_and_actions_round_trip() {
    let checked = crate::codec::test_support::round_trip::<Dolmen>(2..=5, 0..4);
    assert!(checked > 500, "{checked} positions");
}

#[test]
fn malformed_views_are_named() {
    use crate::codec::test_support::state_view;
    let mut events = Vec::new();
    let game = Dolmen::new(2, 1, &Options::default(), &mut events).unwrap();
    let good = state_view(&game, Viewer::Seat(Seat(0)));
    assert!(Dolmen::decode_view(&good).is_ok());
    let mut bad = good.clone();
    bad.game = Some(pb::state_view::Game::Meduris(pb::MedurisView::default()));
    assert_eq!(
        Dolmen::decode_view(&bad),
        Err(DecodeError::WrongGame { expected: "dolmen" })
    );
    let mut bad = good.clone();
    let Some(pb::state_view::Game::Dolmen(v)) = &mut bad.game else {
        unreachable!()
    };
    v.sites.pop();
    assert_eq!(
        Dolmen::decode_view(&bad),
        Err(DecodeError::Count {
            field: "dolmen.sites",
            got: 72,
            expected: 73
        })
    );
    let mut bad = good.clone();
    let Some(pb::state_view::Game::Dolmen(v)) = &mut bad.game else {
        unreachable!()
    };
    v.active = 2;
    assert!(matches!(
        Dolmen::decode_view(&bad),
        Err(DecodeError::OutOfRange {
            field: "dolmen.active",
            ..
        })
    ));
    let mut bad = good;
    let Some(pb::state_view::Game::Dolmen(v)) = &mut bad.game else {
        unreachable!()
    };
    v.circles[0].stack = vec![pb::DolmenPiece {
        seat: 0,
        value: Some(5),
    }];
    assert!(Dolmen::decode_view(&bad).is_err());
}

#[test]
fn malformed_actions_are_named() {
    let dolmen = |kind| pb::Action {
        game: Some(pb::action::Game::Dolmen(pb::DolmenAction {
            kind: Some(kind),
        })),
    };
    assert_eq!(
        Dolmen::decode_action(&dolmen(act::Kind::PlaceDruid(act::PlaceDruid { site: 73 }))),
        Err(DecodeError::OutOfRange {
            field: "place_druid.site",
            value: 73,
            max: 72
        })
    );
    assert_eq!(
        Dolmen::decode_action(&dolmen(act::Kind::Walk(act::Walk {
            from_site: 3,
            direction: 0
        }))),
        Err(DecodeError::BadEnum {
            field: "walk.direction",
            value: 0
        })
    );
    assert!(
        Dolmen::decode_action(&dolmen(act::Kind::PlaceDolmen(act::PlaceDolmen {
            value: Some(0)
        })))
        .is_err()
    );
    // Unset is the hidden form others see: never an action to play.
    assert_eq!(
        Dolmen::decode_action(&dolmen(act::Kind::PlaceDolmen(act::PlaceDolmen {
            value: None
        }))),
        Err(DecodeError::Missing("place_dolmen.value"))
    );
    let meduris = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction::default())),
    };
    assert_eq!(
        Dolmen::decode_action(&meduris),
        Err(DecodeError::WrongGame { expected: "dolmen" })
    );
    assert_eq!(
        Dolmen::decode_action(&pb::Action {
            game: Some(pb::action::Game::Dolmen(pb::DolmenAction { kind: None }))
        }),
        Err(DecodeError::Missing("action.dolmen.kind"))
    );
}
