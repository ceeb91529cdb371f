//! The arena's holder SIGKILLed mid-round of a Swiss tournament: another
//! node takes over, every match finishes and counts once, and the ratings
//! equal a recomputation from the stored results.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_store::{EventLog, EventLogs, Matches};
use druids_tests::{authed, retry_allowed};
use prost::Message;
use tonic::Code;

use super::{
    Nodes, OPERATOR, Picker, arena, dolmen_seek, leaderboard_request, play_seat, register, until,
};

/// Plays every game the bot's event log announces, resuming the log from
/// its next seq on any node whenever its stream breaks; runs until aborted.
async fn play_everything(picker: Picker, key: String, seed: u64) {
    let mut games = tokio::task::JoinSet::new();
    let mut next = 1;
    loop {
        let opened = arena(&picker.url())
            .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: next }))
            .await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            Err(s) if retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(s) => panic!("bot events: {s:?}"),
        };
        loop {
            match druids_tests::heartbeats::next_event(&mut stream).await {
                Ok(Some(event)) => {
                    assert_eq!(event.seq, next, "the log resumes where it broke");
                    next = event.seq + 1;
                    if let Some(pb::bot_event::Event::GameStarted(g)) = event.event {
                        games.spawn(play_seat(
                            picker.clone(),
                            g.game_id,
                            key.clone(),
                            g.seat,
                            seed + event.seq,
                        ));
                    }
                }
                Ok(None) => panic!("a bot's event stream ends only on errors"),
                Err(s) if retry_allowed(&s) => {
                    if s.code() == Code::Unavailable {
                        assert!(
                            tonic_types::StatusExt::get_details_error_info(&s)
                                .is_none_or(|i| i.reason == "GAME_MOVED"),
                            "{s:?}"
                        );
                    }
                    break;
                }
                Err(s) => panic!("bot events: {s:?}"),
            }
        }
    }
}

/// Keeps a rated seek open through any node until `stop`: seeks again after
/// each match and after each broken stream (seeks live in the holder's
/// memory: a takeover ends them). Counts the matches its streams saw finish.
async fn keep_seeking(
    picker: Picker,
    key: String,
    stop: Arc<AtomicBool>,
    finished: Arc<Mutex<u32>>,
) {
    while !stop.load(Ordering::Relaxed) {
        let opened = arena(&picker.url()).seek(authed(&key, dolmen_seek())).await;
        let mut stream = match opened {
            Ok(s) => s.into_inner(),
            // Too many matches at once (a quota), or a node down: later.
            Err(s) if retry_allowed(&s) || s.code() == Code::ResourceExhausted => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(s) => panic!("seek: {s:?}"),
        };
        loop {
            match druids_tests::heartbeats::next_event(&mut stream).await {
                Ok(Some(pb::SeekEvent {
                    event: Some(pb::seek_event::Event::MatchFinished(_)),
                })) => {
                    *finished.lock().unwrap() += 1;
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(s) if retry_allowed(&s) => break,
                Err(s) => panic!("seek stream: {s:?}"),
            }
        }
    }
}

/// The live ratings of the 2-player Dolmen pool, by bot: (mu, sigma, matches).
fn ratings(board: &pb::GetLeaderboardResponse) -> BTreeMap<String, (f64, f64, u32)> {
    board
        .entries
        .iter()
        .map(|e| {
            let r = e.rating.unwrap();
            (
                e.bot.as_ref().unwrap().bot_id.clone(),
                (r.mu, r.sigma, e.matches),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killing_the_arena_holder_mid_round_loses_and_doubles_no_result() {
    let mut nodes = Nodes::start("arena_cluster_kill", 3);
    let picker = Picker::new(&nodes.urls, 27);
    let mut bots = Vec::new();
    for i in 0..12 {
        bots.push(register(&picker, &format!("k{i}")).await);
    }
    let players: Vec<_> = bots
        .iter()
        .enumerate()
        .map(|(i, (_, key))| {
            tokio::spawn(play_everything(
                Picker::new(&nodes.urls, 100 + i as u64),
                key.clone(),
                10_000 * i as u64,
            ))
        })
        .collect();
    // Six bots play a Swiss tournament, six seek rated matches meanwhile.
    let swiss = on_any_node!(picker, arena, a => a
        .create_tournament(authed(OPERATOR, pb::CreateTournamentRequest {
            name: "failover cup".into(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            entrants: bots[..6].iter().map(|(id, _)| id.clone()).collect(),
            format: Some(pb::create_tournament_request::Format::Swiss(pb::Swiss { rounds: 3 })),
            rated: true,
            ..Default::default()
        }))
        .await)
    .tournament
    .unwrap();
    let id = swiss.tournament_id.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(0u32));
    let seekers: Vec<_> = bots[6..]
        .iter()
        .enumerate()
        .map(|(i, (_, key))| {
            tokio::spawn(keep_seeking(
                Picker::new(&nodes.urls, 200 + i as u64),
                key.clone(),
                Arc::clone(&stop),
                Arc::clone(&seen),
            ))
        })
        .collect();
    let tournament = |picker: Picker, id: String| async move {
        on_any_node!(picker, arena, a => a
            .get_tournament(pb::GetTournamentRequest { tournament_id: id.clone() })
            .await)
        .tournament
        .unwrap()
    };
    // Mid-round: some of the tournament's matches are over, not all of a
    // round's, and rated matches are being played.
    until("a round half played", 3000, async || {
        let t = tournament(picker.clone(), id.clone()).await;
        t.results.len() % 3 != 0 && t.status == pb::TournamentStatus::Running as i32
    })
    .await;
    let holder = nodes.holder();
    let killed = Instant::now();
    nodes.kill(holder);
    // The arena-work failover: kill to the first arena call a survivor answers.
    let survivors: Vec<usize> = (0..3).filter(|&i| i != holder).collect();
    let mut failover = None;
    for attempt in 0..6000 {
        let url = nodes.url(survivors[attempt % 2]);
        match arena(&url).get_leaderboard(leaderboard_request()).await {
            Ok(_) => {
                failover = Some(killed.elapsed());
                break;
            }
            Err(s) if retry_allowed(&s) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(s) => panic!("leaderboard during the failover: {s:?}"),
        }
    }
    let failover = failover.expect("a survivor took the arena over");
    let new_holder = nodes.holder();
    assert!(
        survivors.contains(&new_holder),
        "a survivor holds the arena"
    );
    eprintln!(
        "arena failover: {} ms from SIGKILL to the first arena call answered (node-{holder} -> node-{new_holder})",
        failover.as_millis()
    );
    // After the takeover: the tournament completes and more rated matches
    // are played.
    let rated_before = *seen.lock().unwrap();
    until("the tournament finished", 6000, async || {
        let t = tournament(picker.clone(), id.clone()).await;
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    until("rated matches after the takeover", 6000, async || {
        *seen.lock().unwrap() >= rated_before + 2
    })
    .await;
    stop.store(true, Ordering::Relaxed);
    for s in seekers {
        s.abort();
    }
    // Every match formed finishes (its games are played out).
    let store = nodes.store();
    until("every match finished", 6000, async || {
        store
            .matches()
            .unwrap()
            .iter()
            .all(|m| m.finished_unix_ms.is_some())
    })
    .await;
    let done = tournament(picker.clone(), id.clone()).await;
    assert_eq!(done.results.len(), 9, "3 rounds of 3 matches: {done:?}");
    let points: f64 = done.standings.iter().map(|s| s.points).sum();
    assert_eq!(points, 9.0, "one point per match, each counted once");
    // Every match finished once: each bot's log tells each of its matches'
    // ends once, the tournament's log each of its matches once.
    let matches = store.matches().unwrap();
    let mut ends: HashMap<String, Vec<String>> = HashMap::new();
    for (bot, _) in &bots {
        for e in store.events(EventLog::Bot, bot, 1, 100_000).unwrap() {
            let e = pb::BotEvent::decode(e.1.as_slice()).unwrap();
            if let Some(pb::bot_event::Event::MatchFinished(f)) = e.event {
                ends.entry(bot.clone()).or_default().push(f.match_id);
            }
        }
    }
    for m in &matches {
        for bot in &m.record.bots {
            let told = ends
                .get(bot)
                .map_or(0, |e| e.iter().filter(|id| **id == m.record.id).count());
            assert_eq!(
                told, 1,
                "bot {bot} told of match {}'s end once",
                m.record.id
            );
        }
    }
    let mut in_tournament = HashMap::new();
    for e in store.events(EventLog::Tournament, &id, 1, 100_000).unwrap() {
        let e = pb::TournamentEvent::decode(e.1.as_slice()).unwrap();
        if let Some(pb::tournament_event::Event::MatchFinished(f)) = e.event {
            *in_tournament.entry(f.result.unwrap().match_id).or_insert(0) += 1;
        }
    }
    assert_eq!(in_tournament.len(), 9);
    assert!(in_tournament.values().all(|&n| n == 1), "{in_tournament:?}");
    // Every result counts once: a bot's rated matches in the pool are its
    // finished rated matches.
    let board = on_any_node!(picker, arena, a => a.get_leaderboard(leaderboard_request()).await);
    let live = ratings(&board);
    for (bot, _) in &bots {
        let stored = matches
            .iter()
            .filter(|m| m.record.rated && m.record.bots.contains(bot))
            .filter(|m| m.placements.as_ref().is_some_and(|p| !p.is_empty()))
            .count() as u32;
        let counted = live.get(bot).map_or(0, |r| r.2);
        assert_eq!(counted, stored, "bot {bot}'s rated matches");
    }
    assert!(
        live.len() >= 8,
        "the tournament's and the seekers' bots are rated"
    );
    // The ratings after recovery equal a recomputation from the stored
    // results: kill the new holder too; the last node replays them all.
    nodes.kill(new_holder);
    let last: Vec<usize> = survivors.into_iter().filter(|&i| i != new_holder).collect();
    let last = Picker::new(&Arc::new(vec![nodes.url(last[0])]), 1);
    let recomputed = ratings(&on_any_node!(last, arena, a => a
        .get_leaderboard(leaderboard_request())
        .await));
    assert_eq!(
        live, recomputed,
        "live ratings = ratings replayed from the results"
    );
    for p in players {
        p.abort();
    }
}
