//! The happy path end to end: complete games at every player count, and
//! the replays finished games export reproduce them.

use super::{MEDURIS, assert_code};
use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, create, play_random, state};
use tonic::Code;

#[tokio::test]
async fn complete_meduris_games_for_every_player_count() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for players in 2..=4u32 {
        let (id, tokens) = create(&mut client, MEDURIS, players, 40 + players as u64).await;
        let mut rng = Lcg(players as u64);
        let n = play_random(&mut client, &id, &tokens, &mut rng, 100_000)
            .await
            .unwrap();
        assert!(n > 20, "a game takes more than 20 decisions, took {n}");
        let st = state(&mut client, &id, None).await;
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        assert_eq!(st.version, n as u64);
        assert_eq!(st.to_act, None);
        let outcome = st.outcome.expect("outcome");
        assert_eq!(outcome.scores.len(), players as usize);
        assert!(!outcome.winners.is_empty());
        // The full replay ends with the result, and the stream then closes.
        let events = druids_tests::all_events(&mut client, &id, None).await;
        for (i, e) in events.iter().enumerate() {
            assert_eq!(
                e.seq,
                i as u64 + 1,
                "a spectator sees every Meduris event, in order"
            );
        }
        assert_eq!(events.len() as u64, st.last_seq);
        match events.last().and_then(|e| e.body.clone()) {
            Some(Body::GameFinished(f)) => assert_eq!(f.outcome.unwrap(), outcome),
            other => panic!("the log should end with GameFinished, not {other:?}"),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn finished_games_export_replays_that_reproduce_them() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 3, 64).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(8), 10)
        .await
        .unwrap();
    assert_code(
        client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.clone(),
            })
            .await,
        Code::FailedPrecondition,
        "still being played",
    );
    let n = 10
        + play_random(&mut client, &id, &tokens, &mut Lcg(9), 100_000)
            .await
            .unwrap();
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay.actions.len(), n);
    assert_eq!(replay.seed, 64);
    let st = state(&mut client, &id, None).await;
    assert_eq!(
        druids_contract::replay::verify(&replay).unwrap(),
        st.outcome
    );
    // A file that was tampered with does not verify.
    let mut tampered = replay.clone();
    tampered.actions.truncate(n - 1);
    assert!(druids_contract::replay::verify(&tampered).is_err());
    let mut other_seed = replay;
    other_seed.seed += 1;
    assert!(druids_contract::replay::verify(&other_seed).is_err());
    server.stop().await;
}
