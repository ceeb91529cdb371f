//! The ladder of `druids bot --seek` (`proto/druids/v1/arena.proto`).
//!
//! The ladder keeps `--concurrent` seeks going. Each one waits in the pool
//! until the server forms a match, plays every game the Seek stream names
//! (the bot's API key is its seat's token there) with the same strategy as
//! `druids bot`, and seeks again once the match is over, until `--games`
//! matches were started or Ctrl-C: the first Ctrl-C cancels the open seeks
//! and lets the matches in progress finish, a second one quits at once.
//!
//! With `--events` the bot also follows its event log and plays the games
//! of the matches it did not seek (tournaments, challenges):
//! [`crate::bot_events`]. A game is played once whoever names it first (the
//! Seek stream or the log): the ladder claims every game id it starts.
//!
//! stdout gets one JSON line per game played and one per match finished;
//! progress goes to stderr.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::seek_event::Event;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::StreamExt;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::arena::{Arena, arena_error, by_rank, match_text};
use crate::cli::{BotArgs, Pool};
use crate::connect::{self, CliError, ServerAddr, authed, code_name};
use crate::outln;
use crate::play::{SeatResult, SeatStrategy, python_json};

/// Seeks in a row that fail for a passing reason (server unavailable, quota)
/// before a ladder slot gives up.
const RETRIES: u32 = 20;

/// Longest pause between two seeks after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The JSON line of a finished match: `{"match_id", "placements": [{"bot_id",
/// "name", "rank", "score"}, ...]}`.
pub fn match_line(m: &pb::MatchFinished) -> String {
    let placements: Vec<serde_json::Value> = by_rank(m)
        .into_iter()
        .map(|p| {
            let bot = p.bot.clone().unwrap_or_default();
            serde_json::json!({"bot_id": bot.bot_id, "name": bot.name, "rank": p.rank, "score": p.score})
        })
        .collect();
    python_json(&serde_json::json!({"match_id": m.match_id, "placements": placements}))
}

/// The JSON line of a game of a match: `{"match_id", "index", "game_id",
/// "seat", "outcome"}` (the outcome as in `druids bot`'s line), or with
/// `"error"` instead of the outcome when the game could not be played.
pub fn game_line(g: &pb::MatchGame, played: &Result<SeatResult, String>) -> String {
    let j = |v: serde_json::Value| python_json(&v);
    let head = format!(
        "{{\"match_id\": {}, \"index\": {}, \"game_id\": {}",
        j(g.match_id.clone().into()),
        g.index,
        j(g.game_id.clone().into())
    );
    match played {
        Ok(r) => {
            let outcome = r
                .outcome
                .as_ref()
                .map_or(serde_json::Value::Null, druids_contract::json::to_json);
            format!(
                "{head}, \"seat\": {}, \"outcome\": {}}}",
                r.seat,
                j(outcome)
            )
        }
        Err(e) => format!(
            "{head}, \"seat\": {}, \"error\": {}}}",
            g.seat,
            j(e.clone().into())
        ),
    }
}

/// What the slots of one ladder (and its event follower) share.
pub(crate) struct Ladder {
    pub(crate) server: ServerAddr,
    pub(crate) arena: Arena,
    pub(crate) client: connect::Client,
    pub(crate) key: String,
    /// The pool of `--seek` (None: `--events` only).
    pool: Option<Pool>,
    rated: bool,
    strategy: SeatStrategy,
    /// At most this many matches (None: no limit).
    limit: Option<u32>,
    /// Matches started or being sought (a seek reserves one).
    reserved: AtomicU32,
    /// Games begun, for distinct seeds.
    games: AtomicU64,
    /// Games that failed (reported on stderr and stdout).
    failed: AtomicU32,
    /// Every game id started, by a seek or by the event log: none twice.
    claimed: Mutex<HashSet<String>>,
    /// The matches formed by this process's seeks (their ends are printed by
    /// the seek, not by the event log).
    pub(crate) sought: Mutex<HashSet<String>>,
    /// `--accept-challenges`.
    pub(crate) accept_challenges: bool,
}

/// How one seek ended.
enum SeekEnd {
    /// Its match was played (or at least formed).
    Played,
    /// Cancelled by Ctrl-C before a match was formed.
    Cancelled,
}

/// Resolves once `stop` says true (never when its sender is gone).
pub(crate) async fn stopped(stop: &mut watch::Receiver<bool>) {
    loop {
        if *stop.borrow_and_update() {
            return;
        }
        if stop.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Whether a failed seek may work when tried again.
fn transient(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::Unknown
            | Code::Cancelled
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Aborted
    )
}

impl Ladder {
    /// Reserves one match of the limit; false when the limit is reached.
    fn reserve(&self) -> bool {
        let Some(limit) = self.limit else {
            return true;
        };
        self.reserved
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < limit).then_some(n + 1)
            })
            .is_ok()
    }

    /// Gives a reservation back (its seek formed no match).
    fn release(&self) {
        if self.limit.is_some() {
            self.reserved.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// One slot: seek, play the match, seek again, until the limit or a stop.
    async fn slot(
        self: Arc<Self>,
        slot: u32,
        mut stop: watch::Receiver<bool>,
    ) -> Result<(), CliError> {
        let mut failures = 0u32;
        loop {
            if *stop.borrow() || !self.reserve() {
                return Ok(());
            }
            match self.one_match(slot, &mut stop).await {
                Ok(SeekEnd::Played) => failures = 0,
                Ok(SeekEnd::Cancelled) => {
                    self.release();
                    return Ok(());
                }
                // A quota (too many seeks or matches of this bot at once) is
                // waited out however long it lasts: the bot's other slots
                // free it as their matches end.
                Err(s)
                    if transient(s.code())
                        && (failures < RETRIES || s.code() == Code::ResourceExhausted) =>
                {
                    self.release();
                    failures = failures.saturating_add(1);
                    let pause = s
                        .get_details_retry_info()
                        .and_then(|r| r.retry_delay)
                        .map(|d| d * failures.min(10))
                        .unwrap_or_else(|| Duration::from_millis(200) * 2u32.pow(failures.min(8)))
                        .min(MAX_BACKOFF);
                    eprintln!(
                        "[{slot}] seek: {}: {}; seeking again in {pause:.1?}",
                        code_name(s.code()),
                        s.message()
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(pause) => {}
                        _ = stopped(&mut stop) => return Ok(()),
                    }
                }
                Err(s) => return Err(arena_error(&self.server, s)),
            }
        }
    }

    /// Opens one seek and plays the match it forms. Errors are those of the
    /// seek before its match was formed; once it is, the match counts as
    /// played whatever happens to the stream.
    async fn one_match(
        self: &Arc<Self>,
        slot: u32,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<SeekEnd, Status> {
        let pool = self.pool.expect("seek slots run only with --seek");
        let req = authed(
            Some(&self.key),
            pb::SeekRequest {
                kind: pool.kind.number(),
                min_players: pool.min_players,
                max_players: pool.max_players,
                rated: self.rated,
            },
        )
        .map_err(|_| Status::invalid_argument("the key must be plain ASCII"))?;
        let mut arena = self.arena.clone();
        let mut stream = tokio::select! {
            r = arena.seek(req) => r?.into_inner(),
            _ = stopped(stop) => return Ok(SeekEnd::Cancelled),
        };
        let mut games: JoinSet<()> = JoinSet::new();
        let mut matched = false;
        let mut match_id = String::new();
        let mut started = HashSet::new();
        loop {
            let next = if matched {
                stream.next().await
            } else {
                tokio::select! {
                    e = stream.next() => e,
                    // Dropping the stream cancels the seek.
                    _ = stopped(stop) => return Ok(SeekEnd::Cancelled),
                }
            };
            let event = match next {
                Some(Ok(e)) => e.event,
                Some(Err(s)) if !matched => return Err(s),
                None if !matched => {
                    return Err(Status::unavailable(
                        "the seek stream ended before a match was formed",
                    ));
                }
                broken => {
                    let why = match broken {
                        Some(Err(s)) => format!("broke ({}: {})", code_name(s.code()), s.message()),
                        _ => "ended".to_owned(),
                    };
                    eprintln!(
                        "[{slot}] the seek stream {why} during match {match_id}: following it \
                         on the bot's event log"
                    );
                    let finished = self
                        .recover(slot, &match_id, &mut started, &mut games)
                        .await;
                    while games.join_next().await.is_some() {}
                    match finished {
                        Some(m) => self.finished(slot, &m),
                        None => eprintln!(
                            "[{slot}] lost track of match {match_id}: its later games are lost \
                             to this bot"
                        ),
                    }
                    return Ok(SeekEnd::Played);
                }
            };
            match event {
                Some(Event::Seeking(s)) => {
                    eprintln!("[{slot}] seeking {pool}: {} in the pool", s.pool_size)
                }
                Some(Event::MatchStarted(m)) => {
                    matched = true;
                    match_id = m.match_id.clone();
                    self.sought_match(&match_id);
                    let bots: Vec<&str> = m.bots.iter().map(|b| b.name.as_str()).collect();
                    eprintln!(
                        "[{slot}] match {}: {} game(s), {} players{}: {}",
                        m.match_id,
                        m.games,
                        m.players,
                        if m.rated { ", rated" } else { "" },
                        bots.join(", ")
                    );
                }
                Some(Event::GameStarted(g)) => {
                    matched = true;
                    match_id = g.match_id.clone();
                    self.sought_match(&match_id);
                    if started.insert(g.game_id.clone()) {
                        self.start_game(slot, g, &mut games);
                    }
                }
                Some(Event::MatchFinished(m)) => {
                    // Its games are over; their players see the end too.
                    while games.join_next().await.is_some() {}
                    self.finished(slot, &m);
                    return Ok(SeekEnd::Played);
                }
                None => {}
            }
        }
    }

    /// Notes a match formed by a seek of this process.
    fn sought_match(&self, match_id: &str) {
        let mut sought = self.sought.lock().expect("no panics while locked");
        sought.insert(match_id.to_owned());
    }

    /// Claims a game: true the first time its id is given.
    pub(crate) fn claim(&self, game_id: &str) -> bool {
        let mut claimed = self.claimed.lock().expect("no panics while locked");
        claimed.insert(game_id.to_owned())
    }

    /// Starts playing a game of a match, unless it was started already (by a
    /// seek or by the event log).
    pub(crate) fn start_game(
        self: &Arc<Self>,
        slot: impl std::fmt::Display,
        g: pb::MatchGame,
        games: &mut JoinSet<()>,
    ) {
        if !self.claim(&g.game_id) {
            return;
        }
        eprintln!(
            "[{slot}] game {} of match {}: {} in seat {}",
            g.index, g.match_id, g.game_id, g.seat
        );
        let ladder = Arc::clone(self);
        games.spawn(async move { ladder.play(g).await });
    }

    /// Reports a finished match.
    pub(crate) fn finished(&self, slot: impl std::fmt::Display, m: &pb::MatchFinished) {
        eprintln!("[{slot}] match over: {}", match_text(m, ""));
        if let Err(e) = outln!("{}", match_line(m)) {
            eprintln!("cannot write the match's line: {e}");
        }
    }

    /// Follows match `match_id` on the bot's event log (StreamBotEvents,
    /// from its start) after its Seek stream broke: plays its games not yet
    /// `started` and returns its end, or None if the log cannot be read.
    async fn recover(
        self: &Arc<Self>,
        slot: u32,
        match_id: &str,
        started: &mut HashSet<String>,
        games: &mut JoinSet<()>,
    ) -> Option<pb::MatchFinished> {
        use pb::bot_event::Event as BotEvent;
        for attempt in 1..=RETRIES {
            let req = authed(Some(&self.key), pb::StreamBotEventsRequest { from_seq: 1 }).ok()?;
            let mut arena = self.arena.clone();
            if let Ok(reply) = arena.stream_bot_events(req).await {
                let mut log = reply.into_inner();
                while let Some(Ok(e)) = log.next().await {
                    match e.event {
                        Some(BotEvent::GameStarted(g))
                            if g.match_id == match_id && started.insert(g.game_id.clone()) =>
                        {
                            self.start_game(slot, g, games);
                        }
                        Some(BotEvent::MatchFinished(m)) if m.match_id == match_id => {
                            return Some(m);
                        }
                        _ => {}
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(200) * attempt).await;
        }
        None
    }

    /// Plays one game of a match and prints its line.
    pub(crate) async fn play(&self, g: pb::MatchGame) {
        let nth = self.games.fetch_add(1, Ordering::SeqCst);
        let mut client = self.client.clone();
        let played = self
            .strategy
            .play(&self.server, &mut client, &g.game_id, &self.key, nth)
            .await
            .map_err(|e| e.to_string());
        if let Err(e) = &played {
            self.failed.fetch_add(1, Ordering::SeqCst);
            eprintln!("game {} (match {}): {e}", g.game_id, g.match_id);
        }
        if let Err(e) = outln!("{}", game_line(&g, &played)) {
            eprintln!("cannot write the game's line: {e}");
        }
    }
}

/// `druids bot --seek POOL --key KEY` (and/or `--events`): plays the ladder
/// (see the module).
pub async fn ladder(server: &ServerAddr, args: &BotArgs) -> Result<(), CliError> {
    let key = args.key.clone().ok_or_else(|| {
        CliError::Usage(
            "`druids bot --seek` and `--events` need the bot's API key: --key or \
             DRUIDS_BOT_KEY (`druids register` makes one)"
                .into(),
        )
    })?;
    authed(Some(&key), ())?;
    let channel = connect::channel(server).await?;
    let ladder = Arc::new(Ladder {
        server: server.clone(),
        arena: Arena::new(channel.clone()),
        client: pb::druids_service_client::DruidsServiceClient::new(channel),
        key,
        pool: args.seek,
        rated: args.rated,
        strategy: SeatStrategy::of(args),
        limit: args.games,
        reserved: AtomicU32::new(0),
        games: AtomicU64::new(0),
        failed: AtomicU32::new(0),
        claimed: Mutex::new(HashSet::new()),
        sought: Mutex::new(HashSet::new()),
        accept_challenges: args.accept_challenges,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut slots = JoinSet::new();
    if args.seek.is_some() {
        for slot in 0..args.concurrent {
            slots.spawn(Arc::clone(&ladder).slot(slot, stop_rx.clone()));
        }
    }
    if args.events {
        slots.spawn(crate::bot_events::follow(
            Arc::clone(&ladder),
            stop_rx.clone(),
        ));
    }
    let mut stopping = false;
    let mut result = Ok(());
    loop {
        tokio::select! {
            joined = slots.join_next() => match joined {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => {
                    // The same error would stop every slot (a wrong key, no
                    // arena): stop them all.
                    result = Err(e);
                    let _ = stop_tx.send(true);
                    slots.abort_all();
                }
                Some(Err(e)) if e.is_cancelled() => {}
                Some(Err(e)) => {
                    result = Err(e.into());
                    let _ = stop_tx.send(true);
                    slots.abort_all();
                }
            },
            signal = tokio::signal::ctrl_c() => {
                if signal.is_err() {
                    continue;
                }
                if stopping {
                    eprintln!("quitting: the matches in progress are left to the turn clock");
                    slots.abort_all();
                    return Err(CliError::Interrupted);
                }
                stopping = true;
                eprintln!(
                    "stopping: open seeks cancelled, events no longer followed, games and \
                     matches in progress played to the end (Ctrl-C again to quit now)"
                );
                let _ = stop_tx.send(true);
            }
        }
    }
    result?;
    let failed = ladder.failed.load(Ordering::SeqCst);
    if failed > 0 {
        return Err(CliError::Io(std::io::Error::other(format!(
            "{failed} game(s) could not be played (see above)"
        ))));
    }
    Ok(())
}
