//! The arena from the command line (`proto/druids/v1/arena.proto`):
//! `druids register`, `druids rotate-key`, `druids leaderboard`,
//! `druids bot-info`, and the ladder of `druids bot --seek`.
//!
//! The ladder keeps `--concurrent` seeks going. Each one waits in the pool
//! until the server forms a match, plays every game the Seek stream names
//! (the bot's API key is its seat's token there) with the same strategy as
//! `druids bot`, and seeks again once the match is over, until `--games`
//! matches were started or Ctrl-C: the first Ctrl-C cancels the open seeks
//! and lets the matches in progress finish, a second one quits at once.
//!
//! stdout gets one JSON line per game played and one per match finished;
//! progress goes to stderr.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use druids::pb;
use druids::pb::arena_service_client::ArenaServiceClient;
use druids::pb::seek_event::Event;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::cli::{BotArgs, LeaderboardArgs, Pool, RegisterArgs};
use crate::commands::utc_minute;
use crate::connect::{self, CliError, ServerAddr, authed, code_name};
use crate::outln;
use crate::play::{SeatResult, SeatStrategy, python_json};

/// A client of the arena service.
pub type Arena = ArenaServiceClient<Channel>;

/// Seeks in a row that fail for a passing reason (server unavailable, quota)
/// before a ladder slot gives up.
const RETRIES: u32 = 20;

/// Longest pause between two seeks after failures.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A status of the arena service as the CLI's error: UNIMPLEMENTED means the
/// server has no arena at all.
pub fn arena_error(server: &ServerAddr, s: Status) -> CliError {
    if s.code() == Code::Unimplemented {
        CliError::NoArena {
            url: server.url.clone(),
            message: s.message().to_owned(),
        }
    } else {
        CliError::Status(s)
    }
}

/// Connects to the arena service at `server`.
async fn arena(server: &ServerAddr) -> Result<Arena, CliError> {
    Ok(ArenaServiceClient::new(connect::channel(server).await?))
}

/// The name of a pool's game.
fn game_name(kind: i32) -> &'static str {
    pb::GameKind::try_from(kind)
        .ok()
        .and_then(druids::registry::name)
        .unwrap_or("?")
}

/// `druids register`: prints the new bot's id and its API key.
pub async fn register(server: &ServerAddr, args: RegisterArgs) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let req = authed(
        args.operator_key.as_deref(),
        pb::RegisterBotRequest {
            name: args.name.clone(),
            description: args.description,
            owner_contact: args.contact,
        },
    )?;
    let reply = client
        .register_bot(req)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"bot_id": reply.bot_id, "name": args.name, "api_key": reply.api_key})
        )?;
    } else {
        outln!("bot {} ({})", reply.bot_id, args.name)?;
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!(
        "warning: the API key is shown only this once (the server keeps its hash): keep it secret; \
         `druids bot --key KEY --seek GAME:N` or DRUIDS_BOT_KEY plays with it"
    );
    Ok(())
}

/// `druids rotate-key`: prints the bot's new API key.
pub async fn rotate_key(server: &ServerAddr, key: String, json: bool) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let reply = client
        .rotate_bot_key(authed(Some(&key), pb::RotateBotKeyRequest {})?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        outln!("{}", serde_json::json!({"api_key": reply.api_key}))?;
    } else {
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!("warning: the new API key is shown only this once; the old one no longer works");
    Ok(())
}

/// A rating as "display (mu ± sigma)".
fn rating_text(r: Option<&pb::Rating>) -> String {
    match r {
        Some(r) => format!("{:.2} ({:.2} ± {:.2})", r.display, r.mu, r.sigma),
        None => "-".into(),
    }
}

/// A fitted strength as "strength (low–high)".
fn fit_text(f: Option<&pb::FittedStrength>) -> String {
    match f {
        Some(f) => format!("{:.0} ({:.0}–{:.0})", f.strength, f.low, f.high),
        None => "-".into(),
    }
}

/// `druids leaderboard`: a table (or JSON lines) of a pool's rated bots.
pub async fn leaderboard(server: &ServerAddr, args: LeaderboardArgs) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let mut page_token = args.page_token.unwrap_or_default();
    let pool = args.pool;
    let mut first = true;
    loop {
        let page = client
            .get_leaderboard(pb::GetLeaderboardRequest {
                kind: pool.kind as i32,
                players: pool.min_players,
                page_size: args.page_size.unwrap_or(0),
                page_token: page_token.clone(),
            })
            .await
            .map_err(|s| arena_error(server, s))?
            .into_inner();
        if first && !args.json {
            let fitted = match page.fitted_unix_ms {
                0 => "no fit yet".to_owned(),
                ms => format!("fit of {} UTC", utc_seconds(ms)),
            };
            outln!(
                "{}, {} players: rated bots, best first ({fitted})",
                game_name(pool.kind as i32),
                pool.min_players
            )?;
            outln!(
                "{:>4}  {:<24}  {:<25}  {:<19}  {:>7}  bot id",
                "rank",
                "bot",
                "rating (mu ± sigma)",
                "fit (95% CI)",
                "matches"
            )?;
        }
        first = false;
        for e in &page.entries {
            if args.json {
                outln!("{}", druids::json::to_json(e))?;
                continue;
            }
            let bot = e.bot.clone().unwrap_or_default();
            outln!(
                "{:>4}  {:<24}  {:<25}  {:<19}  {:>7}  {}",
                e.rank,
                bot.name,
                rating_text(e.rating.as_ref()),
                fit_text(e.fit.as_ref()),
                e.matches,
                bot.bot_id
            )?;
        }
        page_token = page.next_page_token;
        if page_token.is_empty() {
            return Ok(());
        }
        if !args.all {
            eprintln!("more bots: --page-token {page_token} (or --all)");
            return Ok(());
        }
    }
}

/// `ms` since the Unix epoch as "YYYY-MM-DD HH:MM:SS" (UTC).
fn utc_seconds(ms: u64) -> String {
    format!("{}:{:02}", utc_minute(ms), ms / 1000 % 60)
}

/// `druids bot-info`: a bot's profile, ratings and latest matches.
pub async fn bot_info(server: &ServerAddr, bot_id: String, json: bool) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let bot = client
        .get_bot(pb::GetBotRequest {
            bot_id: bot_id.clone(),
        })
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        return outln!("{}", druids::json::to_json(&bot));
    }
    let me = bot.bot.clone().unwrap_or_default();
    outln!("bot {} ({})", me.name, me.bot_id)?;
    if !bot.description.is_empty() {
        outln!("  {}", bot.description)?;
    }
    outln!("registered {} UTC", utc_seconds(bot.registered_unix_ms))?;
    if bot.ratings.is_empty() {
        outln!("no rated matches yet")?;
    } else {
        outln!(
            "{:<12}  {:<25}  {:<19}  {:>7}",
            "pool",
            "rating (mu ± sigma)",
            "fit (95% CI)",
            "matches"
        )?;
        for r in &bot.ratings {
            outln!(
                "{:<12}  {:<25}  {:<19}  {:>7}",
                format!("{}:{}", game_name(r.kind), r.players),
                rating_text(r.rating.as_ref()),
                fit_text(r.fit.as_ref()),
                r.matches
            )?;
        }
    }
    if !bot.recent_matches.is_empty() {
        outln!("latest matches, newest first:")?;
        for m in &bot.recent_matches {
            outln!("  {}", match_text(m, &me.bot_id))?;
        }
    }
    Ok(())
}

/// A match's placements, best first (the server lists them in seat order).
fn by_rank(m: &pb::MatchFinished) -> Vec<&pb::Placement> {
    let mut places: Vec<&pb::Placement> = m.placements.iter().collect();
    places.sort_by_key(|p| p.rank);
    places
}

/// A finished match in one line: "MATCH: 1. alpha 52, 2. beta 40", the bot
/// `me` marked with a star.
fn match_text(m: &pb::MatchFinished, me: &str) -> String {
    let places: Vec<String> = by_rank(m)
        .into_iter()
        .map(|p| {
            let bot = p.bot.clone().unwrap_or_default();
            let star = if bot.bot_id == me { "*" } else { "" };
            format!("{}. {}{star} {}", p.rank, bot.name, p.score)
        })
        .collect();
    format!("{}: {}", m.match_id, places.join(", "))
}

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
                .map_or(serde_json::Value::Null, druids::json::to_json);
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

/// What the slots of one ladder share.
struct Ladder {
    server: ServerAddr,
    arena: Arena,
    client: connect::Client,
    key: String,
    pool: Pool,
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
}

/// How one seek ended.
enum SeekEnd {
    /// Its match was played (or at least formed).
    Played,
    /// Cancelled by Ctrl-C before a match was formed.
    Cancelled,
}

/// Resolves once `stop` says true (never when its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
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
        let req = authed(
            Some(&self.key),
            pb::SeekRequest {
                kind: self.pool.kind as i32,
                min_players: self.pool.min_players,
                max_players: self.pool.max_players,
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
                    eprintln!(
                        "[{slot}] seeking {}: {} in the pool",
                        self.pool, s.pool_size
                    )
                }
                Some(Event::MatchStarted(m)) => {
                    matched = true;
                    match_id = m.match_id.clone();
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

    /// Starts playing a game of a match.
    fn start_game(self: &Arc<Self>, slot: u32, g: pb::MatchGame, games: &mut JoinSet<()>) {
        eprintln!(
            "[{slot}] game {} of match {}: {} in seat {}",
            g.index, g.match_id, g.game_id, g.seat
        );
        let ladder = Arc::clone(self);
        games.spawn(async move { ladder.play(g).await });
    }

    /// Reports a finished match.
    fn finished(&self, slot: u32, m: &pb::MatchFinished) {
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
    async fn play(&self, g: pb::MatchGame) {
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

/// `druids bot --seek POOL --key KEY`: plays the ladder (see the module).
pub async fn ladder(server: &ServerAddr, args: &BotArgs, pool: Pool) -> Result<(), CliError> {
    let key = args.key.clone().ok_or_else(|| {
        CliError::Usage(
            "`druids bot --seek` needs the bot's API key: --key or DRUIDS_BOT_KEY \
             (`druids register` makes one)"
                .into(),
        )
    })?;
    authed(Some(&key), ())?;
    let channel = connect::channel(server).await?;
    let ladder = Arc::new(Ladder {
        server: server.clone(),
        arena: ArenaServiceClient::new(channel.clone()),
        client: pb::druids_service_client::DruidsServiceClient::new(channel),
        key,
        pool,
        rated: args.rated,
        strategy: SeatStrategy::of(args),
        limit: args.games,
        reserved: AtomicU32::new(0),
        games: AtomicU64::new(0),
        failed: AtomicU32::new(0),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut slots = JoinSet::new();
    for slot in 0..args.concurrent {
        slots.spawn(Arc::clone(&ladder).slot(slot, stop_rx.clone()));
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
                    "stopping: open seeks cancelled, matches in progress played to the end \
                     (Ctrl-C again to quit now)"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_games_and_matches() {
        let m = pb::MatchFinished {
            match_id: "m1".into(),
            placements: vec![
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b1".into(),
                        name: "alpha".into(),
                    }),
                    rank: 1,
                    score: 52,
                },
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b2".into(),
                        name: "beta".into(),
                    }),
                    rank: 2,
                    score: 40,
                },
            ],
        };
        assert_eq!(
            match_line(&m),
            r#"{"match_id": "m1", "placements": [{"bot_id": "b1", "name": "alpha", "rank": 1, "score": 52}, {"bot_id": "b2", "name": "beta", "rank": 2, "score": 40}]}"#
        );
        assert_eq!(match_text(&m, "b2"), "m1: 1. alpha 52, 2. beta* 40");
        let g = pb::MatchGame {
            match_id: "m1".into(),
            game_id: "g1".into(),
            seat: 1,
            index: 0,
            options: None,
        };
        assert_eq!(
            game_line(&g, &Err("lost".into())),
            r#"{"match_id": "m1", "index": 0, "game_id": "g1", "seat": 1, "error": "lost"}"#
        );
        assert_eq!(utc_seconds(1_795_000_000_123), "2026-11-18 11:06:40");
    }
}
