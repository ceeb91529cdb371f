//! A bot revoked in a running tournament is withdrawn, through the contract
//! on a real server over TCP. Swiss: the later rounds pair the bots left,
//! its results stay in the standings (a restart gives it no byes), and a
//! tournament left with too few bots for a game ends early. A fixed
//! schedule (round robin, gauntlet): its later games are not played.

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::create_tournament_request::Format;
use druids_tests::{TestServer, authed};

use crate::arena::follow_events;
use crate::arena_revoke::{OPERATOR_KEY, create_tournament, revoke, with_bots_in, with_operator};
use crate::stores::{Backend, TestDb};

/// A three-bot tournament of two-player Die Dolmengötter (three rounds of
/// Swiss unless told otherwise), started at once, and its events' reader.
struct Tournament {
    server: TestServer,
    arena: crate::arena::Arena,
    bots: Vec<(String, String)>,
    id: String,
    events: tonic::Streaming<pb::TournamentEvent>,
}

impl Tournament {
    async fn start(time_control: Option<pb::TimeControl>) -> Tournament {
        let store = Arc::new(druids_server::MemoryStore::default());
        Tournament::start_in(store, Format::Swiss(pb::Swiss { rounds: 3 }), time_control).await
    }

    async fn start_in(
        store: Arc<dyn druids_server::Store>,
        format: Format,
        time_control: Option<pb::TimeControl>,
    ) -> Tournament {
        let (server, mut a, bots) = with_bots_in(store, &["swiss-1", "swiss-2", "swiss-3"]).await;
        let create = pb::CreateTournamentRequest {
            name: "withdrawal".into(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            entrants: bots.iter().map(|(id, _)| id.clone()).collect(),
            format: Some(format),
            time_control,
            ..Default::default()
        };
        let id = create_tournament(&mut a, create).await;
        let events = a
            .stream_tournament_events(pb::StreamTournamentEventsRequest {
                tournament_id: id.clone(),
                from_seq: 1,
            })
            .await
            .expect("tournament events")
            .into_inner();
        Tournament {
            server,
            arena: a,
            bots,
            id,
            events,
        }
    }

    /// The tournament's next event (the guard is against a hang only).
    async fn next(&mut self) -> Option<pb::tournament_event::Event> {
        let event = druids_tests::heartbeats::next_event(&mut self.events);
        match tokio::time::timeout(Duration::from_secs(120), event).await {
            Ok(Ok(e)) => e.and_then(|e| e.event),
            Ok(Err(s)) => panic!("the tournament's stream failed: {s:?}"),
            Err(_) => panic!("the tournament stood still for two minutes"),
        }
    }

    /// The tournament's first round.
    async fn first_round(&mut self) -> pb::RoundStarted {
        use druids_contract::pb::tournament_event::Event as T;
        loop {
            match self.next().await {
                Some(T::RoundStarted(r)) => return r,
                Some(_) => continue,
                None => panic!("the tournament ended before its first round"),
            }
        }
    }

    /// The rounds started up to the tournament's end, and its end.
    async fn rounds_to_the_end(&mut self) -> (Vec<pb::RoundStarted>, pb::TournamentFinished) {
        use druids_contract::pb::tournament_event::Event as T;
        let mut rounds = Vec::new();
        loop {
            match self.next().await {
                Some(T::RoundStarted(r)) => rounds.push(r),
                Some(T::Finished(f)) => return (rounds, f),
                Some(_) => continue,
                None => panic!("the tournament's stream ended without its end: {rounds:?}"),
            }
        }
    }

    /// Revokes bot `bot_id` with the operator's key.
    async fn revoke(&mut self, bot_id: &str) {
        (self.arena)
            .revoke_bot(authed(OPERATOR_KEY, revoke(bot_id)))
            .await
            .expect("revoke");
    }

    /// Bots playing every game they are told of, but for `not`.
    fn play_all_but(&self, not: &[&str]) -> Vec<tokio::task::JoinHandle<()>> {
        (self.bots.iter().enumerate())
            .filter(|(_, (id, _))| !not.contains(&id.as_str()))
            .map(|(i, (_, key))| {
                tokio::spawn(follow_events(self.server.url(), key.clone(), 31 + i as u64))
            })
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_revoked_in_a_running_swiss_tournament_is_paired_no_more() {
    let mut swiss = Tournament::start(None).await;
    // Round 1 is drawn, and nobody plays yet: the bot with its bye is
    // revoked before the round can end.
    let (first, _) = swiss_first_round(&mut swiss).await;
    let withdrawn = first.byes[0].bot_id.clone();
    swiss.revoke(&withdrawn).await;
    let players = swiss.play_all_but(&[&withdrawn]);

    // The later rounds pair the two bots left, and the tournament ends.
    let (later, finished) = swiss.rounds_to_the_end().await;
    assert_eq!(later.len(), 2, "rounds 2 and 3: {later:?}");
    for round in &later {
        let seated: Vec<&str> = (round.matches.iter())
            .flat_map(|m| m.bots.iter().map(|b| b.bot_id.as_str()))
            .chain(round.byes.iter().map(|b| b.bot_id.as_str()))
            .collect();
        assert_eq!(seated.len(), 2, "one match of the two left: {round:?}");
        assert!(!seated.contains(&withdrawn.as_str()), "{round:?}");
    }
    assert_eq!(
        finished.standings.len(),
        3,
        "the withdrawn bot keeps its place in the standings: {finished:?}"
    );
    for p in players {
        p.abort();
    }
    swiss.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_tournament_left_with_too_few_bots_for_a_game_ends_early() {
    // A short clock: a revoked bot's game of round 1 is played out by it.
    let mut swiss = Tournament::start(Some(pb::TimeControl {
        decision_ms: 100,
        time_bank_ms: 0,
    }))
    .await;
    let (first, in_match) = swiss_first_round(&mut swiss).await;
    let (bye, seated) = (first.byes[0].bot_id.clone(), in_match[0].clone());
    swiss.revoke(&bye).await;
    swiss.revoke(&seated).await;
    let players = swiss.play_all_but(&[&bye, &seated]);

    // Round 1 is played out; one bot is left, so no round 2: the end.
    let (later, finished) = swiss.rounds_to_the_end().await;
    assert!(later.is_empty(), "no round after the first: {later:?}");
    assert_eq!(finished.standings.len(), 3, "{finished:?}");
    for p in players {
        p.abort();
    }
    swiss.server.stop().await;
}

/// Round 1 of `swiss` (one bye, one match of two), and its match's bots.
async fn swiss_first_round(swiss: &mut Tournament) -> (pb::RoundStarted, Vec<String>) {
    let first = swiss.first_round().await;
    assert_eq!(first.byes.len(), 1, "three bots, two seats: {first:?}");
    assert_eq!(first.matches.len(), 1, "{first:?}");
    let seated = first.matches[0]
        .bots
        .iter()
        .map(|b| b.bot_id.clone())
        .collect();
    (first, seated)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_bot_gets_no_byes_from_a_restart() {
    let db = TestDb::new(Backend::Sqlite, "swiss_withdrawal_restart");
    let swiss = Format::Swiss(pb::Swiss { rounds: 3 });
    let mut swiss = Tournament::start_in(db.open(), swiss, None).await;
    let (first, _) = swiss_first_round(&mut swiss).await;
    let withdrawn = first.byes[0].bot_id.clone();
    swiss.revoke(&withdrawn).await;
    let players = swiss.play_all_but(&[&withdrawn]);
    let (_, finished) = swiss.rounds_to_the_end().await;
    for p in players {
        p.abort();
    }
    let points = |standings: &[pb::Standing]| -> Vec<(String, f64)> {
        let mut p: Vec<_> = (standings.iter())
            .map(|s| (s.bot.as_ref().unwrap().bot_id.clone(), s.points))
            .collect();
        p.sort_by(|a, b| a.0.cmp(&b.0));
        p
    };
    let before = points(&finished.standings);
    let bye = before.iter().find(|(b, _)| *b == withdrawn).unwrap().1;
    assert_eq!(bye, 0.5, "one bye, half a two-player game: {before:?}");

    // The restarted server rebuilds the standings from the stored matches
    // and the log: the rounds it sat out after its withdrawal were no byes.
    swiss.server.stop().await;
    let server = TestServer::with(db.open(), with_operator()).await;
    let mut a = crate::arena::arena(&server).await;
    let kept = a
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: swiss.id.clone(),
        })
        .await
        .expect("get")
        .into_inner()
        .tournament
        .expect("the tournament");
    assert_eq!(kept.status, pb::TournamentStatus::Finished as i32);
    assert_eq!(points(&kept.standings), before, "{kept:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_revoked_in_a_round_robin_plays_none_of_its_later_games() {
    let store = Arc::new(druids_server::MemoryStore::default());
    let format = Format::RoundRobin(pb::RoundRobin { games_per_group: 1 });
    let mut rr = Tournament::start_in(store, format, None).await;
    let first = rr.first_round().await;
    // Three bots, one game a round: the bot sitting round 1 out meets each
    // of the others later. Revoked now, it plays neither game (its turn
    // clock, the default one, would hold each for minutes).
    assert_eq!(first.matches.len(), 1, "{first:?}");
    let seated: Vec<&str> = (first.matches[0].bots.iter())
        .map(|b| b.bot_id.as_str())
        .collect();
    let withdrawn = (rr.bots.iter())
        .map(|(id, _)| id.clone())
        .find(|id| !seated.contains(&id.as_str()))
        .expect("a bot sits round 1 out");
    rr.revoke(&withdrawn).await;
    let players = rr.play_all_but(&[&withdrawn]);

    let (later, finished) = rr.rounds_to_the_end().await;
    assert_eq!(later.len(), 2, "rounds 2 and 3 are drawn: {later:?}");
    for round in &later {
        assert!(
            round.matches.is_empty(),
            "both seat the withdrawn bot: {round:?}"
        );
    }
    let played: u32 = finished.standings.iter().map(|s| s.matches).sum();
    assert_eq!(
        played, 2,
        "round 1's game, one result per seat: {finished:?}"
    );
    for p in players {
        p.abort();
    }
    rr.server.stop().await;
}
