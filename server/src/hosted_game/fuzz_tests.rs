//! Hostile input at the host: arbitrary bytes decoded as actions, and
//! well-formed actions that are wrong, thrown at games in every phase. Nothing
//! may panic, and a rejected action must leave the game exactly as it was.
//!
//! Both games are fuzzed. The budget is fixed for CI (`DRUIDS_FUZZ_CASES`,
//! default 3000 positions × 8 inputs each, per game); raise it by hand for a
//! longer run.

use druids_engine::Seat;
use proptest::prelude::*;
use prost::Message;

use druids_contract::pb;

use crate::hosted_game::{Choice, HostedGame, new_game};

fn cases() -> u32 {
    std::env::var("DRUIDS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

/// A game of `kind` after `steps` legal actions chosen by `picks`.
fn position(
    kind: druids_contract::Kind,
    players: usize,
    seed: u64,
    steps: usize,
    picks: &[u8],
) -> Box<dyn HostedGame> {
    let mut game = new_game(kind, players, seed, &pb::GameOptions::default()).expect("setup");
    game.start();
    for i in 0..steps {
        let Some(seat) = game.to_act() else { break };
        let legal = game.legal_actions(false);
        let pick = picks.get(i % picks.len().max(1)).copied().unwrap_or(0) as usize % legal.len();
        game.apply(seat, &Choice::LegalActionId(pick as u32), None)
            .expect("a listed action applies");
    }
    game
}

/// Everything observable of a game, to compare before and after.
fn fingerprint(game: &dyn HostedGame) -> (u64, u64, Vec<pb::state_view::Game>, Vec<pb::GameEvent>) {
    let mut views = vec![game.view(druids_engine::Viewer::Spectator)];
    for s in 0..game.players() {
        views.push(game.view(druids_engine::Viewer::Seat(Seat(s as u8))));
    }
    let mut events = Vec::new();
    game.events(1, usize::MAX, druids_engine::Viewer::Spectator, &mut events);
    (game.version(), game.last_seq(), views, events)
}

/// A well-formed Meduris action, legal or not (out-of-range numbers included).
fn any_meduris_action() -> impl Strategy<Value = pb::Action> {
    use pb::meduris_action::*;
    let good = 0i32..6;
    let goods =
        (0u32..20, 0u32..20, 0u32..20, 0u32..20).prop_map(|(a, b, c, d)| pb::MedurisGoods {
            wood: a,
            wool: b,
            copper: c,
            stone: d,
        });
    let kind = prop_oneof![
        good.clone()
            .prop_map(|g| Kind::PlaceWorker(PlaceWorker { plateau: g })),
        good.clone()
            .prop_map(|g| Kind::TakeGood(TakeGood { good: g })),
        good.clone()
            .prop_map(|g| Kind::ReturnGood(ReturnGood { good: g })),
        (good.clone(), 0u32..6, good.clone()).prop_map(|(f, h, t)| Kind::BigYield(BigYield {
            from_plateau: f,
            height: h,
            to_plateau: t
        })),
        (0u32..70, proptest::option::of(goods.clone())).prop_map(|(f, p)| Kind::BuildHut(
            BuildHut {
                field: f,
                payment: p
            }
        )),
        (0u32..70, proptest::option::of(goods.clone())).prop_map(|(f, p)| Kind::BuildTemple(
            BuildTemple {
                field: f,
                payment: p
            }
        )),
        (proptest::option::of(goods), 0i32..6).prop_map(|(p, k)| Kind::Offer(Offer {
            payment: p,
            kind: k
        })),
        Just(Kind::OfferChip(OfferChip {})),
    ];
    proptest::option::of(kind).prop_map(|k| pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction { kind: k })),
    })
}

/// A well-formed Die Dolmengötter action, legal or not (out-of-range numbers included).
fn any_dolmen_action() -> impl Strategy<Value = pb::Action> {
    use pb::dolmen_action::*;
    let site = 0u32..80;
    let kind = prop_oneof![
        site.clone()
            .prop_map(|s| Kind::PlaceDruid(PlaceDruid { site: s })),
        (site.clone(), 0i32..7).prop_map(|(s, d)| Kind::Walk(Walk {
            from_site: s,
            direction: d
        })),
        site.clone()
            .prop_map(|s| Kind::CollectHerbs(CollectHerbs { site: s })),
        (site.clone(), site).prop_map(|(f, t)| Kind::Fly(Fly {
            from_site: f,
            to_site: t
        })),
        Just(Kind::PlaceStone(PlaceStone {})),
        Just(Kind::DeclineStone(DeclineStone {})),
        proptest::option::of(0u32..6).prop_map(|v| Kind::PlaceDolmen(PlaceDolmen { value: v })),
        Just(Kind::PassDolmen(PassDolmen {})),
    ];
    proptest::option::of(kind).prop_map(|k| pb::Action {
        game: Some(pb::action::Game::Dolmen(pb::DolmenAction { kind: k })),
    })
}

/// Throws `actions`, whatever prost makes of `bytes`, a legal-action id beyond
/// the list and a failing store at `game`: every rejection must change nothing.
fn assault(
    mut game: Box<dyn HostedGame>,
    mut tries: Vec<pb::Action>,
    bytes: &[Vec<u8>],
    seat: u8,
    id: u32,
) -> Result<(), TestCaseError> {
    let before = fingerprint(game.as_ref());
    tries.extend(
        bytes
            .iter()
            .filter_map(|b| pb::Action::decode(b.as_slice()).ok()),
    );
    for action in &tries {
        let mut copy = game.version();
        let result = game.apply(Seat(seat), &Choice::Action(action.clone()), None);
        if result.is_ok() {
            // Legal after all: that must have been the seat to act, and the
            // game moved on by exactly one version.
            copy += 1;
            prop_assert_eq!(game.version(), copy);
            return Ok(());
        }
        prop_assert_eq!(&fingerprint(game.as_ref()), &before);
    }
    let _ = game.apply(Seat(seat), &Choice::LegalActionId(id.max(10_000)), None);
    prop_assert_eq!(&fingerprint(game.as_ref()), &before);
    if let Some(to_act) = game.to_act() {
        // A legal move staged, then dropped (its storage failed): no trace.
        let staged = game.stage(to_act, &Choice::LegalActionId(0), None);
        prop_assert!(staged.is_ok());
        drop(staged);
        prop_assert_eq!(&fingerprint(game.as_ref()), &before);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn hostile_meduris_actions_never_panic_and_rejections_change_nothing(
        players in 2usize..=4,
        seed in 0u64..1000,
        steps in 0usize..400,
        picks in proptest::collection::vec(any::<u8>(), 1..16),
        bytes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 4),
        actions in proptest::collection::vec(any_meduris_action(), 4),
        seat in 0u8..6,
        id in any::<u32>(),
    ) {
        let game = position(druids_contract::Kind::Meduris, players, seed, steps, &picks);
        assault(game, actions, &bytes, seat, id)?;
    }

    #[test]
    fn hostile_dolmen_actions_never_panic_and_rejections_change_nothing(
        players in 2usize..=5,
        steps in 0usize..300,
        picks in proptest::collection::vec(any::<u8>(), 1..16),
        bytes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 4),
        actions in proptest::collection::vec(any_dolmen_action(), 4),
        seat in 0u8..7,
        id in any::<u32>(),
    ) {
        let game = position(druids_contract::Kind::Dolmen, players, 0, steps, &picks);
        assault(game, actions, &bytes, seat, id)?;
    }
}
