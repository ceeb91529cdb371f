//! The arena's log streams (`StreamBotEvents`, `StreamTournamentEvents`)
//! take a place in the stream budgets `StreamEvents` draws on, as the
//! README's flag table says: `--max-streams-per-address` per client address
//! (one budget for all three kinds) and `--max-open-streams` server-wide,
//! and `StreamBotEvents` at most 8 per bot. A stream beyond a budget is
//! refused `RESOURCE_EXHAUSTED` `LIMIT_REACHED` and takes nothing; a bad key
//! is `UNAUTHENTICATED` whatever the budgets; a closed stream gives its
//! place back. Through the contract on a real server over TCP.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, authed, create};
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Streaming};

use crate::arena::{Arena, arena, limits, register};
use crate::trust::refused;

/// `StreamBotEvents` one bot may have open at once (the server's
/// `MAX_BOT_EVENT_STREAMS`, as the README states it).
const PER_BOT: usize = 8;

/// Tries to reopen a stream whose place was just given back, this many
/// times at most (the server frees it once it sees the stream dropped).
const REOPEN_TRIES: usize = 500;

/// The arena from loopback address `127.0.0.<n>` (Linux routes all of 127/8
/// to the loopback interface): another client address to the budgets.
async fn arena_from(server: &TestServer, n: u8) -> Arena {
    ArenaServiceClient::new(channel_from(server, n).await)
}

async fn channel_from(server: &TestServer, n: u8) -> Channel {
    Endpoint::from_shared(server.url())
        .unwrap()
        .local_address(Some(std::net::Ipv4Addr::new(127, 0, 0, n).into()))
        .connect()
        .await
        .expect("connect")
}

fn from_start() -> pb::StreamBotEventsRequest {
    pb::StreamBotEventsRequest { from_seq: 0 }
}

async fn bot_events(a: &mut Arena, key: &str) -> Result<Streaming<pb::BotEvent>, tonic::Status> {
    a.stream_bot_events(authed(key, from_start()))
        .await
        .map(tonic::Response::into_inner)
}

/// A refusal for a full budget, whose message names it.
fn full<T: std::fmt::Debug>(result: Result<T, tonic::Status>, says: &str) {
    let status = refused(result, Code::ResourceExhausted, "LIMIT_REACHED");
    assert!(
        status.message().contains(says),
        "the refusal says {says:?}: {status:?}"
    );
}

/// Opens a `StreamBotEvents` for `key` once the place a closed stream gave
/// back is free ([`once_free`]).
async fn reopened(a: &mut Arena, key: &str) -> Streaming<pb::BotEvent> {
    once_free(async || bot_events(a, key).await).await
}

/// What `open` opens once the server has seen a closed stream dropped and
/// freed its place: tried again while the budget is full (at most
/// [`REOPEN_TRIES`] times, pausing as the contract's retry delay says);
/// panics if the place never comes back.
async fn once_free<T>(mut open: impl AsyncFnMut() -> Result<T, tonic::Status>) -> T {
    for _ in 0..REOPEN_TRIES {
        match open().await {
            Ok(opened) => return opened,
            Err(s) if s.code() == Code::ResourceExhausted => {
                tokio::time::sleep(druids_tests::retry_delay(&s)).await;
            }
            Err(s) => panic!("reopening: {s:?}"),
        }
    }
    panic!("the place of a closed stream is never given back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_event_streams_count_against_its_address() {
    let server = TestServer::with(
        Arc::new(MemoryStore::default()),
        Limits {
            max_streams_per_address: 3,
            ..limits()
        },
    )
    .await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "streamer").await;
    // A bad key is UNAUTHENTICATED and takes nothing, however often.
    for _ in 0..5 {
        let bad = a.stream_bot_events(authed("not-a-key", from_start())).await;
        assert_eq!(bad.unwrap_err().code(), Code::Unauthenticated);
    }
    let mut open = Vec::new();
    for n in 0..3 {
        open.push(
            bot_events(&mut a, &key)
                .await
                .unwrap_or_else(|s| panic!("stream {n} of 3: {s:?}")),
        );
    }
    // The address's budget is spent: the next is refused, and a refusal
    // takes nothing (the next is refused the same).
    for _ in 0..3 {
        full(bot_events(&mut a, &key).await, "from one address");
    }
    // A bad key is still UNAUTHENTICATED, not refused for the budget.
    let bad = a.stream_bot_events(authed("not-a-key", from_start())).await;
    assert_eq!(bad.unwrap_err().code(), Code::Unauthenticated);
    // Another address has its own budget.
    let mut elsewhere = arena_from(&server, 2).await;
    let other = bot_events(&mut elsewhere, &key)
        .await
        .expect("another address's budget is its own");
    // A closed stream gives its place back.
    drop(open.pop());
    open.push(reopened(&mut a, &key).await);
    full(bot_events(&mut a, &key).await, "from one address");
    drop(other);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_holds_at_most_eight_event_streams() {
    let server = TestServer::with(
        Arc::new(MemoryStore::default()),
        Limits {
            max_streams_per_address: 1_000,
            ..limits()
        },
    )
    .await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "greedy").await;
    let (_, other_key) = register(&mut a, "modest").await;
    let mut open = Vec::new();
    for n in 0..PER_BOT {
        open.push(
            bot_events(&mut a, &key)
                .await
                .unwrap_or_else(|s| panic!("stream {n} of {PER_BOT}: {s:?}")),
        );
    }
    full(
        bot_events(&mut a, &key).await,
        &format!("at most {PER_BOT} StreamBotEvents"),
    );
    // From another address too: the cap is the bot's.
    let mut elsewhere = arena_from(&server, 3).await;
    full(
        bot_events(&mut elsewhere, &key).await,
        &format!("at most {PER_BOT} StreamBotEvents"),
    );
    // Another bot, from the same address, has its own.
    let mut others = Vec::new();
    for n in 0..PER_BOT {
        others.push(
            bot_events(&mut a, &other_key)
                .await
                .unwrap_or_else(|s| panic!("the other bot's stream {n}: {s:?}")),
        );
    }
    // A closed stream gives the bot its place back, and only one.
    drop(open.swap_remove(3));
    open.push(reopened(&mut elsewhere, &key).await);
    full(
        bot_events(&mut a, &key).await,
        &format!("at most {PER_BOT} StreamBotEvents"),
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_and_arena_streams_share_an_address_budget() {
    let server = TestServer::with(
        Arc::new(MemoryStore::default()),
        Limits {
            max_streams_per_address: 4,
            ..limits()
        },
    )
    .await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "mixer").await;
    let tournament = a
        .create_tournament(authed(
            &key,
            pb::CreateTournamentRequest {
                name: "budget cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: Vec::new(),
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 600,
                    max_entrants: 4,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("create a tournament")
        .into_inner()
        .tournament
        .expect("the tournament")
        .tournament_id;
    let tournament_events = |a: &mut Arena| {
        let mut a = a.clone();
        let req = pb::StreamTournamentEventsRequest {
            tournament_id: tournament.clone(),
            from_seq: 0,
        };
        async move {
            a.stream_tournament_events(req)
                .await
                .map(|r| r.into_inner())
        }
    };
    let mut games: DruidsServiceClient<Channel> = server.client().await;
    let (game, _) = create(&mut games, pb::GameKind::Meduris, 2, 1).await;
    let spectate = |games: &mut DruidsServiceClient<Channel>| {
        let mut games = games.clone();
        let req = pb::StreamEventsRequest {
            game_id: game.clone(),
            from_seq: 0,
        };
        async move { games.stream_events(req).await.map(|r| r.into_inner()) }
    };
    // Two spectators, a bot's log and a tournament's: the address's four.
    let spectators = [
        spectate(&mut games).await.expect("a spectator"),
        spectate(&mut games).await.expect("a spectator"),
    ];
    let mine = bot_events(&mut a, &key).await.expect("the bot's log");
    let cup = tournament_events(&mut a).await.expect("the tournament's");
    // None of the three kinds opens more.
    full(spectate(&mut games).await, "from one address");
    full(bot_events(&mut a, &key).await, "from one address");
    full(tournament_events(&mut a).await, "from one address");
    // A closed spectator's place goes to a bot's log...
    drop(spectators);
    let _second = reopened(&mut a, &key).await;
    let _third = reopened(&mut a, &key).await;
    full(spectate(&mut games).await, "from one address");
    // ...and a bot's log's to a spectator.
    drop(mine);
    let _spectator = once_free(async || spectate(&mut games).await).await;
    drop(cup);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arena_streams_count_in_the_servers_total() {
    let server = TestServer::with(
        Arc::new(MemoryStore::default()),
        Limits {
            max_open_streams: 2,
            ..limits()
        },
    )
    .await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "one").await;
    let (_, other_key) = register(&mut a, "two").await;
    let _one = bot_events(&mut a, &key).await.expect("a bot's log");
    let mut elsewhere = arena_from(&server, 4).await;
    let _two = bot_events(&mut elsewhere, &other_key)
        .await
        .expect("another bot's log, from another address");
    let mut third = arena_from(&server, 5).await;
    full(
        bot_events(&mut third, &other_key).await,
        "at most 2 open streams",
    );
    // StreamEvents share the total.
    let mut games = DruidsServiceClient::new(channel_from(&server, 5).await);
    let (game, _) = create(&mut games, pb::GameKind::Meduris, 2, 2).await;
    full(
        games
            .stream_events(pb::StreamEventsRequest {
                game_id: game,
                from_seq: 0,
            })
            .await,
        "at most 2 open streams",
    );
    server.stop().await;
}
