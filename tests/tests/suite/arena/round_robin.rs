//! A round-robin tournament plays to completion across a server restart
//! (SQLite and PostgreSQL).

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_tests::{TestServer, authed};

use super::{OPERATOR, arena, follow_events, limits, register, wait_tournament};
use crate::stores::{Backend, TestDb, on_each_store_threaded};

on_each_store_threaded!(a_round_robin_tournament_completes_across_a_restart);

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
