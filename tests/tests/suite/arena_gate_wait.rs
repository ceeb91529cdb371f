//! A duplicate match's game waiting at a die for its other games
//! (docs/ratings.md, "The dice promise"): no seat can act in it, so a
//! `SubmitAction` meanwhile, and a `StreamEvents` resumed from a seq the
//! game has not reached, are `UNAVAILABLE` (`WAITING_FOR_MATCH`) with a
//! `RetryInfo`: retried, as the contract tells clients, they succeed once
//! the die is released. (After a takeover a rebuilt game waits there with
//! seqs its clients already saw; a refusal such as `INVALID_ARGUMENT` made
//! `druids bot` give the game up.)

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::{TestServer, authed, state};
use tonic::Code;
use tonic_types::StatusExt;

use crate::arena::{arena, limits, register, submit_pick};
use crate::trust::reason;

/// The games of the match `key`'s seek brings: (game id, seat, index).
async fn games_of(
    arena: &mut crate::arena::Arena,
    key: &str,
) -> (tonic::Streaming<pb::SeekEvent>, Vec<(String, u32, u32)>) {
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    let mut stream = arena
        .seek(authed(key, seek))
        .await
        .expect("seek")
        .into_inner();
    let mut games = Vec::new();
    while games.len() < 2 {
        let event = druids_tests::heartbeats::next_event(&mut stream)
            .await
            .expect("seek event")
            .expect("the seek goes on");
        if let Some(pb::seek_event::Event::GameStarted(g)) = event.event {
            games.push((g.game_id, g.seat, g.index));
        }
    }
    (stream, games)
}

/// Each bot's key and the games of its match: (game id, seat, index).
pub(crate) type Seated = [(String, Vec<(String, u32, u32)>); 2];

/// Game `index` of the match.
pub(crate) fn game(games: &Seated, index: u32) -> String {
    games[0].1.iter().find(|g| g.2 == index).unwrap().0.clone()
}

/// The key of the bot at `seat` of game `game_id`.
pub(crate) fn key_of(games: &Seated, game_id: &str, seat: u32) -> String {
    games
        .iter()
        .find(|(_, gs)| gs.iter().any(|g| g.0 == game_id && g.1 == seat))
        .map(|(k, _)| k.clone())
        .unwrap()
}

/// A rated 2-player Meduris match between two fresh bots on a server in
/// memory whose clock decides for no one in a test's time; the seeks'
/// streams (kept open while the match is played) and its games.
pub(crate) async fn a_match() -> (TestServer, impl Sized, Seated) {
    let mut limits = limits();
    limits.arena.decision_ms = 3_600_000;
    limits.arena.time_bank_ms = 0;
    let server = TestServer::with(
        std::sync::Arc::new(druids_server::MemoryStore::default()),
        limits,
    )
    .await;
    let mut arena_client = arena(&server).await;
    let (_, alpha) = register(&mut arena_client, "alpha").await;
    let (_, beta) = register(&mut arena_client, "beta").await;
    let (mut arena_a, mut arena_b) = (arena_client.clone(), arena_client.clone());
    let (a, b) = tokio::join!(
        games_of(&mut arena_a, &alpha),
        games_of(&mut arena_b, &beta)
    );
    (server, (a.0, b.0), [(alpha, a.1), (beta, b.1)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_waiting_for_its_match_asks_for_a_retry() {
    // Game 1 is left alone: its clock must not play it to the die.
    let (server, _streams, games) = a_match().await;
    // Game 0, and the key of each of its seats.
    let game = self::game(&games, 0);
    let key_of = |seat: u32| key_of(&games, &game, seat);
    let mut client = DruidsServiceClient::connect(server.url()).await.unwrap();
    // While the two games are the same game, a decision in one waits for
    // the other's at the same position (`arena_twins`): game 1's first
    // decision differs from game 0's, both made at once, and from then on
    // game 0 is played alone.
    let other = self::game(&games, 1);
    let in_other = self::key_of(&games, &other, 0);
    let (mut c0, mut c1) = (client.clone(), client.clone());
    let (first, first_other) = tokio::join!(
        crate::arena_twins::deciding(&mut c0, &game),
        crate::arena_twins::deciding(&mut c1, &other)
    );
    assert_eq!((first.to_act, first_other.to_act), (Some(0), Some(0)));
    let first_key = key_of(0);
    let (a, b) = tokio::join!(
        submit_pick(&mut c0, &first_key, &game, 0, first.version),
        submit_pick(&mut c1, &in_other, &other, 1, first_other.version)
    );
    a.expect("game 0's first decision");
    b.expect("game 1's first decision");
    // Play game 0 until it waits for game 1 at a die.
    let mut waiting = None;
    for _ in 0..2_000 {
        let view = state(&mut client, &game, None).await;
        assert_ne!(view.status, pb::GameStatus::Finished as i32, "{view:?}");
        if view.waiting_for_match {
            waiting = Some(view);
            break;
        }
        let seat = view.to_act.expect("a seat decides");
        submit_pick(&mut client, &key_of(seat), &game, 0, view.version)
            .await
            .expect("an action");
    }
    let view = waiting.expect("game 0 reached a die game 1 has not");
    assert_eq!(view.to_act, None);
    // Each seat's submission: retry later, nothing applied.
    for seat in 0..2 {
        let refused = submit_pick(&mut client, &key_of(seat), &game, 0, view.version)
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
        assert_eq!(reason(&refused), "WAITING_FOR_MATCH");
        assert!(refused.get_details_retry_info().is_some(), "{refused:?}");
    }
    // A stream from beyond the log: the same; from its next seq: served.
    let beyond = client
        .stream_events(authed(
            &key_of(0),
            pb::StreamEventsRequest {
                game_id: game.clone(),
                from_seq: view.last_seq + 2,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(beyond.code(), Code::Unavailable, "{beyond:?}");
    assert_eq!(reason(&beyond), "WAITING_FOR_MATCH");
    client
        .stream_events(authed(
            &key_of(0),
            pb::StreamEventsRequest {
                game_id: game.clone(),
                from_seq: view.last_seq + 1,
            },
        ))
        .await
        .expect("a stream from the next seq");
    let after = state(&mut client, &game, None).await;
    assert_eq!(
        (after.version, after.last_seq),
        (view.version, view.last_seq)
    );
    server.stop().await;
}
