//! Chance on cue: a game created with `GameOptions.chance_script` draws
//! the scripted results first (then its seed's), says its seed was chosen,
//! and replays exactly; a game that draws nothing refuses a script.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_tests::TestServer;
use tonic::Code;

use super::events_so_far;

#[tokio::test]
async fn scripted_dice_come_first_and_the_game_says_its_seed_was_chosen() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    // Meduris's set-up draws 14 bonus chips for two players (left to the
    // seed: -1), then one die a turn: "-1", "+1", then a stone yield.
    let mut script = vec![-1; 14];
    script.extend([5, 4, 3]);
    let made = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            seed: Some(9),
            options: Some(pb::GameOptions {
                chance_script: script,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = made.game_id;
    let tokens: Vec<_> = made.seats.into_iter().map(|s| s.token).collect();
    assert!(made.state.unwrap().seed_chosen_by_creator);
    let mut rolled = Vec::new();
    let mut rng = druids_tests::Lcg(3);
    for _ in 0..200 {
        if rolled.len() >= 3 {
            break;
        }
        druids_tests::play_random(&mut client, &id, &tokens, &mut rng, 1)
            .await
            .unwrap();
        let events = events_so_far(&mut client, &id).await;
        rolled = events
            .iter()
            .filter_map(|e| match &e.body {
                Some(Body::Meduris(m)) => match &m.kind {
                    Some(pb::meduris_event::Kind::DieRolled(d)) => Some(*d),
                    _ => None,
                },
                _ => None,
            })
            .collect();
    }
    assert!(rolled.len() >= 3, "{rolled:?}");
    assert!(rolled[0].minus_one, "{rolled:?}");
    assert!(rolled[1].plus_one, "{rolled:?}");
    assert_eq!(
        rolled[2].yield_good,
        pb::MedurisGood::Stone as i32,
        "{rolled:?}"
    );
    // Played to its end, its replay holds the script and re-runs to the
    // same result.
    druids_tests::play_random(&mut client, &id, &tokens, &mut rng, 100_000)
        .await
        .unwrap();
    let replay = client
        .export_replay(pb::ExportReplayRequest {
            game_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay.options.as_ref().unwrap().chance_script.len(), 17);
    let outcome = druids_contract::replay::verify(&replay).expect("the replay re-runs");
    assert_eq!(outcome, replay.outcome, "the scripted dice replay exactly");
    // Started from its replay with options of its own (a clock), a game
    // keeps the replay's dice script, so the replay's actions apply.
    let n = replay.actions.len() as u32 - 1;
    let started = client
        .create_game(pb::CreateGameRequest {
            start_from: Some(pb::StartFrom {
                replay: Some(replay.clone()),
                actions: n,
            }),
            options: Some(pb::GameOptions {
                decision_ms: Some(5000),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("started from the scripted replay, with a clock")
        .into_inner();
    let state = started.state.expect("a state");
    assert_eq!(state.version, u64::from(n), "{state:?}");
    assert!(state.deadline_unix_ms.is_some(), "the clock given runs");

    // A game without draws takes no script.
    let refused = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            options: Some(pb::GameOptions {
                chance_script: vec![0],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().contains("chance_script"), "{refused:?}");
    assert_eq!(violated_field(&refused), "options.chance_script");

    // A bad script is refused in the contract's words, naming its field.
    for (script, words) in [
        (
            vec![-2],
            "options.chance_script = -2 is out of range (-1 to 999)",
        ),
        (
            vec![0; 1001],
            "options.chance_script has 1001 entries, at most 1000 allowed",
        ),
    ] {
        let refused = client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                options: Some(pb::GameOptions {
                    chance_script: script,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert_eq!(refused.message(), words);
        assert_eq!(violated_field(&refused), "options.chance_script");
    }
}

/// The field a refusal's BadRequest detail names.
fn violated_field(refused: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    let bad = refused
        .get_details_bad_request()
        .expect("a BadRequest detail");
    bad.field_violations[0].field.clone()
}
