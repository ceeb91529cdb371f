//! A lonely seek says why: a seek the pool cannot fill is told on its own
//! stream what it waits for (`SeekWaiting`) and what would help, and told
//! again when that changes; `Seeking.pool_size` counts only the seeks that
//! could share a game with it.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_tests::{TestServer, authed};
use tonic::Streaming;

use crate::arena::{arena, house_bots, limits, register};

fn seek(min: u32, max: u32, rated: bool) -> pb::SeekRequest {
    pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: min,
        max_players: max,
        rated,
    }
}

/// The stream's next event (the server's matchmaking runs every 50 ms).
async fn next(stream: &mut Streaming<pb::SeekEvent>) -> pb::seek_event::Event {
    tokio::time::timeout(
        Duration::from_secs(30),
        druids_tests::heartbeats::next_event(stream),
    )
    .await
    .expect("an event comes")
    .expect("the stream is open")
    .expect("not ended")
    .event
    .expect("an event")
}

fn waiting(e: pb::seek_event::Event) -> pb::SeekWaiting {
    match e {
        pb::seek_event::Event::Waiting(w) => w,
        other => panic!("not waiting: {other:?}"),
    }
}

fn pool_size(e: pb::seek_event::Event) -> u32 {
    match e {
        pb::seek_event::Event::Seeking(s) => s.pool_size,
        other => panic!("not seeking: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lonely_seek_is_told_what_it_waits_for() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, alone) = register(&mut a, "alone").await;
    let (_, casual) = register(&mut a, "casual").await;
    let (_, second) = register(&mut a, "second").await;

    // One bot seeks a rated four-player game: nobody else seeks.
    let mut first = a
        .seek(authed(&alone, seek(4, 4, true)))
        .await
        .expect("seek")
        .into_inner();
    assert_eq!(pool_size(next(&mut first).await), 1);
    let w = waiting(next(&mut first).await);
    assert_eq!(w.reason, pb::WaitReason::TooFewBots as i32, "{w:?}");
    assert_eq!((w.bots, w.players_needed, w.other_rated_seeks), (1, 4, 0));
    assert!(w.message.contains("a game needs 3 more"), "{}", w.message);
    assert!(w.message.contains("meduris:2-4"), "{}", w.message);

    // An unrated seek does not count for it (nor it for the unrated one),
    // but is named as a way out.
    let mut other = a
        .seek(authed(&casual, seek(2, 4, false)))
        .await
        .expect("seek")
        .into_inner();
    assert_eq!(pool_size(next(&mut other).await), 1, "only its own");
    assert_eq!(waiting(next(&mut other).await).other_rated_seeks, 1);

    // A second rated bot: the lonely seek hears that two bots now seek.
    let mut two = a
        .seek(authed(&second, seek(2, 4, true)))
        .await
        .expect("seek")
        .into_inner();
    // 2..=4 overlaps 4..=4 and a game of two can form for it only with the
    // first seek, which wants four: so it waits, too.
    assert_eq!(pool_size(next(&mut two).await), 2);
    let w = waiting(next(&mut first).await);
    assert_eq!((w.reason, w.bots), (pb::WaitReason::TooFewBots as i32, 2));
    assert!(
        w.message.contains("2 bots (this one included)"),
        "{}",
        w.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lonely_seek_is_told_when_house_bots_fill_its_game() {
    let mut l = limits();
    l.arena.house_bots = "random".parse().expect("a level");
    // Long enough that they do not come while the test reads the message.
    l.arena.house_bots_after_ms = 3_600_000;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), l).await;
    house_bots(&server).await;
    let mut a = arena(&server).await;
    let (_, alone) = register(&mut a, "alone").await;
    let mut seeking = a
        .seek(authed(&alone, seek(4, 4, false)))
        .await
        .expect("seek")
        .into_inner();
    assert_eq!(pool_size(next(&mut seeking).await), 1);
    let w = waiting(next(&mut seeking).await);
    assert_eq!(w.reason, pb::WaitReason::TooFewBots as i32, "{w:?}");
    let when = w
        .message
        .split_once("house bots fill the game in about ")
        .and_then(|(_, rest)| rest.split_once(" s unless another bot comes first"))
        .map(|(secs, _)| secs.parse::<u64>());
    assert!(
        matches!(when, Some(Ok(secs)) if secs <= 3600),
        "{}",
        w.message
    );
    server.stop().await;
}
