//! A late answer at a game's very end (docs/testing-clients.md, section 3;
//! `ERROR_REASON_DEADLINE_PASSED` in druids.proto): when the turn clock's
//! default for a seat's last decision ends the game, that seat's answer to
//! the decision, arriving after, is refused `ABORTED`, `DEADLINE_PASSED`, as
//! any answer the clock overtook is, not `FAILED_PRECONDITION`, `GAME_OVER`;
//! nothing changes. Time is a `ManualClock`, moved by the test.

use druids_contract::pb;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use tonic::Code;

use crate::faults::reason;

/// Seeds tried for a game whose last decision's default ends it.
const SEEDS: u64 = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_to_the_decision_whose_default_ended_the_game_is_deadline_passed() {
    let (server, clock) = TestServer::on_manual_clock(1_000_000).await;
    let mut client = server.client().await;
    for seed in 1..=SEEDS {
        // A game played to its end, then started again at its last decision
        // with a turn clock.
        let (old, tokens) = create(&mut client, pb::GameKind::Meduris, 2, seed).await;
        play_random(&mut client, &old, &tokens, &mut Lcg(seed), 100_000)
            .await
            .expect("a random game");
        let replay = client
            .export_replay(pb::ExportReplayRequest { game_id: old })
            .await
            .expect("its replay")
            .into_inner();
        let last = u32::try_from(replay.actions.len() - 1).unwrap();
        let game = client
            .create_game(pb::CreateGameRequest {
                start_from: Some(pb::StartFrom {
                    replay: Some(replay),
                    actions: last,
                }),
                options: Some(pb::GameOptions {
                    decision_ms: Some(1_000),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .expect("the game at its last decision")
            .into_inner();
        let tokens: Vec<String> = game.seats.iter().map(|s| s.token.clone()).collect();
        let before = state(&mut client, &game.game_id, None).await;
        let seat = before.to_act.expect("a decision") as usize;
        clock.advance(1_001);
        server.service.expire_due();
        let after = state(&mut client, &game.game_id, None).await;
        if after.status != pb::GameStatus::Finished as i32 {
            continue; // this default did not end the game: another seed
        }
        let late = client
            .submit_action(authed(
                &tokens[seat],
                pb::SubmitActionRequest {
                    game_id: game.game_id.clone(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                    expected_version: Some(before.version),
                    idempotency_key: "late".into(),
                },
            ))
            .await
            .expect_err("the clock decided first");
        assert_eq!(late.code(), Code::Aborted, "{late:?}");
        assert_eq!(reason(&late), "DEADLINE_PASSED", "{late:?}");
        let unchanged = state(&mut client, &game.game_id, None).await;
        assert_eq!(unchanged.version, after.version, "nothing applied");
        // Another seat's answer at that version: the game is simply over.
        let other = client
            .submit_action(authed(
                &tokens[(seat + 1) % tokens.len()],
                pb::SubmitActionRequest {
                    game_id: game.game_id.clone(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                    expected_version: Some(before.version),
                    idempotency_key: "other".into(),
                },
            ))
            .await
            .expect_err("over");
        assert_eq!(other.code(), Code::FailedPrecondition, "{other:?}");
        assert_eq!(reason(&other), "GAME_OVER", "{other:?}");
        server.stop().await;
        return;
    }
    panic!("no game of {SEEDS} seeds whose last decision's default ends it");
}
