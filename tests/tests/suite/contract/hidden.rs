//! Hidden information over the wire: a spectator's view never shows a seat's
//! goods.

use super::MEDURIS;
use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, create, play_random, state};
use tokio_stream::StreamExt;

/// Goods of every seat in a Meduris view, `None` where hidden.
fn goods_shown(view: &pb::StateView) -> Vec<Option<pb::MedurisGoods>> {
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) => m.seats.iter().map(|s| s.goods).collect(),
        _ => panic!("not a Meduris view"),
    }
}

#[tokio::test]
async fn a_spectator_never_sees_a_seats_goods() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 4, 33).await;
    let mut spectator = client
        .stream_events(pb::StreamEventsRequest {
            game_id: id.clone(),
            from_seq: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let mut rng = Lcg(9);
    loop {
        let spect = state(&mut client, &id, None).await;
        if spect.to_act.is_none() {
            break;
        }
        assert!(
            goods_shown(&spect).iter().all(Option::is_none),
            "spectator view shows goods"
        );
        if spect.version % 25 == 0 {
            for (seat, t) in tokens.iter().enumerate() {
                let mine = state(&mut client, &id, Some(t)).await;
                let shown = goods_shown(&mine);
                for (i, g) in shown.iter().enumerate() {
                    assert_eq!(
                        g.is_some(),
                        i == seat,
                        "seat {seat} sees goods of seat {i}: {g:?}"
                    );
                }
            }
        }
        play_random(&mut client, &id, &tokens, &mut rng, 1)
            .await
            .unwrap();
    }
    // The spectator's stream: the snapshot hides goods; the events never carry a
    // holding (only public gains and payments), until the final reveal.
    let mut n = 0;
    while let Some(e) = spectator.next().await {
        let e = e.unwrap();
        if let Some(Body::Snapshot(s)) = &e.body {
            assert!(
                goods_shown(s.state.as_ref().unwrap())
                    .iter()
                    .all(Option::is_none)
            );
        }
        n += 1;
    }
    assert!(n > 50);
    // Holdings stay private even once the game is over.
    let over = state(&mut client, &id, None).await;
    assert_eq!(over.status, pb::GameStatus::Finished as i32);
    assert!(goods_shown(&over).iter().all(Option::is_none));
    let mine = state(&mut client, &id, Some(&tokens[1])).await;
    let shown = goods_shown(&mine);
    assert!(shown[1].is_some() && shown[0].is_none() && shown[2].is_none() && shown[3].is_none());
    server.stop().await;
}
