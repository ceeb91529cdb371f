//! What the seek slots of one ladder and its event follower share: the
//! connection and key, the strategy, the match limit, and the game ids
//! claimed so far (a game named by both a seek and the event log is played
//! once).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use druids_contract::pb;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::arena::client::Arena;
use crate::arena::ladder::lines::{game_line, match_line};
use crate::arena::ratings::match_text;
use crate::args::Pool;
use crate::connect::{self, ServerAddr};
use crate::output::outln;
use crate::seat::strategy::SeatStrategy;

/// What the slots of one ladder (and its event follower) share.
pub struct Ladder {
    pub(super) server: ServerAddr,
    pub(super) arena: Arena,
    pub(super) client: connect::Client,
    pub(super) key: String,
    /// The pool of `--seek` (None: `--events` only).
    pub(super) pool: Option<Pool>,
    pub(super) rated: bool,
    pub(super) strategy: SeatStrategy,
    /// At most this many matches (None: no limit).
    pub(super) limit: Option<u32>,
    /// Matches started or being sought (a seek reserves one).
    pub(super) reserved: AtomicU32,
    /// Games begun, for distinct seeds.
    pub(super) games: AtomicU64,
    /// Games that failed (reported on stderr and stdout).
    pub(super) failed: AtomicU32,
    /// Every game id started, by a seek or by the event log: none twice.
    pub(super) claimed: Mutex<HashSet<String>>,
    /// The matches formed by this process's seeks (their ends are printed by
    /// the seek, not by the event log).
    pub(super) sought: Mutex<HashSet<String>>,
    /// `--accept-challenges`.
    pub(super) accept_challenges: bool,
}

/// Resolves once `stop` says true (never when its sender is gone).
pub(super) async fn stopped(stop: &mut watch::Receiver<bool>) {
    loop {
        if *stop.borrow_and_update() {
            return;
        }
        if stop.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Ladder {
    /// Reserves one match of the limit; false when the limit is reached.
    pub(super) fn reserve(&self) -> bool {
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
    pub(super) fn release(&self) {
        if self.limit.is_some() {
            self.reserved.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// One slot: seek, play the match, seek again, until the limit or a stop.
    pub(super) fn sought_match(&self, match_id: &str) {
        let mut sought = self.sought.lock().expect("no panics while locked");
        sought.insert(match_id.to_owned());
    }

    /// Claims a game: true the first time its id is given.
    pub(super) fn claim(&self, game_id: &str) -> bool {
        let mut claimed = self.claimed.lock().expect("no panics while locked");
        claimed.insert(game_id.to_owned())
    }

    /// Starts playing a game of a match, unless it was started already (by a
    /// seek or by the event log).
    pub(super) fn start_game(
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
    pub(super) fn finished(&self, slot: impl std::fmt::Display, m: &pb::MatchFinished) {
        eprintln!("[{slot}] match over: {}", match_text(m, ""));
        if let Err(e) = outln!("{}", match_line(m)) {
            eprintln!("cannot write the match's line: {e}");
        }
    }

    /// Follows match `match_id` on the bot's event log (StreamBotEvents,
    /// from its start) after its Seek stream broke: plays its games not yet
    /// `started` and returns its end, or None if the log cannot be read.
    /// Plays one game of a match and prints its line.
    pub(super) async fn play(&self, g: pb::MatchGame) {
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
