//! Heartbeats on the arena's streams (issue 27, outage 7), as on
//! `StreamEvents` (`stream_heartbeats.rs`): a quiet `Seek`,
//! `StreamBotEvents` or `StreamTournamentEvents` stream sends a heartbeat
//! every `--stream-heartbeat-ms`; on the two logs it takes no seq of its own
//! (it repeats the last seq sent, or from_seq - 1 before the first), the real
//! events still come in order between heartbeats, and SSE gives a heartbeat
//! no id. A client reading bot events from a SIGSTOPped server sees the
//! heartbeats stop, and go on after SIGCONT.
#![cfg(unix)]

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::Limits;
use druids_tests::heartbeats::{MaybeHeartbeat, falls_silent};
use druids_tests::{TestServer, authed, http_face};
use tonic::Streaming;

use crate::arena::{Arena, arena, register};
use crate::stream_heartbeats::{EVERY_MS, beating_server, sse_until};

/// Guards a hang only: every wait below is on a condition.
const HANG: Duration = Duration::from_secs(120);

fn limits() -> Limits {
    Limits {
        stream_heartbeat_ms: EVERY_MS,
        ..crate::arena::limits()
    }
}

async fn next<E>(stream: &mut Streaming<E>) -> E {
    tokio::time::timeout(HANG, stream.message())
        .await
        .expect("the stream sends something (deadlock guard)")
        .expect("the stream goes on")
        .expect("not ended")
}

/// A stream of a log read against the seq rule: an event has the next seq
/// of the log, a heartbeat repeats the last seq sent.
struct Log<E> {
    stream: Streaming<E>,
    /// The last seq sent (from_seq - 1 before the first).
    last: u64,
    /// Heartbeats read.
    beats: usize,
}

/// An event of a log with seqs.
trait Logged: MaybeHeartbeat + std::fmt::Debug {
    fn seq(&self) -> u64;
}

impl Logged for pb::BotEvent {
    fn seq(&self) -> u64 {
        self.seq
    }
}

impl Logged for pb::TournamentEvent {
    fn seq(&self) -> u64 {
        self.seq
    }
}

impl<E: Logged> Log<E> {
    fn new(stream: Streaming<E>, from_seq: u64) -> Log<E> {
        Log {
            stream,
            last: from_seq.saturating_sub(1),
            beats: 0,
        }
    }

    /// The stream's next item, checked against the rule: Some if an event.
    async fn step(&mut self) -> Option<E> {
        let e = next(&mut self.stream).await;
        if e.is_heartbeat() {
            assert_eq!(
                e.seq(),
                self.last,
                "a heartbeat repeats the last seq: {e:?}"
            );
            self.beats += 1;
            None
        } else {
            assert_eq!(e.seq(), self.last + 1, "the log's next event: {e:?}");
            self.last = e.seq();
            Some(e)
        }
    }

    /// The next event that is not a heartbeat (the heartbeats before it
    /// checked).
    async fn event(&mut self) -> E {
        loop {
            if let Some(e) = self.step().await {
                return e;
            }
        }
    }

    /// Reads until `n` more heartbeats came (events between them checked
    /// and returned).
    async fn beats(&mut self, n: usize) -> Vec<E> {
        let mut events = Vec::new();
        let until = self.beats + n;
        while self.beats < until {
            events.extend(self.step().await);
        }
        events
    }
}

async fn bot_events(a: &mut Arena, key: &str, from_seq: u64) -> Log<pb::BotEvent> {
    let stream = a
        .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq }))
        .await
        .expect("bot events")
        .into_inner();
    Log::new(stream, from_seq)
}

fn two_player_seek() -> pb::SeekRequest {
    pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: 2,
        max_players: 2,
        rated: false,
    }
}

fn seek_event(e: &pb::SeekEvent) -> &pb::seek_event::Event {
    e.event.as_ref().expect("an event")
}

/// A lonely seek beats while it waits, then tells its match and game; the
/// bot's event log beats with seq 0 while empty and with its last seq after
/// the match's events; resumed at its end, it beats with from_seq - 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_seek_and_bot_event_stream_send_heartbeats() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (_, first) = register(&mut a, "first").await;
    let (_, second) = register(&mut a, "second").await;

    // An empty log beats with seq 0.
    let mut log = bot_events(&mut a, &first, 0).await;
    assert!(log.beats(3).await.is_empty(), "nothing happened yet");
    assert_eq!(log.last, 0);

    // A seek nobody else can fill: seeking (and waiting), then heartbeats.
    let mut seek = a
        .seek(authed(&first, two_player_seek()))
        .await
        .expect("seek")
        .into_inner();
    let mut beats = 0;
    let mut before = Vec::new();
    while beats < 3 {
        let e = next(&mut seek).await;
        match seek_event(&e) {
            pb::seek_event::Event::Heartbeat(_) => beats += 1,
            other => before.push(other.clone()),
        }
    }
    assert!(
        matches!(before.first(), Some(pb::seek_event::Event::Seeking(_))),
        "the seek is told first: {before:?}"
    );
    assert!(
        before[1..]
            .iter()
            .all(|e| matches!(e, pb::seek_event::Event::Waiting(_))),
        "then only why it waits: {before:?}"
    );

    // A second seek forms the match: its events come in order among the
    // heartbeats, on the seek's stream and on the bot's log.
    let _other = a
        .seek(authed(&second, two_player_seek()))
        .await
        .expect("seek")
        .into_inner();
    let started = loop {
        let e = next(&mut seek).await;
        match seek_event(&e) {
            pb::seek_event::Event::Heartbeat(_) | pb::seek_event::Event::Waiting(_) => {}
            pb::seek_event::Event::MatchStarted(m) => break m.clone(),
            other => panic!("the match is told first: {other:?}"),
        }
    };
    let game = loop {
        let e = next(&mut seek).await;
        match seek_event(&e) {
            pb::seek_event::Event::Heartbeat(_) => {}
            pb::seek_event::Event::GameStarted(g) => break g.clone(),
            other => panic!("then its game: {other:?}"),
        }
    };
    assert_eq!(game.match_id, started.match_id);
    let matched = log.event().await;
    assert!(
        matches!(&matched.event, Some(pb::bot_event::Event::MatchStarted(m)) if m.match_id == started.match_id),
        "{matched:?}"
    );
    let played = log.event().await;
    assert!(
        matches!(&played.event, Some(pb::bot_event::Event::GameStarted(g)) if g.game_id == game.game_id),
        "{played:?}"
    );
    // Quiet again (nobody plays; whatever else happens is checked by the
    // same rule): heartbeats repeat the last seq sent.
    log.beats(3).await;
    assert!(log.last >= played.seq);

    // Resumed after the last event: heartbeats say what the client saw.
    let mut resumed = bot_events(&mut a, &first, log.last + 1).await;
    resumed.beats(2).await;
    // A heartbeat carries the time it was sent.
    let beat = loop {
        let e = next(&mut resumed.stream).await;
        if e.is_heartbeat() {
            break e;
        }
    };
    assert!(beat.at_unix_ms >= played.at_unix_ms, "{beat:?} {played:?}");
    server.stop().await;
}

/// An open tournament's stream beats with its last seq while nobody joins;
/// a bot joining is its next event, with the next seq; as SSE a heartbeat
/// has no id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_tournament_stream_sends_heartbeats_that_take_no_seq() {
    let server = TestServer::with(Arc::new(druids_server::MemoryStore::default()), limits()).await;
    let mut a = arena(&server).await;
    let (host, host_key) = register(&mut a, "host").await;
    let (late, late_key) = register(&mut a, "late").await;
    let created = a
        .create_tournament(authed(
            &host_key,
            pb::CreateTournamentRequest {
                name: "quiet cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: vec![host],
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 3600,
                    max_entrants: 4,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("a tournament");
    let id = created.tournament_id;
    let open = |from_seq| pb::StreamTournamentEventsRequest {
        tournament_id: id.clone(),
        from_seq,
    };
    let stream = a
        .stream_tournament_events(open(0))
        .await
        .expect("events")
        .into_inner();
    let mut log = Log::new(stream, 0);
    // What creation logged, then only heartbeats (entry is open for an hour).
    log.beats(3).await;
    let quiet = log.last;

    let joined = a
        .join_tournament(authed(
            &late_key,
            pb::JoinTournamentRequest {
                tournament_id: id.clone(),
            },
        ))
        .await;
    joined.expect("join");
    let e = log.event().await;
    assert_eq!(e.seq, quiet + 1);
    assert!(
        matches!(&e.event, Some(pb::tournament_event::Event::EntrantJoined(b)) if b.bot_id == late),
        "{e:?}"
    );
    log.beats(3).await;
    assert_eq!(log.last, e.seq, "nothing else happened");

    // Resumed at the end: heartbeats repeat from_seq - 1.
    let stream = a
        .stream_tournament_events(open(e.seq + 1))
        .await
        .expect("events")
        .into_inner();
    Log::new(stream, e.seq + 1).beats(2).await;

    // As SSE: events have ids (Last-Event-ID resumes), a heartbeat none.
    let base = http_face(&server).await;
    let body = sse_until(
        &base,
        &format!("/api/v1/tournaments/{id}/events?from_seq=1"),
        "\"heartbeat\"",
    )
    .await;
    let blocks: Vec<&str> = body.split("\n\n").collect();
    let beat = blocks
        .iter()
        .find(|b| b.contains("\"heartbeat\""))
        .expect("a heartbeat block");
    assert!(beat.starts_with("data: "), "no id on a heartbeat: {beat:?}");
    let joins: Vec<&&str> = blocks
        .iter()
        .filter(|b| b.contains("entrantJoined"))
        .collect();
    assert!(!joins.is_empty(), "the join is told: {body}");
    assert!(joins.iter().all(|b| b.starts_with("id: ")), "{body}");
    server.stop().await;
}

/// A bot's event stream straight to a server process that is then
/// SIGSTOPped: heartbeats, then none (once those already on the way are
/// read), then heartbeats again after SIGCONT, on the same stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_sees_the_heartbeats_of_a_paused_arena_stop() {
    let (server, dir) = beating_server("druids-arena-beats");
    let mut a = ArenaServiceClient::connect(server.url())
        .await
        .expect("connect");
    let (_, key) = register(&mut a, "watcher").await;
    let mut log = bot_events(&mut a, &key, 1).await;
    log.beats(3).await;
    server.signal("STOP");
    // A window of many intervals: a running server beats in each, a paused
    // one (once the beats already sent are read) in none.
    let window = Duration::from_millis(EVERY_MS * 20);
    assert!(
        falls_silent(&mut log.stream, window, 50).await,
        "the heartbeats of a paused server stop"
    );
    server.signal("CONT");
    log.beats(1).await;
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
