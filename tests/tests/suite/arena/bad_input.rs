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
    // A description may have several lines, but hides nothing; a contact is
    // one printable line. Nothing is registered.
    let hidden = [
        ("plays\u{202e}greedily", ""),
        ("plays\u{1b}[2Jgreedily", ""),
        ("plays greedily", "me@example.org\n"),
    ];
    for (description, owner_contact) in hidden {
        let refused = a
            .register_bot(pb::RegisterBotRequest {
                name: "delta".into(),
                description: description.into(),
                owner_contact: owner_contact.into(),
            })
            .await
            .expect_err("a control or format character");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    }
    let lines = "plays greedily\n\tthen safely";
    let delta = a
        .register_bot(pb::RegisterBotRequest {
            name: "delta".into(),
            description: lines.into(),
            owner_contact: "me@example.org".into(),
        })
        .await
        .expect("a description of two lines")
        .into_inner();
    let page = a
        .get_bot(pb::GetBotRequest {
            bot_id: delta.bot_id,
        })
        .await
        .expect("GetBot")
        .into_inner();
    assert_eq!(page.description, lines);
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
    // A bot's key is no seat token of a game it does not play: a working
    // key, so not TOKEN_UNKNOWN (which a bot may take for a dead key).
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
    assert_eq!(legal.code(), Code::PermissionDenied, "{legal:?}");
    assert!(legal.message().contains("bot's API key"), "{legal:?}");
}

/// Bot ids that are not ids, a gauntlet without its opponent, an open
/// entry too small for one match and a tournament name with control or
/// format characters are INVALID_ARGUMENT, naming their field.
#[tokio::test]
async fn ids_and_tournament_shapes_are_checked_before_anything_is_read() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (id, key) = register(&mut a, "shaper").await;
    let invalid = |status: tonic::Status, field: &str| {
        assert_eq!(status.code(), Code::InvalidArgument, "{field}: {status:?}");
        assert!(status.message().contains(field), "{field}: {status:?}");
        assert!(status.message().len() < 200, "{field}: {status:?}");
    };
    let challenge = pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec!["X".repeat(500)],
        ..Default::default()
    };
    let refused = a
        .challenge(authed(&key, challenge))
        .await
        .expect_err("not an id");
    invalid(refused, "opponents");
    let tournament = |format, open_entry| pb::CreateTournamentRequest {
        name: "shapes".into(),
        kind: pb::GameKind::Meduris as i32,
        players: 4,
        entrants: vec![id.clone()],
        format: Some(format),
        open_entry,
        ..Default::default()
    };
    use pb::create_tournament_request::Format;
    let open = Some(pb::OpenEntry {
        closes_in_secs: 60,
        max_entrants: 8,
    });
    let no_opponent = tournament(Format::Gauntlet(pb::Gauntlet::default()), open);
    let refused = a
        .create_tournament(authed(&key, no_opponent))
        .await
        .expect_err("a gauntlet needs its opponent");
    invalid(refused, "format.gauntlet.opponent");
    let too_small = tournament(
        Format::Swiss(pb::Swiss { rounds: 1 }),
        Some(pb::OpenEntry {
            closes_in_secs: 60,
            max_entrants: 2,
        }),
    );
    let refused = a
        .create_tournament(authed(&key, too_small))
        .await
        .expect_err("two entrants cannot fill a match of four");
    invalid(refused, "open_entry.max_entrants");
    // A name shown to everyone cannot hide or reorder what it says.
    for name in ["cup\u{202e}puc", "cup\u{200b}", "cup\nfinal"] {
        let mut named = tournament(Format::Swiss(pb::Swiss { rounds: 1 }), open);
        named.name = name.into();
        let refused = a
            .create_tournament(authed(&key, named))
            .await
            .expect_err("a name with control or format characters");
        invalid(refused, "name");
    }
    let listed = a
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .expect("the tournaments")
        .into_inner();
    assert!(
        listed.tournaments.is_empty(),
        "nothing was created: {listed:?}"
    );
    server.stop().await;
}
