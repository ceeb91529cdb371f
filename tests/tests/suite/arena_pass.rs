//! One large matchmaking pass does not block the arena (issue 27): the
//! games of a pass are created at once, each told to its bots as soon as it
//! exists, and no pass holds the arena's lock while it writes, so
//! `GetLeaderboard` and new seeks are answered while games are still being
//! created. A tournament's round opens its matches the same way. The store under the server is a real in-memory store whose game
//! creations wait at a gate the test opens one at a time: what is checked is
//! the order of events, never how long anything took.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::{MemoryStore, Store};
use druids_store::{
    Accounts, ActionRecord, BotRecord, ChallengeRecord, EndedQuery, Epoch, EventLog, EventLogs,
    GameRecord, Games, Lifecycle, MatchRecord, Matches, PlacementRecord, RequestRecord, Requests,
    StoreError, StoredGame, StoredMatch, TokenHash, TournamentRecord, Tournaments,
};
use druids_tests::{TestServer, authed};
use tokio::sync::mpsc;

use crate::arena::{Arena, arena, limits, register};

/// A deadlock guard, never a measure: each wait below ends as soon as its
/// condition holds.
const GUARD: Duration = Duration::from_secs(90);

/// The game creations waiting and done, and how many may pass.
#[derive(Default)]
struct Counts {
    waiting: usize,
    done: usize,
    permits: usize,
    open: bool,
}

/// Where game creations wait until the test lets them through.
#[derive(Default)]
struct Gate {
    counts: Mutex<Counts>,
    changed: Condvar,
}

impl Gate {
    fn counts<T>(&self, read: impl FnOnce(&Counts) -> T) -> T {
        read(&self.counts.lock().unwrap())
    }

    fn update(&self, change: impl FnOnce(&mut Counts)) {
        change(&mut self.counts.lock().unwrap());
        self.changed.notify_all();
    }

    /// Lets `n` more creations through.
    fn release(&self, n: usize) {
        self.update(|c| c.permits += n);
    }

    /// Lets every creation through from now on (also when a test fails, so
    /// the server it stops is not stuck).
    fn open(&self) {
        self.update(|c| c.open = true);
    }

    /// Waits (off the async workers) until the counts satisfy `cond`.
    async fn until(self: &Arc<Self>, what: &str, cond: fn(&Counts) -> bool) {
        let gate = Arc::clone(self);
        let waited = tokio::task::spawn_blocking(move || {
            let counts = gate.counts.lock().unwrap();
            let (_counts, timeout) = gate
                .changed
                .wait_timeout_while(counts, GUARD, |c| !cond(c))
                .unwrap();
            !timeout.timed_out()
        });
        assert!(waited.await.unwrap(), "never happened: {what}");
    }

    fn pass(&self) {
        let mut c = self.counts.lock().unwrap();
        c.waiting += 1;
        self.changed.notify_all();
        while !c.open && c.permits == 0 {
            c = self.changed.wait(c).unwrap();
        }
        if !c.open {
            c.permits -= 1;
        }
        c.waiting -= 1;
    }
}

/// Opens the gate when dropped: a failing test does not leave a creation
/// waiting forever.
struct OpenOnDrop(Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// A [`MemoryStore`] whose `create_game` passes the [`Gate`] first.
struct GatedStore {
    inner: MemoryStore,
    gate: Arc<Gate>,
}

impl Games for GatedStore {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        self.gate.pass();
        let created = self.inner.create_game(game);
        self.gate.update(|c| c.done += 1);
        created
    }
    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        epoch: Epoch,
    ) -> Result<(), StoreError> {
        self.inner
            .claim_seat(game_id, seat, name, token, request, epoch)
    }
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        self.inner.append_action(game_id, action)
    }
    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.inner.finish(game_id, version, outcome, at_ms)
    }
    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        self.inner.abandon(game_id, reason, at_ms)
    }
}

impl Lifecycle for GatedStore {
    fn load_in_play(&self) -> Result<Vec<StoredGame>, StoreError> {
        self.inner.load_in_play()
    }
    fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.inner.load_game(game_id)
    }
    fn list_ended(&self, query: &EndedQuery) -> Result<Vec<pb::GameSummary>, StoreError> {
        self.inner.list_ended(query)
    }
    fn ended_ids(&self, after_id: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        self.inner.ended_ids(after_id, limit)
    }
    fn delete_ended_before(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        self.inner.delete_ended_before(before_ms, limit)
    }
}

impl Requests for GatedStore {
    fn requests_since(&self, since_ms: u64) -> Result<Vec<RequestRecord>, StoreError> {
        self.inner.requests_since(since_ms)
    }
    fn request(&self, key: &[u8; 32]) -> Result<Option<RequestRecord>, StoreError> {
        self.inner.request(key)
    }
    fn secret(&self) -> Result<[u8; 32], StoreError> {
        self.inner.secret()
    }
}

impl Accounts for GatedStore {
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError> {
        self.inner.register_bot(bot)
    }
    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError> {
        self.inner.set_bot_key(bot_id, key_hash)
    }
    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.inner.revoke_bot(bot_id, at_ms)
    }
    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        self.inner.bots()
    }
}

impl Matches for GatedStore {
    fn create_match(&self, record: &MatchRecord) -> Result<(), StoreError> {
        self.inner.create_match(record)
    }
    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError> {
        self.inner.add_match_game(match_id, index, game_id)
    }
    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.inner.finish_match(match_id, placements, at_ms)
    }
    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.inner.matches()
    }
    fn save_challenge(&self, challenge: &ChallengeRecord) -> Result<(), StoreError> {
        self.inner.save_challenge(challenge)
    }
    fn remove_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.inner.remove_challenge(id)
    }
    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError> {
        self.inner.challenges()
    }
}

impl Tournaments for GatedStore {
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError> {
        self.inner.create_tournament(t)
    }
    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.inner.finish_tournament(id, at_ms)
    }
    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError> {
        self.inner.tournaments()
    }
}

impl EventLogs for GatedStore {
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        self.inner.append_event(log, owner, seq, event)
    }
    fn events(
        &self,
        log: EventLog,
        owner: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.inner.events(log, owner, from_seq, limit)
    }
    fn last_event(&self, log: EventLog, owner: &str) -> Result<u64, StoreError> {
        self.inner.last_event(log, owner)
    }
}

impl Store for GatedStore {
    fn is_durable(&self) -> bool {
        self.inner.is_durable()
    }
}

/// What a seeking bot's stream said: (bot, its first event) or (bot, the
/// game it was told it plays).
enum Heard {
    Seeking(usize),
    Game(usize, String),
}

/// Opens a two-player unrated Meduris seek (one game a match) for bot
/// `bot` and reports its stream's `Seeking` and `GameStarted` on `heard`.
async fn seek(server: &TestServer, bot: usize, key: String, heard: mpsc::UnboundedSender<Heard>) {
    let mut a = arena(server).await;
    tokio::spawn(async move {
        let mut stream = a
            .seek(authed(
                &key,
                pb::SeekRequest {
                    kind: pb::GameKind::Meduris as i32,
                    min_players: 2,
                    max_players: 2,
                    rated: false,
                },
            ))
            .await
            .expect("seek")
            .into_inner();
        while let Ok(Some(event)) = druids_tests::heartbeats::next_event(&mut stream).await {
            let said = match event.event {
                Some(pb::seek_event::Event::Seeking(_)) => Heard::Seeking(bot),
                Some(pb::seek_event::Event::GameStarted(g)) => Heard::Game(bot, g.game_id),
                _ => continue,
            };
            if heard.send(said).is_err() {
                return;
            }
        }
    });
}

/// A server over a [`GatedStore`], and its gate.
async fn gated_server() -> (Arc<Gate>, TestServer) {
    let gate = Arc::new(Gate::default());
    let store = GatedStore {
        inner: MemoryStore::default(),
        gate: Arc::clone(&gate),
    };
    (gate, TestServer::with(Arc::new(store), limits()).await)
}

/// Asks for the two-player Meduris leaderboard, which reads the arena's
/// state under its lock: it must be answered (`when`, guarded against a
/// deadlock).
async fn leaderboard_answers(a: &mut Arena, when: &str) {
    tokio::time::timeout(
        GUARD,
        a.get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        }),
    )
    .await
    .unwrap_or_else(|_| panic!("GetLeaderboard is not answered {when}"))
    .expect("the leaderboard");
}

/// The next thing a seek's stream said (guarded against a deadlock).
async fn next(heard: &mut mpsc::UnboundedReceiver<Heard>) -> Heard {
    tokio::time::timeout(GUARD, heard.recv())
        .await
        .expect("the arena answers while a pass creates games")
        .expect("the seeks' streams are open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_creates_its_games_at_once_and_the_arena_answers_meanwhile() {
    let (gate, server) = gated_server().await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let mut keys = Vec::new();
    for i in 0..10 {
        keys.push(register(&mut a, &format!("pass-{i}")).await.1);
    }
    let (tx, mut heard) = mpsc::unbounded_channel();

    // Two bots seek: a pass forms their match, and its game's creation waits.
    for (bot, key) in keys.iter().enumerate().take(2) {
        seek(&server, bot, key.clone(), tx.clone()).await;
    }
    gate.until("the first match's game is being created", |c| {
        c.waiting == 1
    })
    .await;

    // Meanwhile the arena answers: the leaderboard, and eight more seeks
    // (each told it is in the pool).
    leaderboard_answers(&mut a, "while a pass creates a game").await;
    for (bot, key) in keys.iter().enumerate().skip(2) {
        seek(&server, bot, key.clone(), tx.clone()).await;
    }
    let mut in_pool = 0;
    let mut games: Vec<Option<String>> = vec![None; keys.len()];
    while in_pool < keys.len() {
        match next(&mut heard).await {
            Heard::Seeking(_) => in_pool += 1,
            Heard::Game(bot, game) => panic!("bot {bot} got game {game} through a closed gate"),
        }
    }

    // The first game is created; its two bots are told; the next pass forms
    // the other four matches, whose four creations wait at the gate together.
    gate.release(1);
    for _ in 0..2 {
        match next(&mut heard).await {
            Heard::Game(bot, game) => games[bot] = Some(game),
            Heard::Seeking(bot) => panic!("bot {bot} was told twice it seeks"),
        }
    }
    assert!(games[0].is_some() && games[0] == games[1], "{games:?}");
    gate.until("the next pass creates its four games at once", |c| {
        c.waiting == 4 && c.done == 1
    })
    .await;

    // One of them is let through: its bots hear of it while the other three
    // are still being created.
    gate.release(1);
    let mut told = Vec::new();
    while told.len() < 2 {
        if let Heard::Game(bot, game) = next(&mut heard).await {
            assert!(games[bot].replace(game).is_none(), "bot {bot} placed twice");
            told.push(bot);
        }
    }
    assert_eq!(
        gate.counts(|c| (c.done, c.waiting)),
        (2, 3),
        "the first bots of a pass are told their game before its last game exists"
    );

    // The rest: every bot in exactly one game, two bots a game.
    gate.open();
    while games.iter().any(Option::is_none) {
        if let Heard::Game(bot, game) = next(&mut heard).await {
            assert!(games[bot].replace(game).is_none(), "bot {bot} placed twice");
        }
    }
    let mut ids: Vec<&String> = games.iter().flatten().collect();
    ids.sort();
    for pair in ids.chunks(2) {
        assert_eq!(pair[0], pair[1], "two bots a game: {ids:?}");
    }
    ids.dedup();
    assert_eq!(ids.len(), 5, "five games for ten bots: {ids:?}");
    assert_eq!(gate.counts(|c| c.done), 5, "no game created twice");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_round_creates_its_games_while_the_arena_answers() {
    let (gate, server) = gated_server().await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for i in 0..4 {
        bots.push(register(&mut a, &format!("round-{i}")).await);
    }
    let id = a
        .create_tournament(authed(
            &bots[0].1,
            pb::CreateTournamentRequest {
                name: "gated cup".into(),
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                entrants: vec![bots[0].0.clone()],
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
        .expect("create")
        .into_inner()
        .tournament
        .expect("the tournament")
        .tournament_id;
    for (_, key) in &bots[1..] {
        let join = pb::JoinTournamentRequest {
            tournament_id: id.clone(),
        };
        a.join_tournament(authed(key, join)).await.expect("join");
    }

    // Entry is full: the round draws the first round's two matches, whose
    // games wait at the gate.
    gate.until("the first round's games are being created", |c| {
        c.waiting >= 1
    })
    .await;
    leaderboard_answers(&mut a, "while a tournament round creates its games").await;
    assert_eq!(gate.counts(|c| c.done), 0, "no game let through yet");

    // Let through, the round starts with both matches, every entrant in one.
    gate.open();
    let mut events = a
        .stream_tournament_events(pb::StreamTournamentEventsRequest {
            tournament_id: id.clone(),
            from_seq: 1,
        })
        .await
        .expect("the tournament's events")
        .into_inner();
    let round = loop {
        let event = tokio::time::timeout(GUARD, druids_tests::heartbeats::next_event(&mut events))
            .await
            .expect("the round starts once its games exist")
            .expect("the stream stays open")
            .expect("the stream goes on while the tournament runs");
        if let Some(pb::tournament_event::Event::RoundStarted(r)) = event.event {
            break r;
        }
    };
    assert_eq!(round.round, 1);
    let mut seated: Vec<String> = round
        .matches
        .iter()
        .flat_map(|m| m.bots.iter().map(|b| b.bot_id.clone()))
        .collect();
    seated.sort();
    let mut entrants: Vec<String> = bots.iter().map(|(id, _)| id.clone()).collect();
    entrants.sort();
    assert_eq!(round.matches.len(), 2, "{round:?}");
    assert_eq!(seated, entrants, "every entrant in one match: {round:?}");
    server.stop().await;
}
