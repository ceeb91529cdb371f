//! A finished game's outcome carries each seat's tie-break keys, so that
//! anyone can check the result: a third party (this test, with no engine)
//! recomputes the ranking and the winners from the outcome alone, over gRPC
//! and over the HTTP face, for both games; the keys agree with what each seat
//! saw of itself; and nothing of them is published before the end.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, all_events, create, http_face, play_random, state};

use crate::web::http;

/// The ranking and winners the proto's rule gives: seats sorted by (score,
/// keys...) from highest, equal seats in seat order; winners every seat equal
/// to the first.
fn recompute(scores: &[i32], keys: &[Vec<i32>]) -> (Vec<u32>, Vec<u32>) {
    let key = |s: usize| (scores[s], keys[s].clone());
    let mut ranking: Vec<usize> = (0..scores.len()).collect();
    ranking.sort_by_key(|&s| std::cmp::Reverse(key(s)));
    let winners = ranking
        .iter()
        .copied()
        .filter(|&s| key(s) == key(ranking[0]))
        .map(|s| s as u32)
        .collect();
    (ranking.into_iter().map(|s| s as u32).collect(), winners)
}

/// A seat's keys as its own view shows them at the end.
fn own_keys(view: &pb::StateView, seat: usize) -> Vec<i32> {
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) => {
            let s = &m.seats[seat];
            let g = s.goods.expect("a seat sees its own goods");
            vec![
                s.buildings_placed as i32,
                (g.wood + g.wool + g.copper + g.stone) as i32,
            ]
        }
        Some(pb::state_view::Game::Dolmen(d)) => vec![d.seats[seat].dolmens_placed as i32],
        other => panic!("not a game with keys: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anyone_recomputes_the_ranking_from_a_finished_games_outcome() {
    let server = TestServer::start().await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let games = [
        (pb::GameKind::Meduris, 2, 1),
        (pb::GameKind::Meduris, 4, 2),
        (pb::GameKind::Dolmen, 2, 3),
        (pb::GameKind::Dolmen, 3, 4),
        (pb::GameKind::Dolmen, 5, 5),
    ];
    for (kind, players, seed) in games {
        let (id, tokens) = create(&mut client, kind, players, seed).await;
        let mut rng = Lcg(seed);
        // Half-way: no outcome, so no keys, for anybody.
        play_random(&mut client, &id, &tokens, &mut rng, 20)
            .await
            .expect("play");
        for token in tokens.iter().map(Some).chain([None]) {
            let view = state(&mut client, &id, token.map(String::as_str)).await;
            assert!(
                view.outcome.is_none(),
                "{kind:?}: an outcome before the end"
            );
        }
        play_random(&mut client, &id, &tokens, &mut rng, 100_000)
            .await
            .expect("play");
        let view = state(&mut client, &id, None).await;
        assert_eq!(view.status, pb::GameStatus::Finished as i32, "{kind:?}");
        let outcome = view.outcome.clone().expect("an outcome");
        let keys: Vec<Vec<i32>> = outcome.tie_breaks.iter().map(|t| t.keys.clone()).collect();
        assert_eq!(
            keys.len(),
            players as usize,
            "{kind:?}: keys for every seat"
        );
        let names = outcome.tie_break_names.len();
        assert!(names > 0, "{kind:?}: the keys are named");
        assert!(
            keys.iter().all(|k| k.len() == names),
            "{kind:?}: {outcome:?}"
        );
        assert_eq!(
            recompute(&outcome.scores, &keys),
            (outcome.ranking.clone(), outcome.winners.clone()),
            "{kind:?}: the published keys give the published result"
        );
        // The keys are what each seat saw of itself.
        for (seat, token) in tokens.iter().enumerate() {
            let own = state(&mut client, &id, Some(token)).await;
            assert_eq!(own_keys(&own, seat), keys[seat], "{kind:?}: seat {seat}");
        }
        // The game's last event says the same.
        let events = all_events(&mut client, &id, None).await;
        let Some(Body::GameFinished(finished)) = events.last().and_then(|e| e.body.clone()) else {
            panic!("{kind:?}: the log ends with GameFinished");
        };
        assert_eq!(finished.outcome.as_ref(), Some(&outcome), "{kind:?}");
        // And the HTTP face, to a client that knows only JSON.
        let (status, _, body) = http(
            &base,
            "POST",
            "/api/v1/GetState",
            &[("content-type", "application/json")],
            &format!(r#"{{"gameId": "{id}"}}"#),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        let o = &json["state"]["outcome"];
        let scores: Vec<i32> = serde_json::from_value(o["scores"].clone()).expect("scores");
        let keys: Vec<Vec<i32>> = o["tieBreaks"]
            .as_array()
            .expect("tieBreaks")
            .iter()
            .map(|t| serde_json::from_value(t["keys"].clone()).expect("keys"))
            .collect();
        let ranking: Vec<u32> = serde_json::from_value(o["ranking"].clone()).expect("ranking");
        let winners: Vec<u32> = serde_json::from_value(o["winners"].clone()).expect("winners");
        assert_eq!(
            recompute(&scores, &keys),
            (ranking, winners),
            "{kind:?}: {o}"
        );
    }
    server.stop().await;
}
