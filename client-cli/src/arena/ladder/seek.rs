//! One seek slot of the ladder: seek, play the match the server forms, seek
//! again, until the limit or a stop; a seek stream that breaks during a
//! match is followed up on the bot's event log.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::seek_event::Event;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::StreamExt;
use tonic::{Code, Status};

use crate::arena::client::arena_error;
use crate::arena::ladder::state::{Ladder, stopped};
use crate::connect::{CliError, authed};
use crate::retry::{asked_delay, code_name, transient};

/// Seeks in a row that fail for a passing reason (server unavailable, quota)
/// before a ladder slot gives up.
const RETRIES: u32 = 20;

/// Longest pause between two seeks after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How one seek ended.
enum SeekEnd {
    /// Its match was played (or at least formed).
    Played,
    /// Cancelled by Ctrl-C before a match was formed.
    Cancelled,
}

impl Ladder {
    pub(super) async fn slot(
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
                    if transient(&s)
                        && (failures < RETRIES || s.code() == Code::ResourceExhausted) =>
                {
                    self.release();
                    failures = failures.saturating_add(1);
                    let pause = asked_delay(&s)
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
                Some(Event::Seeking(s)) => eprintln!(
                    "[{slot}] seeking {pool}: {} open seek(s) could share a game with it",
                    s.pool_size
                ),
                Some(Event::Waiting(w)) => eprintln!("[{slot}] waiting: {}", w.message),
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
                // The stream is alive but quiet.
                Some(Event::Heartbeat(_)) | None => {}
            }
        }
    }

    /// Notes a match formed by a seek of this process.
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
}
