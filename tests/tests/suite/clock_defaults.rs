//! Meduris's turn-clock default actions, as the README ("Turn clocks") lists
//! them, through the contract on a manual clock: for every kind of Meduris
//! decision a seat lets its clock run out on, the action the server applies
//! (its `TimedOut` event) is the documented one, computed here from the
//! seat's own view just before the deadline — worker placement: the first
//! plateau with room (wood, wool, copper, stone); "+1": the most plentiful
//! good in the supply; "−1": the good the seat holds most of; the turn: the
//! big yield that brings the most goods; an offering: nothing.

use std::collections::BTreeMap;

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::meduris_action::Kind as Act;
use druids_contract::pb::meduris_decision::Kind as DecisionKind;
use druids_contract::pb::meduris_event::Kind as Happened;
use druids_tests::{Lcg, TestServer, legal, play_random, state};
use tokio_stream::StreamExt;

const DECISION_MS: u32 = 1_000;
/// The seat whose clock runs out.
const SILENT: u32 = 0;
/// Wood, wool, copper, stone: the order of the plateaus.
const GOODS: [pb::MedurisGood; 4] = [
    pb::MedurisGood::Wood,
    pb::MedurisGood::Wool,
    pb::MedurisGood::Copper,
    pb::MedurisGood::Stone,
];

fn count(goods: &pb::MedurisGoods, good: i32) -> u32 {
    match pb::MedurisGood::try_from(good) {
        Ok(pb::MedurisGood::Wood) => goods.wood,
        Ok(pb::MedurisGood::Wool) => goods.wool,
        Ok(pb::MedurisGood::Copper) => goods.copper,
        Ok(pb::MedurisGood::Stone) => goods.stone,
        _ => panic!("not a good: {good}"),
    }
}

/// The most of any good in `goods`.
fn most(goods: &pb::MedurisGoods) -> u32 {
    GOODS.iter().map(|&g| count(goods, g as i32)).max().unwrap()
}

fn meduris(view: &pb::StateView) -> &pb::MedurisView {
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) => m,
        other => panic!("not a Meduris view: {other:?}"),
    }
}

fn meduris_action(action: Option<&pb::Action>) -> Act {
    match action.and_then(|a| a.game.as_ref()) {
        Some(pb::action::Game::Meduris(m)) => m.kind.expect("an action"),
        other => panic!("not a Meduris action: {other:?}"),
    }
}

/// The goods `seat` gains by the big yield moving a worker to `to`: the
/// plateau's workers from the top, the one at height h taking h goods while
/// the supply lasts (the rules digest, "A. Big yield").
fn big_yield_gain(view: &pb::MedurisView, seat: u32, to: i32) -> u32 {
    let plateau = view
        .plateaus
        .iter()
        .find(|p| p.good == to)
        .expect("the plateau");
    let mut stack = plateau.workers.clone();
    stack.push(seat);
    let mut supply = count(view.supply.as_ref().unwrap(), to);
    let mut gain = 0;
    for (i, owner) in stack.iter().enumerate().rev() {
        let take = (i as u32 + 1).min(supply);
        supply -= take;
        if *owner == seat {
            gain += take;
        }
    }
    gain
}

/// What the README promises for this decision, checked against `applied`;
/// for the turn also the goods the seat then gained (`gained`).
fn check_default(
    kind: DecisionKind,
    view: &pb::MedurisView,
    legal: &pb::GetLegalActionsResponse,
    applied: Act,
    gained: u32,
) {
    match (kind, applied) {
        (DecisionKind::PlaceWorker, Act::PlaceWorker(p)) => {
            let first = view
                .plateaus
                .iter()
                .find(|p| p.workers.len() < 3)
                .expect("a plateau with room");
            assert_eq!(p.plateau, first.good, "the first plateau with room");
        }
        (DecisionKind::TakeGood, Act::TakeGood(t)) => {
            let supply = view.supply.as_ref().unwrap();
            assert_eq!(
                count(supply, t.good),
                most(supply),
                "the most plentiful good in the supply {supply:?}"
            );
        }
        (DecisionKind::ReturnGood, Act::ReturnGood(r)) => {
            let own = view.seats[SILENT as usize]
                .goods
                .as_ref()
                .expect("the seat sees its goods");
            assert_eq!(
                count(own, r.good),
                most(own),
                "the most held good of {own:?}"
            );
        }
        (DecisionKind::Turn, Act::BigYield(b)) => {
            let best = legal
                .actions
                .iter()
                .filter_map(|a| match meduris_action(a.action.as_ref()) {
                    Act::BigYield(y) => Some(big_yield_gain(view, SILENT, y.to_plateau)),
                    _ => None,
                })
                .max()
                .expect("a big yield is legal");
            assert_eq!(
                gained,
                big_yield_gain(view, SILENT, b.to_plateau),
                "the goods gained are the big yield's: {b:?}"
            );
            assert_eq!(gained, best, "the big yield that brings the most: {b:?}");
        }
        (DecisionKind::Offering, Act::Offer(o)) => {
            assert_eq!(o.kind, pb::MedurisOfferingKind::Nothing as i32, "{o:?}");
            assert_eq!(o.payment.unwrap_or_default(), pb::MedurisGoods::default());
        }
        (kind, applied) => panic!("a {kind:?} decision timed out as {applied:?}"),
    }
}

/// The events after `after` up to the log's end.
async fn events_after(
    client: &mut pb::druids_service_client::DruidsServiceClient<tonic::transport::Channel>,
    id: &str,
    after: u64,
) -> Vec<pb::GameEvent> {
    let last = state(client, id, None).await.last_seq;
    let mut stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.to_owned(),
            from_seq: after + 1,
        })
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while out.last().is_none_or(|e: &pb::GameEvent| e.seq < last) {
        out.push(stream.next().await.expect("the log").expect("an event"));
    }
    out
}

#[tokio::test]
async fn every_meduris_decision_times_out_to_its_documented_default() {
    let (server, clock) = TestServer::on_manual_clock(1_700_000_000_000).await;
    let mut client = server.client().await;
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            seed: Some(5),
            options: Some(pb::GameOptions {
                decision_ms: Some(DECISION_MS),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game_id;
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    let mut rng = Lcg(11);
    let mut checked: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut turns = 0;
    loop {
        let st = state(&mut client, &id, Some(&tokens[SILENT as usize])).await;
        let Some(seat) = st.to_act else { break };
        let kind = match &st.decision.as_ref().and_then(|d| d.game.as_ref()) {
            Some(pb::decision::Game::Meduris(d)) => d.kind(),
            other => panic!("not a Meduris decision: {other:?}"),
        };
        // The silent seat lets every decision time out but every other
        // turn, which it plays (so that it builds huts, and has offerings
        // to make).
        let plays = seat != SILENT || (kind == DecisionKind::Turn && turns % 2 == 1);
        if kind == DecisionKind::Turn && seat == SILENT {
            turns += 1;
        }
        if plays {
            play_random(&mut client, &id, &tokens, &mut rng, 1)
                .await
                .unwrap();
            continue;
        }
        let options = legal(&mut client, &id, &tokens[SILENT as usize], true)
            .await
            .unwrap();
        clock.advance(u64::from(DECISION_MS));
        server.service.expire_due();
        let events = events_after(&mut client, &id, st.last_seq).await;
        let at = events
            .iter()
            .position(|e| matches!(&e.body, Some(Body::TimedOut(t)) if t.seat == SILENT))
            .unwrap_or_else(|| panic!("no timeout at the deadline: {events:?}"));
        let Some(Body::TimedOut(timed_out)) = &events[at].body else {
            unreachable!()
        };
        assert!(!timed_out.autopilot, "no autopilot in this game");
        // The goods the seat gained by the action, up to the next turn.
        let gained = events[at + 1..]
            .iter()
            .map_while(|e| match &e.body {
                Some(Body::Meduris(m)) => Some(&m.kind),
                _ => None,
            })
            .take_while(|k| !matches!(k, Some(Happened::TurnStarted(_) | Happened::DieRolled(_))))
            .filter_map(|k| match k {
                Some(Happened::GoodsGained(g)) if g.seat == SILENT => Some(g.count),
                _ => None,
            })
            .sum();
        check_default(
            kind,
            meduris(&st),
            &options,
            meduris_action(timed_out.action.as_ref()),
            gained,
        );
        *checked.entry(kind.as_str_name()).or_default() += 1;
    }
    assert_eq!(
        state(&mut client, &id, None).await.status,
        pb::GameStatus::Finished as i32
    );
    for kind in [
        DecisionKind::PlaceWorker,
        DecisionKind::TakeGood,
        DecisionKind::ReturnGood,
        DecisionKind::Turn,
        DecisionKind::Offering,
    ] {
        assert!(
            checked.get(kind.as_str_name()).is_some_and(|&n| n > 0),
            "no {kind:?} decision timed out: {checked:?}"
        );
    }
    server.stop().await;
}
