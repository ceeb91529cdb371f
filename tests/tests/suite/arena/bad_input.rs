//! Every arena call refuses bad input with the right code and a clear
//! message, and changes nothing.

use std::sync::Arc;

use druids_contract::pb;
use druids_tests::{TestServer, authed};
use tonic::Code;

use super::{arena, limits, meduris_seek, register};

#[tokio::test]
async fn arena_calls_refuse_bad_input_clearly() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "gamma").await;
    let taken = a
        .register_bot(pb::RegisterBotRequest {
            name: "gamma".into(),
            ..Default::default()
        })
        .await
        .expect_err("a name is taken once");
    assert_eq!(taken.code(), Code::AlreadyExists);
    let long = a
        .register_bot(pb::RegisterBotRequest {
            name: "x".repeat(10_000),
            ..Default::default()
        })
        .await
        .expect_err("a long name");
    assert_eq!(long.code(), Code::InvalidArgument);
    assert!(long.message().len() < 200, "{}", long.message());
    let no_key = a
        .seek(meduris_seek(2))
        .await
        .expect_err("a seek needs a key");
    assert_eq!(no_key.code(), Code::Unauthenticated);
    let bad_players = a
        .seek(authed(&key, meduris_seek(7)))
        .await
        .expect_err("7 players");
    assert_eq!(bad_players.code(), Code::InvalidArgument);
    let unknown = a
        .get_bot(pb::GetBotRequest {
            bot_id: "0123456789abcdef".into(),
        })
        .await
        .expect_err("no such bot");
    assert_eq!(unknown.code(), Code::NotFound);
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 9,
            ..Default::default()
        })
        .await
        .expect_err("no pool of 9");
    assert_eq!(board.code(), Code::InvalidArgument);
    // A bot's key is no seat token of a game it does not play.
    let mut client = server.client().await;
    let (game, _) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 1).await;
    let legal = client
        .get_legal_actions(authed(
            &key,
            pb::GetLegalActionsRequest {
                game_id: game,
                ..Default::default()
            },
        ))
        .await
        .expect_err("not its game");
    assert_eq!(legal.code(), Code::Unauthenticated);
}
