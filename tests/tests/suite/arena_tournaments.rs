//! Server-run tournaments with open entry, their event stream and time
//! control, through the contract on a real server over TCP: bots join until
//! entry closes (and a restart in the middle keeps who joined), the rounds
//! are played, and `StreamTournamentEvents` tells it all in order, resumes
//! from any seq and ends with the tournament; too few entrants cancel it.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::tournament_event::Event;
use druids_tests::{TestServer, authed};
use tonic::Code;

use crate::arena::{
    Arena, OPERATOR, arena, bot_events_until, follow_events, limits, register, wait_tournament,
};
use crate::stores::{Backend, TestDb, on_each_store_threaded};
use crate::trust::reason;

on_each_store_threaded!(
    an_open_tournament_takes_entrants_streams_its_events_and_survives_a_restart
);

/// A tournament's events from `from_seq` until its stream ends (at most a
/// minute).
pub(crate) async fn tournament_events(
    arena: &mut Arena,
    id: &str,
    from_seq: u64,
) -> Vec<pb::TournamentEvent> {
    let mut stream = arena
        .stream_tournament_events(pb::StreamTournamentEventsRequest {
            tournament_id: id.to_owned(),
            from_seq,
        })
        .await
        .expect("tournament events")
        .into_inner();
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(
            Duration::from_secs(60),
            druids_tests::heartbeats::next_event(&mut stream),
        )
        .await
        {
            Ok(Ok(Some(e))) => out.push(e),
            Ok(Ok(None)) => return out,
            Ok(Err(s)) => panic!("the stream failed: {s:?}"),
            Err(_) => panic!("the stream did not end with the tournament: {out:?}"),
        }
    }
}

fn join(id: &str) -> pb::JoinTournamentRequest {
    pb::JoinTournamentRequest {
        tournament_id: id.to_owned(),
    }
}

fn get(id: &str) -> pb::GetTournamentRequest {
    pb::GetTournamentRequest {
        tournament_id: id.to_owned(),
    }
}

fn round_robin() -> Option<pb::create_tournament_request::Format> {
    Some(pb::create_tournament_request::Format::RoundRobin(
        pb::RoundRobin { games_per_group: 1 },
    ))
}

async fn an_open_tournament_takes_entrants_streams_its_events_and_survives_a_restart(
    backend: Backend,
) {
    let db = TestDb::new(backend, "open_entry_restart");
    let open = || db.open();
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["o1", "o2", "o3", "o4", "late"] {
        bots.push(register(&mut a, name).await);
    }
    let clock = pb::TimeControl {
        decision_ms: 5_000,
        time_bank_ms: 1_000,
    };
    let created = a
        .create_tournament(authed(
            &bots[0].1,
            pb::CreateTournamentRequest {
                name: "open cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: vec![bots[0].0.clone()],
                format: round_robin(),
                time_control: Some(clock),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 600,
                    max_entrants: 4,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .unwrap();
    let id = created.tournament_id.clone();
    assert_eq!(created.status, pb::TournamentStatus::Open as i32);
    assert_eq!(created.entrants.len(), 1);
    assert!(created.entry_closes_unix_ms > created.created_unix_ms);
    let joined = a
        .join_tournament(authed(&bots[1].1, join(&id)))
        .await
        .expect("join")
        .into_inner()
        .tournament
        .unwrap();
    assert_eq!(joined.entrants.len(), 2);
    let again = a
        .join_tournament(authed(&bots[1].1, join(&id)))
        .await
        .expect("joining again is no change")
        .into_inner()
        .tournament
        .unwrap();
    assert_eq!(again.entrants, joined.entrants);
    let no_key = a.join_tournament(join(&id)).await.expect_err("no key");
    assert_eq!(no_key.code(), Code::Unauthenticated);
    let unknown = a
        .join_tournament(authed(&bots[1].1, join("0000000000000000")))
        .await
        .expect_err("no such tournament");
    assert_eq!(unknown.code(), Code::NotFound);

    // A restart during entry keeps who joined.
    server.stop().await;
    let server = TestServer::with(open(), limits()).await;
    let mut a = arena(&server).await;
    let kept = a.get_tournament(get(&id)).await.expect("get").into_inner();
    let kept = kept.tournament.unwrap();
    assert_eq!(kept.status, pb::TournamentStatus::Open as i32);
    assert_eq!(kept.entrants, joined.entrants);

    let players: Vec<_> = bots[..4]
        .iter()
        .enumerate()
        .map(|(i, (_, key))| tokio::spawn(follow_events(server.url(), key.clone(), 10 * i as u64)))
        .collect();
    for (_, key) in &bots[2..4] {
        a.join_tournament(authed(key, join(&id)))
            .await
            .expect("join");
    }
    // Four of four: entry closes at once, and the fifth is turned away.
    let full = a
        .join_tournament(authed(&bots[4].1, join(&id)))
        .await
        .expect_err("full");
    assert_eq!(full.code(), Code::FailedPrecondition);
    assert_eq!(reason(&full), "ENTRY_CLOSED");

    let done = wait_tournament(&mut a, &id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    assert_eq!(done.results.len(), 6, "every pair of four met once");
    assert_eq!(done.rounds_total, 3);
    let events = tournament_events(&mut a, &id, 0).await;
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    let mut joins = Vec::new();
    let mut rounds = Vec::new();
    let mut results = Vec::new();
    for e in &events[..events.len() - 1] {
        match e.event.as_ref().expect("event") {
            Event::EntrantJoined(bot) => joins.push(bot.name.clone()),
            Event::Started(s) => {
                assert_eq!(joins, ["o2", "o3", "o4"], "joins come first");
                assert_eq!(s.entrants.len(), 4);
                assert_eq!(s.rounds_total, 3);
            }
            Event::RoundStarted(r) => {
                assert_eq!(r.matches.len(), 2, "{r:?}");
                rounds.push(r.round);
            }
            Event::MatchFinished(m) => {
                assert!(
                    rounds.contains(&m.round),
                    "a result after its round started"
                );
                assert_eq!(m.standings.len(), 4);
                results.push(m.result.clone().unwrap());
            }
            other => panic!("unexpected before the end: {other:?}"),
        }
    }
    assert_eq!(rounds, [1, 2, 3]);
    assert_eq!(
        results, done.results,
        "the stream's results are the tournament's"
    );
    match events.last().and_then(|e| e.event.as_ref()) {
        Some(Event::Finished(f)) => assert_eq!(f.standings, done.standings),
        other => panic!("the last event is the end: {other:?}"),
    }
    // Resumed from the middle: the same tail.
    let tail = tournament_events(&mut a, &id, 5).await;
    assert_eq!(tail, events[4..].to_vec());
    // Past the end of a finished tournament: nothing, and the stream ends.
    let past = tournament_events(&mut a, &id, events.len() as u64 + 1).await;
    assert!(past.is_empty());

    // The tournament's clock is its games' clock; each game's end is told.
    let finished = |e: &pb::BotEvent| matches!(&e.event, Some(pb::bot_event::Event::GameFinished(g)) if g.rank >= 1);
    let told = bot_events_until(&mut a, &bots[0].1, |told| {
        told.iter().filter(|e| finished(e)).count() >= 3
    })
    .await;
    let clocks: Vec<Option<u32>> = told
        .iter()
        .filter_map(|e| match &e.event {
            Some(pb::bot_event::Event::GameStarted(g)) => {
                Some(g.options.as_ref().unwrap().decision_ms)
            }
            _ => None,
        })
        .collect();
    assert_eq!(clocks, vec![Some(5_000); 3], "{told:?}");
    let ends = told.iter().filter(|e| finished(e)).count();
    assert_eq!(ends, 3);
    for p in players {
        p.abort();
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn too_few_entrants_cancel_a_tournament_and_bad_requests_are_refused() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (id0, key0) = register(&mut a, "lonely").await;
    let (id1, key1) = register(&mut a, "other").await;
    let request = |open: Option<pb::OpenEntry>| pb::CreateTournamentRequest {
        name: "small cup".into(),
        kind: pb::GameKind::Meduris as i32,
        players: 4,
        entrants: vec![id0.clone()],
        format: round_robin(),
        open_entry: open,
        ..Default::default()
    };
    let created = a
        .create_tournament(authed(
            &key0,
            request(Some(pb::OpenEntry {
                closes_in_secs: 1,
                max_entrants: 0,
            })),
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .unwrap();
    let events = tournament_events(&mut a, &created.tournament_id, 1).await;
    match events.as_slice() {
        [e] => match &e.event {
            Some(Event::Cancelled(c)) => assert_eq!(c.reason, "1 entrants, a game needs 4"),
            other => panic!("cancelled: {other:?}"),
        },
        other => panic!("one event, the cancellation: {other:?}"),
    }
    let t = a
        .get_tournament(get(&created.tournament_id))
        .await
        .expect("get")
        .into_inner()
        .tournament
        .unwrap();
    assert_eq!(t.status, pb::TournamentStatus::Cancelled as i32);
    let late = a
        .join_tournament(authed(&key1, join(&created.tournament_id)))
        .await
        .expect_err("entry closed");
    assert_eq!(reason(&late), "ENTRY_CLOSED");

    // Without open entry, too few entrants are refused at once.
    let few = a
        .create_tournament(authed(&key0, request(None)))
        .await
        .expect_err("one entrant");
    assert_eq!(few.code(), Code::InvalidArgument);
    let fast = a
        .create_tournament(authed(
            &key0,
            pb::CreateTournamentRequest {
                time_control: Some(pb::TimeControl {
                    decision_ms: 50,
                    time_bank_ms: 0,
                }),
                ..request(Some(pb::OpenEntry {
                    closes_in_secs: 60,
                    max_entrants: 0,
                }))
            },
        ))
        .await
        .expect_err("a clock too fast");
    assert_eq!(fast.code(), Code::InvalidArgument);
    assert!(
        fast.message().contains("decision_ms 50"),
        "{}",
        fast.message()
    );
    let forever = a
        .create_tournament(authed(
            &key0,
            request(Some(pb::OpenEntry {
                closes_in_secs: 0,
                max_entrants: 0,
            })),
        ))
        .await
        .expect_err("entry closing at once");
    assert_eq!(forever.code(), Code::InvalidArgument);
    let gauntlet = a
        .create_tournament(authed(
            OPERATOR,
            pb::CreateTournamentRequest {
                format: Some(pb::create_tournament_request::Format::Gauntlet(
                    pb::Gauntlet {
                        opponent: id0.clone(),
                        games: 1,
                    },
                )),
                entrants: vec![id0.clone(), id1.clone()],
                ..request(None)
            },
        ))
        .await
        .expect_err("the opponent is an entrant");
    assert_eq!(gauntlet.code(), Code::InvalidArgument);
    let closed = a
        .create_tournament(authed(
            OPERATOR,
            pb::CreateTournamentRequest {
                players: 2,
                entrants: vec![id0.clone(), id1.clone()],
                ..request(None)
            },
        ))
        .await
        .expect("two entrants, two players")
        .into_inner()
        .tournament
        .unwrap();
    let not_open = a
        .join_tournament(authed(&key0, join(&closed.tournament_id)))
        .await
        .expect_err("no open entry");
    assert_eq!(reason(&not_open), "ENTRY_CLOSED");
    let unknown = a
        .stream_tournament_events(pb::StreamTournamentEventsRequest {
            tournament_id: "0123456789abcdef".into(),
            from_seq: 0,
        })
        .await
        .expect_err("no such tournament");
    assert_eq!(unknown.code(), Code::NotFound);
    // An id no tournament could have (ids are 16 hex digits) is malformed.
    for id in ["", "x", &"x".repeat(1000)] {
        let bad = a
            .stream_tournament_events(pb::StreamTournamentEventsRequest {
                tournament_id: id.into(),
                from_seq: 0,
            })
            .await
            .expect_err("not an id");
        assert_eq!(bad.code(), Code::InvalidArgument, "{id:?}");
        assert!(bad.message().len() < 200, "{}", bad.message());
        let bad = a
            .get_tournament(pb::GetTournamentRequest {
                tournament_id: id.into(),
            })
            .await
            .expect_err("not an id");
        assert_eq!(bad.code(), Code::InvalidArgument, "{id:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn swiss_rounds_give_byes_and_a_gauntlet_meets_its_opponent() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["s1", "s2", "s3", "s4", "s5", "boss"] {
        bots.push(register(&mut a, name).await);
    }
    let players: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, (_, key))| tokio::spawn(follow_events(server.url(), key.clone(), 7 * i as u64)))
        .collect();
    let entrants: Vec<String> = bots[..5].iter().map(|(id, _)| id.clone()).collect();
    let create = |format| pb::CreateTournamentRequest {
        name: "formats".into(),
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        entrants: entrants.clone(),
        format: Some(format),
        ..Default::default()
    };
    let swiss = a
        .create_tournament(authed(
            OPERATOR,
            create(pb::create_tournament_request::Format::Swiss(pb::Swiss {
                rounds: 3,
            })),
        ))
        .await
        .expect("swiss")
        .into_inner()
        .tournament
        .unwrap();
    let gauntlet = a
        .create_tournament(authed(
            OPERATOR,
            create(pb::create_tournament_request::Format::Gauntlet(
                pb::Gauntlet {
                    opponent: bots[5].0.clone(),
                    games: 1,
                },
            )),
        ))
        .await
        .expect("gauntlet")
        .into_inner()
        .tournament
        .unwrap();
    let events = tournament_events(&mut a, &swiss.tournament_id, 1).await;
    let rounds: Vec<&pb::RoundStarted> = events
        .iter()
        .filter_map(|e| match &e.event {
            Some(Event::RoundStarted(r)) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(rounds.len(), 3);
    for r in &rounds {
        assert_eq!(r.matches.len(), 2, "five entrants: two games");
        assert_eq!(r.byes.len(), 1, "and one bye a round: {r:?}");
    }
    let byes: std::collections::HashSet<&str> =
        rounds.iter().map(|r| r.byes[0].bot_id.as_str()).collect();
    assert_eq!(byes.len(), 3, "nobody gets two byes");
    let done = wait_tournament(&mut a, &swiss.tournament_id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    let points: f64 = done.standings.iter().map(|s| s.points).sum();
    assert_eq!(
        points,
        6.0 + 3.0 * 0.5,
        "six games and three byes of half a point"
    );

    let events = tournament_events(&mut a, &gauntlet.tournament_id, 1).await;
    let met: Vec<usize> = events
        .iter()
        .filter_map(|e| match &e.event {
            Some(Event::MatchFinished(m)) => Some(m.result.as_ref().unwrap().placements.len()),
            _ => None,
        })
        .collect();
    assert_eq!(met, vec![2; 5], "each entrant met the opponent once");
    let gauntlet = a
        .get_tournament(get(&gauntlet.tournament_id))
        .await
        .expect("get")
        .into_inner()
        .tournament
        .unwrap();
    for r in &gauntlet.results {
        assert!(
            r.placements
                .iter()
                .any(|p| p.bot.as_ref().unwrap().bot_id == bots[5].0),
            "{r:?}"
        );
    }
    for p in players {
        p.abort();
    }
    server.stop().await;
}

/// An open round robin whose entry, once full, would need more games than a
/// tournament may have (10,000) is refused when it is created, saying how
/// many, not cancelled once bots have joined it.
#[tokio::test]
async fn a_round_robin_too_large_to_schedule_is_refused_at_creation() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "organiser").await;
    let request = |max_entrants: u32, games_per_group: u32| pb::CreateTournamentRequest {
        name: "huge cup".into(),
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        format: Some(pb::create_tournament_request::Format::RoundRobin(
            pb::RoundRobin { games_per_group },
        )),
        open_entry: Some(pb::OpenEntry {
            closes_in_secs: 60,
            max_entrants,
        }),
        ..Default::default()
    };
    // C(256, 2) groups of 100 games: 3,264,000.
    let huge = a
        .create_tournament(authed(&key, request(256, 100)))
        .await
        .expect_err("too many games");
    assert_eq!(huge.code(), Code::InvalidArgument);
    assert!(
        huge.message()
            .contains("3264000 games, more than the 10000"),
        "{}",
        huge.message()
    );
    // C(100, 2) = 4,950 groups of 2 games fit.
    a.create_tournament(authed(&key, request(100, 2)))
        .await
        .expect("9,900 games fit");
}
