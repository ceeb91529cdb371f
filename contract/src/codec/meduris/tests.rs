//! Meduris' codec round trips and refusals.

use super::*;
use druids_engine::Game;
use druids_engine::meduris::Goods;

/// Every view of random games, for every seat and a spectator, and
/// every legal action with every payment, decode back to what was encoded.
#[test]
fn views_and_actions_round_trip() {
    let checked = crate::codec::test_support::round_trip::<Meduris>(2..=4, 0..6);
    assert!(checked > 1000, "{checked} positions");
}

#[test]
fn malformed_views_are_named() {
    use crate::codec::test_support::state_view;
    use druids_engine::{Seat, Viewer};
    let mut events = Vec::new();
    let game = Meduris::new(3, 1, &Options::default(), &mut events).unwrap();
    let good = state_view(&game, Viewer::Seat(Seat(1)));
    assert!(Meduris::decode_view(&good).is_ok());
    let mut bad = good.clone();
    bad.game = None;
    assert_eq!(
        Meduris::decode_view(&bad),
        Err(DecodeError::Missing("state.game"))
    );
    bad.game = Some(pb::state_view::Game::Dolmen(pb::DolmenView::default()));
    assert_eq!(
        Meduris::decode_view(&bad),
        Err(DecodeError::WrongGame {
            expected: "meduris"
        })
    );
    let mut bad = good.clone();
    bad.viewer_seat = Some(3);
    assert!(matches!(
        Meduris::decode_view(&bad),
        Err(DecodeError::OutOfRange {
            field: "viewer_seat",
            ..
        })
    ));
    let mut bad = good.clone();
    let Some(pb::state_view::Game::Meduris(v)) = &mut bad.game else {
        unreachable!()
    };
    v.fields.pop();
    assert_eq!(
        Meduris::decode_view(&bad),
        Err(DecodeError::Count {
            field: "meduris.fields",
            got: 31,
            expected: 32
        })
    );
    let mut bad = good;
    let Some(pb::state_view::Game::Meduris(v)) = &mut bad.game else {
        unreachable!()
    };
    v.plateaus[0].workers = vec![0, 1, 2, 0];
    assert!(Meduris::decode_view(&bad).is_err());
}

/// An offer says which kind it is; a kind its payment's size rules out is
/// refused, whatever the goods.
#[test]
fn an_offer_names_its_kind_and_the_payment_must_agree() {
    use pb::MedurisOfferingKind as K;
    let offer = |payment: Goods, kind: K| pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(act::Kind::Offer(act::Offer {
                payment: Some(goods(payment)),
                kind: kind as i32,
            })),
        })),
    };
    let two = Goods([1, 1, 0, 0]);
    let three = Goods([3, 0, 0, 0]);
    for (payment, kind) in [
        (Goods::EMPTY, K::Nothing),
        (Goods([1, 0, 0, 0]), K::One),
        (three, K::One),
        (two, K::Both),
        (Goods([1, 3, 0, 0]), K::Both),
    ] {
        let a = Action::Offer { payment };
        assert_eq!(Meduris::encode_action(&a), offer(payment, kind));
        assert_eq!(Meduris::decode_action(&offer(payment, kind)), Ok(a));
    }
    for (payment, kind) in [
        (two, K::One),
        (three, K::Both),
        (Goods::EMPTY, K::Both),
        (two, K::Nothing),
        (two, K::Chip),
    ] {
        assert!(matches!(
            Meduris::decode_action(&offer(payment, kind)),
            Err(DecodeError::Contradiction {
                field: "offer.kind",
                ..
            })
        ));
    }
    assert_eq!(
        Meduris::decode_action(&offer(two, K::Unspecified)),
        Err(DecodeError::BadEnum {
            field: "offer.kind",
            value: 0
        })
    );
}

#[test]
fn malformed_actions_are_named() {
    let none = pb::Action { game: None };
    assert_eq!(
        Meduris::decode_action(&none),
        Err(DecodeError::Missing("action.game"))
    );
    let bad_good = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(act::Kind::TakeGood(act::TakeGood { good: 9 })),
        })),
    };
    assert_eq!(
        Meduris::decode_action(&bad_good),
        Err(DecodeError::BadEnum {
            field: "take_good.good",
            value: 9
        })
    );
    let unspecified = pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(act::Kind::TakeGood(act::TakeGood { good: 0 })),
        })),
    };
    assert!(Meduris::decode_action(&unspecified).is_err());
    let dolmen = pb::Action {
        game: Some(pb::action::Game::Dolmen(pb::DolmenAction::default())),
    };
    assert_eq!(
        Meduris::decode_action(&dolmen),
        Err(DecodeError::WrongGame {
            expected: "meduris"
        })
    );
}
