//! The arena through its contract (`ArenaService`), on a real server over
//! TCP: bots register, seek and play rated matches by matchmaking alone
//! (rated Meduris as duplicate matches, one game per seat rotation, one
//! after another), their keys act for their seats, the leaderboard and
//! profiles show the results, each bot's event log resumes from any seq, keys
//! rotate, and a restart loses no result or rating.

use std::sync::Arc;
use std::time::Duration;

use crate::stores::{Backend, TestDb, on_each_store_threaded};
use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, authed};
use tonic::Code;
use tonic::transport::Channel;

on_each_store_threaded!(
    rated_duplicate_matches_rate_their_bots_and_survive_a_restart,
    a_round_robin_tournament_completes_across_a_restart
);

pub(crate) type Arena = ArenaServiceClient<Channel>;

pub(crate) async fn arena(server: &TestServer) -> Arena {
    ArenaServiceClient::connect(server.url())
        .await
        .expect("connect")
}

/// The operator key of the arena tests: only the operator names a
/// tournament's entrants.
pub(crate) const OPERATOR: &str = "operator-key-of-the-arena-tests";

/// Limits for arena tests: a quick fit, a generous clock, and none of the
/// rules against cheap identities (every bot established, no cap on a
/// pair's rated matches; `arena_sybils.rs` tests those rules).
pub(crate) fn limits() -> Limits {
    let mut limits = Limits::unthrottled();
    limits.arena.operator_key = Some(OPERATOR.into());
    limits.arena.bot_tournaments_per_hour = 1_000;
    limits.arena.fit_secs = 0;
    // Real bots only: no house bot joins a seek that waits.
    limits.arena.house_bots = druids_server::arena::house::Levels(Vec::new());
    limits.arena.established_matches = 0;
    limits.arena.established_opponents = 0;
    limits.arena.pair_matches_per_day = u32::MAX;
    limits
}

pub(crate) async fn register(arena: &mut Arena, name: &str) -> (String, String) {
    let reply = arena
        .register_bot(pb::RegisterBotRequest {
            name: name.to_owned(),
            description: format!("{name}, a random bot"),
            owner_contact: "tests@druids.dev".into(),
        })
        .await
        .expect("register")
        .into_inner();
    (reply.bot_id, reply.api_key)
}

/// Whether a failed call is the server going away (a restart), to be retried:
/// only what the docs tell clients to retry ([`druids_tests::retry_allowed`]).
fn gone(s: &tonic::Status) -> bool {
    druids_tests::retry_allowed(s)
}

/// How long a call refused for a rate limit asks to wait (its RetryInfo),
/// as the docs tell clients: a server process has the default read limits.
fn retry_delay(s: &tonic::Status) -> Option<Duration> {
    use tonic_types::StatusExt;
    if s.code() != Code::ResourceExhausted {
        return None;
    }
    s.get_details_retry_info()?.retry_delay
}

/// Plays the bot's seat of `game_id` at random with its API key until the game
/// ends; a server that restarts meanwhile is waited for.
pub(crate) async fn play_seat(url: String, game_id: String, key: String, seat: u32, seed: u64) {
    let mut rng = Lcg(seed);
    let client = druids_contract::pb::druids_service_client::DruidsServiceClient::new(
        tonic::transport::Endpoint::from_shared(url)
            .unwrap()
            .connect_lazy(),
    );
    loop {
        let mut client = client.clone();
        let state = match client
            .get_state(authed(
                &key,
                pb::GetStateRequest {
                    game_id: game_id.clone(),
                },
            ))
            .await
        {
            Ok(reply) => reply.into_inner().state.unwrap(),
            Err(s) if gone(&s) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(s) if let Some(delay) = retry_delay(&s) => {
                tokio::time::sleep(delay).await;
                continue;
            }
            Err(s) => panic!("the key reads its seat's view: {s:?}"),
        };
        assert_eq!(state.viewer_seat, Some(seat), "the key acts for its seat");
        let over = [pb::GameStatus::Finished, pb::GameStatus::Abandoned];
        match state.to_act {
            None if over.contains(&state.status()) => return,
            // Its duplicate match's other games are yet to reach its next die.
            None => {
                assert!(state.waiting_for_match, "{state:?}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Some(s) if s != seat => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Some(_) => {}
        }
        let legal = match client
            .get_legal_actions(authed(
                &key,
                pb::GetLegalActionsRequest {
                    game_id: game_id.clone(),
                    ..Default::default()
                },
            ))
            .await
        {
            Ok(reply) => reply.into_inner(),
            Err(s) if gone(&s) => continue,
            Err(s) if let Some(delay) = retry_delay(&s) => {
                tokio::time::sleep(delay).await;
                continue;
            }
            Err(s) => panic!("legal actions: {s:?}"),
        };
        if legal.actions.is_empty() {
            continue;
        }
        let pick = rng.below(legal.actions.len()) as u32;
        let submitted = submit_pick(&mut client, &key, &game_id, pick, legal.version).await;
        if let Err(s) = submitted {
            // The clock may have decided first, or the server restarted.
            assert!(
                gone(&s) || matches!(s.code(), Code::Aborted | Code::FailedPrecondition),
                "{s:?}"
            );
        }
    }
}

/// Submits legal action `pick` of the key's seat at `version` (keyed by it).
pub(crate) async fn submit_pick(
    client: &mut druids_contract::pb::druids_service_client::DruidsServiceClient<Channel>,
    key: &str,
    game_id: &str,
    pick: u32,
    version: u64,
) -> Result<tonic::Response<pb::SubmitActionResponse>, tonic::Status> {
    client
        .submit_action(authed(
            key,
            pb::SubmitActionRequest {
                game_id: game_id.to_owned(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                expected_version: Some(version),
                idempotency_key: format!("v{version}"),
            },
        ))
        .await
}

/// Seeks once and plays the match it brings to its end; the match's result.
pub(crate) async fn seek_and_play(
    url: String,
    key: String,
    req: pb::SeekRequest,
    seed: u64,
) -> pb::MatchFinished {
    let mut arena = ArenaServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let mut stream = arena
        .seek(authed(&key, req))
        .await
        .expect("seek")
        .into_inner();
    let mut games = 0;
    let mut played = Vec::new();
    let mut playing = tokio::task::JoinSet::new();
    let mut service =
        druids_contract::pb::druids_service_client::DruidsServiceClient::connect(url.clone())
            .await
            .expect("connect");
    loop {
        let event = stream
            .message()
            .await
            .expect("seek event")
            .expect("the seek stream ends after match_finished");
        match event.event.expect("an event") {
            pb::seek_event::Event::Seeking(s) => assert!(s.pool_size >= 1),
            pb::seek_event::Event::Waiting(w) => assert!(!w.message.is_empty()),
            pb::seek_event::Event::MatchStarted(m) => assert!(m.games >= 1),
            pb::seek_event::Event::GameStarted(g) => {
                assert_eq!(g.index, games, "games are told in the order of their index");
                if let Some(previous) = played.last() {
                    let refused = service
                        .export_replay(pb::ExportReplayRequest {
                            game_id: String::clone(previous),
                        })
                        .await
                        .expect_err("no replay (and seed) while the duplicate match runs");
                    assert_eq!(refused.code(), Code::FailedPrecondition);
                }
                games += 1;
                // A duplicate match's games are played at once.
                playing.spawn(play_seat(
                    url.clone(),
                    g.game_id.clone(),
                    key.clone(),
                    g.seat,
                    seed + u64::from(games),
                ));
                played.push(g.game_id);
            }
            pb::seek_event::Event::MatchFinished(f) => {
                while let Some(game) = playing.join_next().await {
                    game.expect("a seat played to the end");
                }
                assert!(
                    stream.message().await.expect("end").is_none(),
                    "then the stream ends"
                );
                // The seed, shared by the match's games, is published with
                // the replays once the match is over.
                for id in &played {
                    let replay = service
                        .export_replay(pb::ExportReplayRequest {
                            game_id: id.clone(),
                        })
                        .await
                        .expect("the replay once the match is over")
                        .into_inner();
                    assert_ne!(replay.seed, 0);
                    // And the key still reads the ended game as its seat.
                    let view = service
                        .get_state(authed(
                            &key,
                            pb::GetStateRequest {
                                game_id: id.clone(),
                            },
                        ))
                        .await
                        .expect("the key reads its ended game")
                        .into_inner()
                        .state
                        .unwrap();
                    assert!(view.viewer_seat.is_some());
                }
                return f;
            }
        }
    }
}

fn meduris_seek(players: u32) -> pb::SeekRequest {
    pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: players,
        max_players: players,
        rated: true,
    }
}

async fn rated_duplicate_matches_rate_their_bots_and_survive_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "arena_restart");
    let server = TestServer::with(db.open(), limits()).await;
    let mut arena_client = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["alpha", "beta"] {
        bots.push(register(&mut arena_client, name).await);
    }
    // Two rated two-player Meduris matches: duplicate, two games each.
    let mut results = Vec::new();
    for round in 0..2u64 {
        let players: Vec<_> = bots
            .iter()
            .enumerate()
            .map(|(i, (_, key))| {
                tokio::spawn(seek_and_play(
                    server.url(),
                    key.clone(),
                    meduris_seek(2),
                    10 * round + i as u64,
                ))
            })
            .collect();
        for p in players {
            results.push(p.await.unwrap());
        }
    }
    for r in &results {
        assert_eq!(r.placements.len(), 2, "{r:?}");
    }
    let board = arena_client
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    assert_eq!(board.entries.len(), 2, "{board:?}");
    assert!(board.entries.iter().all(|e| e.matches == 2), "{board:?}");
    let profile = arena_client
        .get_bot(pb::GetBotRequest {
            bot_id: bots[0].0.clone(),
        })
        .await
        .expect("profile")
        .into_inner();
    assert_eq!(profile.recent_matches.len(), 2);
    assert_eq!(profile.ratings.len(), 1);

    // The event log: from seq 1, and resumed from the middle.
    let events = bot_events(&mut arena_client, &bots[0].1, 1, |e| e.len() >= 14).await;
    let kinds: Vec<&str> = events.iter().map(|e| event_name(e)).collect();
    // A duplicate match's games are played at once.
    let expected = [
        "match",
        "game",
        "game",
        "game finished",
        "game finished",
        "finished",
        "rating",
    ];
    assert_eq!(kinds, [expected, expected].concat(), "{events:?}");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    let tail = bot_events(&mut arena_client, &bots[0].1, 4, |e| {
        e.len() >= events.len() - 3
    })
    .await;
    assert_eq!(tail, events[3..].to_vec(), "resumes from any seq");

    // A restart: the same ratings, recomputed from the stored results.
    server.stop().await;
    let server = TestServer::with(db.open(), limits()).await;
    let mut arena_client = arena(&server).await;
    let again = arena_client
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    let ratings = |b: &pb::GetLeaderboardResponse| {
        b.entries
            .iter()
            .map(|e| {
                (
                    e.bot.clone().unwrap().bot_id,
                    e.rating.unwrap().mu,
                    e.rating.unwrap().sigma,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ratings(&again),
        ratings(&board),
        "the same live ratings after a restart"
    );
    let all = |e: &[pb::BotEvent]| e.len() >= events.len();
    assert_eq!(
        bot_events(&mut arena_client, &bots[0].1, 1, all).await,
        events
    );

    // Rotating a key: the new one works, the old one no longer does.
    let rotated = arena_client
        .rotate_bot_key(authed(&bots[0].1, pb::RotateBotKeyRequest::default()))
        .await
        .expect("rotate")
        .into_inner();
    let old = arena_client
        .rotate_bot_key(authed(&bots[0].1, pb::RotateBotKeyRequest::default()))
        .await
        .expect_err("the old key is gone");
    assert_eq!(old.code(), Code::Unauthenticated);
    assert_eq!(
        bot_events(&mut arena_client, &rotated.api_key, 1, all).await,
        events
    );
    server.stop().await;
}

fn event_name(e: &pb::BotEvent) -> &'static str {
    match e.event.as_ref().expect("event") {
        pb::bot_event::Event::MatchStarted(_) => "match",
        pb::bot_event::Event::GameStarted(_) => "game",
        pb::bot_event::Event::MatchFinished(_) => "finished",
        pb::bot_event::Event::RatingChanged(_) => "rating",
        pb::bot_event::Event::ChallengeReceived(_) => "challenged",
        pb::bot_event::Event::ChallengeEnded(_) => "challenge ended",
        pb::bot_event::Event::GameFinished(_) => "game finished",
    }
}

/// The bot's events from `from` on, read until `enough` says they are all there.
pub(crate) async fn bot_events(
    arena: &mut Arena,
    key: &str,
    from: u64,
    enough: impl Fn(&[pb::BotEvent]) -> bool,
) -> Vec<pb::BotEvent> {
    // A generous deadline that only guards a hang.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let mut stream = arena
            .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq: from }))
            .await
            .expect("events")
            .into_inner();
        let mut out = Vec::new();
        // The stream stays open: read until the events wanted are there;
        // when it falls quiet without them, open it again.
        loop {
            if enough(&out) {
                return out;
            }
            match tokio::time::timeout(Duration::from_secs(1), stream.message()).await {
                Ok(next) => match next.expect("event") {
                    Some(e) => out.push(e),
                    None => break,
                },
                Err(_quiet) => break,
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bot's events never got there: {out:?}"
        );
    }
}

/// The arena's player counts are each game's own (its descriptor's): five
/// Die Dolmengötter bots seeking five-player games are matched, rated and
/// ranked in the five-player pool, where Meduris refuses five.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn five_player_dolmen_seeks_are_matched() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let dolmen_seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 5,
        max_players: 5,
        rated: true,
    };
    let mut keys = Vec::new();
    for name in ["d1", "d2", "d3", "d4", "d5"] {
        keys.push(register(&mut a, name).await.1);
    }
    let too_many = a
        .seek(authed(&keys[0], meduris_seek(5)))
        .await
        .expect_err("Meduris has at most 4 players");
    assert_eq!(too_many.code(), Code::InvalidArgument);
    assert!(
        too_many.message().contains("2 to 4"),
        "{}",
        too_many.message()
    );
    let six = a
        .seek(authed(
            &keys[0],
            pb::SeekRequest {
                max_players: 6,
                ..dolmen_seek
            },
        ))
        .await
        .expect_err("Die Dolmengötter has at most 5 players");
    assert_eq!(six.code(), Code::InvalidArgument);
    let players: Vec<_> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            tokio::spawn(seek_and_play(
                server.url(),
                key.clone(),
                dolmen_seek,
                40 + i as u64,
            ))
        })
        .collect();
    let mut results = Vec::new();
    for p in players {
        results.push(p.await.expect("the bot plays its match"));
    }
    let id = &results[0].match_id;
    for r in &results {
        assert_eq!(&r.match_id, id, "one match of all five");
        assert_eq!(r.placements.len(), 5, "{r:?}");
    }
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 5,
            ..Default::default()
        })
        .await
        .expect("the five-player pool's leaderboard")
        .into_inner();
    assert_eq!(board.entries.len(), 5, "{board:?}");
    assert!(board.entries.iter().all(|e| e.matches == 1), "{board:?}");
}

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

/// Plays every game the bot's event log announces, from `from_seq` on,
/// reconnecting (to `url`, which may restart) when the stream breaks; runs
/// until aborted.
pub(crate) async fn follow_events(url: String, key: String, seed: u64) {
    // Dropped (and its games' players aborted) when this task is aborted.
    let mut games = tokio::task::JoinSet::new();
    let mut next = 1;
    loop {
        let Ok(mut client) = ArenaServiceClient::connect(url.clone()).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(stream) = client
            .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: next }))
            .await
        else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let mut stream = stream.into_inner();
        while let Ok(Some(event)) = stream.message().await {
            next = event.seq + 1;
            if let Some(pb::bot_event::Event::GameStarted(g)) = event.event {
                games.spawn(play_seat(
                    url.clone(),
                    g.game_id,
                    key.clone(),
                    g.seat,
                    seed + event.seq,
                ));
            }
        }
    }
}

/// Waits (up to a minute) until `done` says yes about the tournament.
pub(crate) async fn wait_tournament(
    arena: &mut Arena,
    id: &str,
    done: impl Fn(&pb::Tournament) -> bool,
) -> pb::Tournament {
    for _ in 0..1200 {
        let t = arena
            .get_tournament(pb::GetTournamentRequest {
                tournament_id: id.to_owned(),
            })
            .await
            .expect("tournament")
            .into_inner()
            .tournament
            .unwrap();
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("tournament {id} did not get there");
}

async fn a_round_robin_tournament_completes_across_a_restart(backend: Backend) {
    let db = TestDb::new(backend, "tournament_restart");
    let open = || db.open();
    let server = TestServer::with(open(), limits()).await;
    let port = server.addr;
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["t1", "t2", "t3", "t4"] {
        bots.push(register(&mut a, name).await);
    }
    let players: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, (_, key))| tokio::spawn(follow_events(server.url(), key.clone(), 100 * i as u64)))
        .collect();
    let created = a
        .create_tournament(authed(
            OPERATOR,
            pb::CreateTournamentRequest {
                name: "spring cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: bots.iter().map(|(id, _)| id.clone()).collect(),
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                rated: false,
                ..Default::default()
            },
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .unwrap();
    assert_eq!(created.rounds_total, 3, "4 entrants, 2 per game: 3 rounds");
    let id = created.tournament_id.clone();
    wait_tournament(&mut a, &id, |t| !t.results.is_empty()).await;
    // A restart in the middle: the server comes back on the same port.
    server.stop().await;
    let listener = loop {
        match tokio::net::TcpListener::bind(port).await {
            Ok(l) => break l,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    let service = Arc::new(
        druids_server::Service::new(open(), limits(), Arc::new(druids_server::SystemClock))
            .unwrap(),
    );
    service.recover_all().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(druids_server::serve_service(
        listener,
        Arc::clone(&service),
        None,
        async {
            let _ = stop_rx.await;
        },
    ));
    let mut a = ArenaServiceClient::connect(format!("http://{port}"))
        .await
        .expect("reconnect");
    let done = wait_tournament(&mut a, &id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    assert_eq!(done.results.len(), 6, "every pair met once: {done:?}");
    assert_eq!(done.standings.len(), 4);
    let points: f64 = done.standings.iter().map(|s| s.points).sum();
    assert_eq!(points, 6.0, "one point per game");
    assert!(
        done.standings
            .windows(2)
            .all(|w| w[0].points >= w[1].points)
    );
    assert!(
        done.standings
            .iter()
            .all(|s| s.strength.is_some() && s.matches == 3)
    );
    for p in players {
        p.abort();
    }
    let _ = stop_tx.send(());
    let _ = served.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn challenges_start_matches_or_end_declined_or_expired() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, key_a) = register(&mut a, "challenger").await;
    let (id_b, key_b) = register(&mut a, "challenged").await;
    let challenge = |rated: bool, secs: u32| pb::ChallengeRequest {
        kind: pb::GameKind::Dolmen as i32,
        opponents: vec![id_b.clone()],
        rated,
        expires_in_secs: secs,
        time_control: None,
    };
    // Declined.
    let first = a
        .challenge(authed(&key_a, challenge(false, 60)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    let received = bot_events(&mut a, &key_b, 1, |e| !e.is_empty()).await;
    assert!(matches!(
        received.last().and_then(|e| e.event.clone()),
        Some(pb::bot_event::Event::ChallengeReceived(c)) if c.challenge_id == first.challenge_id
    ));
    let wrong = a
        .answer_challenge(authed(
            &key_a,
            pb::AnswerChallengeRequest {
                challenge_id: first.challenge_id.clone(),
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect_err("the challenger cannot answer its own challenge");
    assert_eq!(wrong.code(), Code::NotFound);
    a.answer_challenge(authed(
        &key_b,
        pb::AnswerChallengeRequest {
            challenge_id: first.challenge_id.clone(),
            accept: false,
            ..Default::default()
        },
    ))
    .await
    .expect("decline");
    let ended = |reason: &'static str| {
        move |e: &[pb::BotEvent]| {
            e.iter().any(|e| {
                matches!(&e.event, Some(pb::bot_event::Event::ChallengeEnded(c)) if c.reason == reason)
            })
        }
    };
    let told = bot_events(&mut a, &key_a, 1, ended("declined by challenged")).await;
    assert!(
        matches!(
            told.last().and_then(|e| e.event.clone()),
            Some(pb::bot_event::Event::ChallengeEnded(e)) if e.reason == "declined by challenged"
        ),
        "{told:?}"
    );
    // Expired.
    a.challenge(authed(&key_a, challenge(false, 1)))
        .await
        .expect("challenge");
    // Its second runs out on the server's clock: the end comes as an event.
    let told = bot_events(&mut a, &key_a, 1, ended("expired")).await;
    assert!(matches!(
        told.last().and_then(|e| e.event.clone()),
        Some(pb::bot_event::Event::ChallengeEnded(e)) if e.reason == "expired"
    ));
    // Accepted: the match is played and finished.
    let players = [
        tokio::spawn(follow_events(server.url(), key_a.clone(), 1)),
        tokio::spawn(follow_events(server.url(), key_b.clone(), 2)),
    ];
    let third = a
        .challenge(authed(&key_a, challenge(true, 60)))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .unwrap();
    let accepted = a
        .answer_challenge(authed(
            &key_b,
            pb::AnswerChallengeRequest {
                challenge_id: third.challenge_id,
                accept: true,
                ..Default::default()
            },
        ))
        .await
        .expect("accept")
        .into_inner();
    assert!(!accepted.match_id.is_empty());
    bot_events_until(&mut a, &key_a, |events| {
        events.iter().any(|e| matches!(&e.event, Some(pb::bot_event::Event::MatchFinished(f)) if f.match_id == accepted.match_id))
    })
    .await;
    for p in players {
        p.abort();
    }
}

/// The bot's events from its first, read until `enough` says the list holds
/// what the caller waits for (a condition, never a quiet period: a loaded
/// machine can pause a stream for longer than any guess). Gives up only
/// after two minutes without it, naming what it got.
pub(crate) async fn bot_events_until(
    arena: &mut Arena,
    key: &str,
    enough: impl Fn(&[pb::BotEvent]) -> bool,
) -> Vec<pb::BotEvent> {
    let mut stream = arena
        .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("events")
        .into_inner();
    let mut out = Vec::new();
    let read = async {
        while !enough(&out) {
            match stream.message().await {
                Ok(Some(e)) => out.push(e),
                other => panic!("the bot's event stream ended early: {other:?}; got {out:?}"),
            }
        }
    };
    if tokio::time::timeout(Duration::from_secs(120), read)
        .await
        .is_err()
    {
        panic!("the awaited bot events never came; got {out:?}");
    }
    out
}
