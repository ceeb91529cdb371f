//! The pools before seeking (issue 29): `ListPools` tells a bot, without a
//! key, each pool's turn clock, how its rated matches are played, the seeks
//! open in it, and how matchmaking forms games; `druids pools` prints it.
//! The clock read is the one the arena's games then get.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_tests::process::cargo_binary;
use druids_tests::{TestServer, authed};
use tonic::Code;

use crate::arena::{arena, limits, register};
use crate::trust::refused;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_reads_each_pools_clock_and_rules_before_seeking() {
    let mut limits = limits();
    limits.arena.decision_ms = 7_000;
    limits.arena.time_bank_ms = 42_000;
    limits.arena.autopilot_after = 4;
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits).await;
    let mut a = arena(&server).await;
    let list = |kind: pb::GameKind| pb::ListPoolsRequest { kind: kind as i32 };

    let all = a
        .list_pools(list(pb::GameKind::Unspecified))
        .await
        .expect("ListPools, no key")
        .into_inner();
    let pools: Vec<(i32, u32, u32)> = all
        .pools
        .iter()
        .map(|p| (p.kind, p.players, p.games_per_rated_match))
        .collect();
    let (m, d) = (pb::GameKind::Meduris as i32, pb::GameKind::Dolmen as i32);
    assert_eq!(
        pools,
        [
            // Meduris is dice-driven: a rated match is a duplicate match.
            (m, 2, 2),
            (m, 3, 3),
            (m, 4, 4),
            (d, 2, 1),
            (d, 3, 1),
            (d, 4, 1),
            (d, 5, 1)
        ]
    );
    for p in &all.pools {
        let clock = p.time_control.expect("a clock");
        assert_eq!((clock.decision_ms, clock.time_bank_ms), (7_000, 42_000));
        assert_eq!(p.autopilot_after, 4);
        assert_eq!((p.seeking_rated, p.seeking_unrated), (0, 0));
    }
    let rules = all.matchmaking.expect("the matchmaking rules");
    assert_eq!(
        (
            rules.window_mu,
            rules.widen_mu_per_second,
            rules.max_window_mu,
            rules.any_rating_after_ms
        ),
        (5.0, 1.5, 20.0, 15_000),
        "the README's windows"
    );
    assert!(rules.house_bot_ids.is_empty(), "these tests run none");
    assert_eq!(rules.house_bots_after_ms, 0);

    // A rated seek of three or four players shows in those two pools only.
    let (_, key) = register(&mut a, "pool-reader").await;
    let mut seek = a
        .seek(authed(
            &key,
            pb::SeekRequest {
                kind: pb::GameKind::Meduris as i32,
                min_players: 3,
                max_players: 4,
                rated: true,
            },
        ))
        .await
        .expect("seek")
        .into_inner();
    let first = tokio::time::timeout(
        Duration::from_secs(120),
        druids_tests::heartbeats::next_event(&mut seek),
    )
    .await
    .expect("a deadlock guard")
    .expect("open")
    .expect("an event");
    assert!(
        matches!(first.event, Some(pb::seek_event::Event::Seeking(_))),
        "{first:?}"
    );
    let meduris = a
        .list_pools(list(pb::GameKind::Meduris))
        .await
        .expect("ListPools")
        .into_inner()
        .pools;
    let seeking: Vec<(u32, u32, u32)> = meduris
        .iter()
        .map(|p| (p.players, p.seeking_rated, p.seeking_unrated))
        .collect();
    assert_eq!(seeking, [(2, 0, 0), (3, 1, 0), (4, 1, 0)]);

    refused(
        a.list_pools(pb::ListPoolsRequest { kind: 99 }).await,
        Code::InvalidArgument,
        "INVALID_ARGUMENT",
    );

    // The command line says the same.
    let url = server.url();
    let out = tokio::task::spawn_blocking(move || {
        let druids = cargo_binary("druids-cli", "druids").unwrap_or_else(|e| panic!("{e}"));
        Command::new(druids)
            .args(["--server", &url, "pools", "--game", "meduris"])
            .env("NO_COLOR", "1")
            .output()
            .expect("druids pools")
    })
    .await
    .expect("the command");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(
            "meduris:4  7000 ms a decision + 42000 ms bank, autopilot after 4 timeouts; \
             rated: a duplicate match of 4 games; seeking now: 1 rated, 0 unrated"
        ),
        "{text}"
    );
    assert!(text.contains("any rating after 15 s"), "{text}");
    assert!(text.contains("house bots: none"), "{text}");
    drop(seek);
    server.stop().await;
}
