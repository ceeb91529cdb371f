//! `GET /api/v1/bots/{bot_id}/games`: a bot's finished games as NDJSON, one
//! ExportReplay answer per line, in pages with a cursor; a game still in
//! play is never among them.

use std::sync::Arc;

use druids_contract::json::from_json;
use druids_contract::pb;
use druids_server::MemoryStore;
use druids_tests::{TestServer, authed, http_face};

use crate::arena::{arena, bot_events_until, challenge_accepted, register, seek_and_play};
use crate::cli_commands::ok;
use crate::web::http;

/// The replays of one page, its cursor to the next (if any), its status and
/// content type.
async fn page(base: &str, path: &str) -> (u16, String, Vec<pb::Replay>, Option<String>) {
    let (status, head, body) = http(base, "GET", path, &[], "").await;
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .map(|v| v.trim().to_owned())
    };
    let replays = if status == 200 {
        body.lines()
            .map(|l| {
                let json: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
                from_json::<pb::Replay>(&json).expect("an ExportReplay answer")
            })
            .collect()
    } else {
        Vec::new()
    };
    let kind = header("content-type").unwrap_or_default();
    (status, kind, replays, header("x-next-page-token"))
}

#[tokio::test]
async fn a_bots_finished_games_export_as_ndjson_in_pages() {
    let server = TestServer::with(Arc::new(MemoryStore::default()), crate::arena::limits()).await;
    let base = http_face(&server).await;
    let mut a = arena(&server).await;
    let (ada, ada_key) = register(&mut a, "ada").await;
    let (_, bob_key) = register(&mut a, "bob").await;
    let (cy, cy_key) = register(&mut a, "cy").await;
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: false,
    };
    for round in 0..3 {
        let first = seek_and_play(server.url(), ada_key.clone(), seek, 10 + round);
        let second = seek_and_play(server.url(), bob_key.clone(), seek, 20 + round);
        tokio::join!(first, second);
    }
    // Ada challenges Cy, who accepts: a game of Ada's in play, listed by
    // ListGames, never exported while it runs.
    let challenge = pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![cy],
        ..Default::default()
    };
    challenge_accepted(&mut a, &ada_key, &cy_key, challenge).await;
    let mut client = server.client().await;
    let mut listed = Vec::new();
    for _ in 0..600 {
        listed = client
            .list_games(pb::ListGamesRequest {
                bot_id: ada.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .games;
        if listed.len() == 4 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let in_play: Vec<_> = listed
        .iter()
        .filter(|g| g.status == pb::GameStatus::Running as i32)
        .map(|g| g.game_id.clone())
        .collect();
    assert_eq!(in_play.len(), 1, "{listed:?}");

    let path = format!("/api/v1/bots/{ada}/games?max=2");
    let (status, kind, first, next) = page(&base, &path).await;
    assert_eq!((status, kind.as_str()), (200, "application/x-ndjson"));
    assert_eq!(first.len(), 2);
    let next = next.expect("a cursor to the third game");
    let (_, _, second, last) = page(
        &base,
        &format!("/api/v1/bots/{ada}/games?max=2&page_token={next}"),
    )
    .await;
    assert_eq!((second.len(), last), (1, None));
    // `max=0` is the default page (20), as a gRPC page_size of 0 is.
    let (_, _, whole, none) = page(&base, &format!("/api/v1/bots/{ada}/games?max=0")).await;
    assert_eq!((whole.len(), none), (3, None));
    let all: Vec<_> = first.iter().chain(&second).collect();
    for replay in &all {
        assert_eq!(replay.status, pb::GameStatus::Finished as i32);
        assert!(replay.outcome.is_some());
        // Each line is the replay ExportReplay gives, and re-runs.
        druids_contract::replay::verify(replay).expect("the replay re-runs");
        let exported = client
            .export_replay(pb::ExportReplayRequest {
                game_id: replay.game_id.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(&&exported, replay);
    }
    let mut ids: Vec<_> = all.iter().map(|r| r.game_id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "three different games");
    assert!(
        !ids.contains(&in_play[0]),
        "the game in play is not exported"
    );

    // `druids export-games` writes the same lines over gRPC.
    let (url, bot) = (server.url(), ada.clone());
    let (two, every) = tokio::task::spawn_blocking(move || {
        let two = ok(&url, &["export-games", "--bot-id", &bot, "--max", "2"]);
        (two, ok(&url, &["export-games", "--bot-id", &bot]))
    })
    .await
    .unwrap();
    let lines = |out: &str| -> Vec<pb::Replay> {
        out.lines()
            .map(|l| from_json(&serde_json::from_str(l).expect("JSON")).expect("a replay"))
            .collect()
    };
    assert_eq!(lines(&two).len(), 2);
    assert_eq!(lines(&every).len(), 3);

    // A bad count and an unknown parameter are refused, as INVALID_ARGUMENT.
    for query in ["max=lots", "since=yesterday"] {
        let (status, ..) = page(&base, &format!("/api/v1/bots/{ada}/games?{query}")).await;
        assert_eq!(status, 400, "{query}");
    }
    // A bot with no finished game has an empty page.
    let (status, _, none, next) = page(&base, "/api/v1/bots/0000000000000000/games").await;
    assert_eq!((status, none.len(), next), (200, 0, None));
    server.stop().await;
}

#[tokio::test]
async fn a_game_of_a_duplicate_match_in_play_is_left_out_until_the_match_ends() {
    let server = TestServer::with(Arc::new(MemoryStore::default()), crate::arena::limits()).await;
    let base = http_face(&server).await;
    let mut a = arena(&server).await;
    let (ada, ada_key) = register(&mut a, "ada").await;
    let (bob, bob_key) = register(&mut a, "bob").await;
    // A rated Meduris match of two is a duplicate match: two games at once,
    // one seed.
    let challenge = pb::ChallengeRequest {
        kind: pb::GameKind::Meduris as i32,
        opponents: vec![bob],
        rated: true,
        ..Default::default()
    };
    challenge_accepted(&mut a, &ada_key, &bob_key, challenge).await;
    let started = bot_events_until(&mut a, &ada_key, |e| {
        let games = e
            .iter()
            .filter(|e| matches!(e.event, Some(pb::bot_event::Event::GameStarted(_))));
        games.count() == 2
    })
    .await;
    let first = started
        .iter()
        .find_map(|e| match &e.event {
            Some(pb::bot_event::Event::GameStarted(g)) => Some(g.game_id.clone()),
            _ => None,
        })
        .expect("a game");

    // Ada resigns the first game: it is over, the match's other game is not.
    let mut client = server.client().await;
    let resign = pb::ResignRequest {
        game_id: first.clone(),
        idempotency_key: String::new(),
    };
    client.resign(authed(&ada_key, resign)).await.unwrap();
    let over = client
        .export_replay(pb::ExportReplayRequest {
            game_id: first.clone(),
        })
        .await
        .expect_err("its replay is withheld while the match is played");
    assert!(druids_contract::replay::withheld(&over), "{over:?}");

    // The bot's games answer, without it, over HTTP and through the CLI.
    let (status, _, replays, next) = page(&base, &format!("/api/v1/bots/{ada}/games")).await;
    assert_eq!((status, replays.len(), next), (200, 0, None));
    let (url, bot) = (server.url(), ada.clone());
    let exported =
        tokio::task::spawn_blocking(move || ok(&url, &["export-games", "--bot-id", &bot]))
            .await
            .unwrap();
    assert_eq!(exported.lines().count(), 0, "{exported}");
    server.stop().await;
}
