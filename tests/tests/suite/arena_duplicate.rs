//! A rated Meduris match is a duplicate match (README, "Fair rated games";
//! docs/ratings.md): the same bots play the same deal once per seat
//! rotation. Checked end to end through the contract on what a client sees
//! once the match is over: each game's `ExportReplay` (one seed for all),
//! its events (the same bonus chips and the same die, roll for roll) and
//! its seats (each game's seating the first one's rotated, every bot in
//! every seat once).

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use druids_contract::pb::meduris_event::Kind as Meduris;
use druids_tests::TestServer;

use crate::arena::{arena, bot_events, limits, register, seek_and_play};

/// What chance dealt in one game: the set-up's bonus chips, then the rolls.
#[derive(Debug, PartialEq)]
struct Deal {
    chips: Vec<pb::meduris_event::ChipPlaced>,
    rolls: Vec<pb::meduris_event::DieRolled>,
}

fn deal(events: &[pb::GameEvent]) -> Deal {
    let mut chips = Vec::new();
    let mut rolls = Vec::new();
    for e in events {
        if let Some(Body::Meduris(m)) = &e.body {
            match &m.kind {
                Some(Meduris::ChipPlaced(c)) => chips.push(*c),
                Some(Meduris::DieRolled(d)) => rolls.push(*d),
                _ => {}
            }
        }
    }
    Deal { chips, rolls }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rated_meduris_match_deals_one_seed_to_every_rotation_of_its_seats() {
    const PLAYERS: u32 = 3;
    let server = TestServer::with(
        std::sync::Arc::new(druids_server::MemoryStore::default()),
        limits(),
    )
    .await;
    let mut arena_client = arena(&server).await;
    let mut bots = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        bots.push((name, register(&mut arena_client, name).await));
    }
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: PLAYERS,
        max_players: PLAYERS,
        rated: true,
    };
    let players: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, (_, (_, key)))| {
            tokio::spawn(seek_and_play(
                server.url(),
                key.clone(),
                seek,
                100 + i as u64,
            ))
        })
        .collect();
    for p in players {
        let finished = p.await.unwrap();
        assert_eq!(finished.placements.len(), PLAYERS as usize);
    }

    // The match's games, in order, from the first bot's event log.
    let key = &bots[0].1.1;
    let events = bot_events(&mut arena_client, key, 1, |e| {
        e.iter()
            .any(|e| matches!(e.event, Some(pb::bot_event::Event::MatchFinished(_))))
    })
    .await;
    let mut games: Vec<(u32, String)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Some(pb::bot_event::Event::GameFinished(g)) => Some((g.index, g.game_id.clone())),
            _ => None,
        })
        .collect();
    games.sort();
    assert_eq!(
        games.iter().map(|g| g.0).collect::<Vec<_>>(),
        (0..PLAYERS).collect::<Vec<_>>(),
        "one game per seat rotation: {events:?}"
    );

    let mut client = server.client().await;
    let mut seeds = Vec::new();
    let mut deals = Vec::new();
    let mut seatings = Vec::new();
    for (_, id) in &games {
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.clone(),
            })
            .await
            .expect("the replay once the match is over")
            .into_inner();
        seeds.push(replay.seed);
        deals.push(deal(&druids_tests::all_events(&mut client, id, None).await));
        let view = druids_tests::state(&mut client, id, None).await;
        seatings.push(
            view.seats
                .iter()
                .map(|s| s.name.clone())
                .collect::<Vec<_>>(),
        );
    }

    // One secret seed for the whole match.
    assert_ne!(seeds[0], 0);
    assert!(seeds.iter().all(|&s| s == seeds[0]), "{seeds:?}");
    // The same deal: the same chips, and the same die roll for roll as far
    // as the shorter game went (a game's length depends on its play).
    for (i, d) in deals.iter().enumerate().skip(1) {
        assert_eq!(d.chips, deals[0].chips, "game {i}'s set-up");
        let common = d.rolls.len().min(deals[0].rolls.len());
        assert!(common >= 10, "games of a few turns only: {deals:?}");
        assert_eq!(
            d.rolls[..common],
            deals[0].rolls[..common],
            "game {i}'s dice"
        );
    }
    assert!(!deals[0].chips.is_empty(), "{deals:?}");
    // Each game's seating is the first one's rotated by its index, one way
    // for the whole match, so that every bot sits in every seat once.
    let n = PLAYERS as usize;
    let first = &seatings[0];
    let mut names: Vec<&String> = first.iter().collect();
    names.sort();
    assert_eq!(names, ["alpha", "beta", "gamma"], "{seatings:?}");
    let rotated = |by: usize| {
        (0..n)
            .map(|s| first[(s + by) % n].clone())
            .collect::<Vec<_>>()
    };
    let step = (1..n)
        .find(|&by| seatings[1] == rotated(by))
        .unwrap_or_else(|| panic!("game 1 is not game 0 rotated: {seatings:?}"));
    for (i, seating) in seatings.iter().enumerate() {
        assert_eq!(*seating, rotated(i * step % n), "game {i}: {seatings:?}");
    }
}
