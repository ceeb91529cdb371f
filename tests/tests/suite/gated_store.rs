//! A real store with one call that waits at a gate the test opens: what a
//! test checks is the order of events around that call, never how long
//! anything took. Or a store that takes no write after a given one, as for a
//! node killed right after making it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::Store;
use druids_store::{
    Accounts, ActionRecord, BotRecord, ChallengeRecord, EndedQuery, Epoch, EventLog, EventLogs,
    GameRecord, Games, Lifecycle, MatchRecord, Matches, PlacementRecord, RequestRecord, Requests,
    StoreError, StoredGame, StoredMatch, TokenHash, TournamentRecord, Tournaments,
};
use prost::Message;

/// A deadlock guard, never a measure: each wait ends as soon as its
/// condition holds.
pub(crate) const GUARD: Duration = Duration::from_secs(90);

/// The gated calls waiting and done, and how many may pass.
#[derive(Default)]
pub(crate) struct Counts {
    pub(crate) waiting: usize,
    pub(crate) done: usize,
    permits: usize,
    open: bool,
}

/// Where gated calls wait until the test lets them through.
#[derive(Default)]
pub(crate) struct Gate {
    counts: Mutex<Counts>,
    changed: Condvar,
}

impl Gate {
    pub(crate) fn counts<T>(&self, read: impl FnOnce(&Counts) -> T) -> T {
        read(&self.counts.lock().unwrap())
    }

    fn update(&self, change: impl FnOnce(&mut Counts)) {
        change(&mut self.counts.lock().unwrap());
        self.changed.notify_all();
    }

    /// Lets `n` more calls through.
    pub(crate) fn release(&self, n: usize) {
        self.update(|c| c.permits += n);
    }

    /// Lets every call through from now on (also when a test fails, so
    /// the server it stops is not stuck).
    pub(crate) fn open(&self) {
        self.update(|c| c.open = true);
    }

    /// Waits (off the async workers) until the counts satisfy `cond`.
    pub(crate) async fn until(self: &Arc<Self>, what: &str, cond: fn(&Counts) -> bool) {
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

/// Opens the gate when dropped: a failing test does not leave a call
/// waiting forever.
pub(crate) struct OpenOnDrop(pub(crate) Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// The call of a [`GatedStore`] that waits at its gate.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gated {
    CreateGame,
    AppendAction,
    /// A bot's log told a game's end.
    AppendGameEndTold,
    /// A match's result recorded.
    FinishMatch,
    /// A pending challenge stored (new, or with an acceptance more).
    SaveChallenge,
    /// A challenge forgotten.
    RemoveChallenge,
    /// A tournament stored as created, or an entry in its log.
    TournamentEntry,
    /// A tournament's end recorded.
    FinishTournament,
    /// A bot registered.
    RegisterBot,
    /// No wait: once a match's game is recorded as its, every write is
    /// refused, as for a node killed before telling its bots of it.
    WritesAfterMatchGame,
    /// No wait: once a match's result is stored, every write is refused,
    /// as for a node killed right after storing it.
    WritesAfterMatchEnd,
    /// No wait: once a bot's log holds a `game_finished`, every write is
    /// refused, as for a node killed right after telling one bot.
    WritesAfterGameEndTold,
}

/// A real store whose `gated` call passes the [`Gate`] first, or, for a
/// `Writes…` one, after which it takes no write.
pub(crate) struct GatedStore<S> {
    inner: S,
    gate: Arc<Gate>,
    gated: Gated,
    /// Set once a `Writes…` gate refuses writes (the gate's `done` counts
    /// it, for the test to wait on).
    dark: AtomicBool,
}

impl<S> GatedStore<S> {
    pub(crate) fn new(inner: S, gate: Arc<Gate>, gated: Gated) -> Self {
        GatedStore {
            inner,
            gate,
            gated,
            dark: AtomicBool::new(false),
        }
    }

    /// A write, refused once the store is dark.
    fn write<T>(&self, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
        if self.dark.load(Ordering::SeqCst) {
            return Err(StoreError::Database {
                op: "writing",
                source: Arc::new(std::io::Error::other("the node stopped")),
            });
        }
        f()
    }

    /// Refuses every write from now on if `after` is the gated one.
    fn darken_after(&self, after: Gated) {
        if self.gated == after && !self.dark.swap(true, Ordering::SeqCst) {
            self.gate.update(|c| c.done += 1);
        }
    }

    /// `call` through the gate if it is the gated one.
    fn through<T>(&self, call: Gated, f: impl FnOnce() -> T) -> T {
        if call != self.gated {
            return f();
        }
        self.gate.pass();
        let done = f();
        self.gate.update(|c| c.done += 1);
        done
    }
}

impl<S: Store> Games for GatedStore<S> {
    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        self.write(|| self.through(Gated::CreateGame, || self.inner.create_game(game)))
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
        self.write(|| {
            self.inner
                .claim_seat(game_id, seat, name, token, request, epoch)
        })
    }
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        self.write(|| {
            self.through(Gated::AppendAction, || {
                self.inner.append_action(game_id, action)
            })
        })
    }
    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|| self.inner.finish(game_id, version, outcome, at_ms))
    }
    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        self.write(|| self.inner.abandon(game_id, reason, at_ms))
    }
}

impl<S: Store> Lifecycle for GatedStore<S> {
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
        self.write(|| self.inner.delete_ended_before(before_ms, limit))
    }
}

impl<S: Store> Requests for GatedStore<S> {
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

impl<S: Store> Accounts for GatedStore<S> {
    fn register_bot(&self, bot: &BotRecord) -> Result<bool, StoreError> {
        self.write(|| self.through(Gated::RegisterBot, || self.inner.register_bot(bot)))
    }
    fn set_bot_key(&self, bot_id: &str, key_hash: &TokenHash) -> Result<(), StoreError> {
        self.write(|| self.inner.set_bot_key(bot_id, key_hash))
    }
    fn revoke_bot(&self, bot_id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.write(|| self.inner.revoke_bot(bot_id, at_ms))
    }
    fn bots(&self) -> Result<Vec<BotRecord>, StoreError> {
        self.inner.bots()
    }
}

impl<S: Store> Matches for GatedStore<S> {
    fn create_match(&self, record: &MatchRecord) -> Result<(), StoreError> {
        self.write(|| self.inner.create_match(record))
    }
    fn add_match_game(&self, match_id: &str, index: u32, game_id: &str) -> Result<(), StoreError> {
        self.write(|| self.inner.add_match_game(match_id, index, game_id))?;
        self.darken_after(Gated::WritesAfterMatchGame);
        Ok(())
    }
    fn finish_match(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(|| {
            self.through(Gated::FinishMatch, || {
                self.inner.finish_match(match_id, placements, at_ms)
            })
        })?;
        self.darken_after(Gated::WritesAfterMatchEnd);
        Ok(())
    }
    fn matches(&self) -> Result<Vec<StoredMatch>, StoreError> {
        self.inner.matches()
    }
    fn save_challenge(&self, challenge: &ChallengeRecord) -> Result<(), StoreError> {
        self.write(|| {
            self.through(Gated::SaveChallenge, || {
                self.inner.save_challenge(challenge)
            })
        })
    }
    fn remove_challenge(&self, id: &str) -> Result<(), StoreError> {
        self.write(|| self.through(Gated::RemoveChallenge, || self.inner.remove_challenge(id)))
    }
    fn challenges(&self) -> Result<Vec<ChallengeRecord>, StoreError> {
        self.inner.challenges()
    }
}

impl<S: Store> Tournaments for GatedStore<S> {
    fn create_tournament(&self, t: &TournamentRecord) -> Result<(), StoreError> {
        self.write(|| self.through(Gated::TournamentEntry, || self.inner.create_tournament(t)))
    }
    fn finish_tournament(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.write(|| {
            self.through(Gated::FinishTournament, || {
                self.inner.finish_tournament(id, at_ms)
            })
        })
    }
    fn tournaments(&self) -> Result<Vec<TournamentRecord>, StoreError> {
        self.inner.tournaments()
    }
}

impl<S: Store> EventLogs for GatedStore<S> {
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError> {
        let game_end = log == EventLog::Bot && {
            let told = pb::BotEvent::decode(event).map(|e| e.event);
            matches!(told, Ok(Some(pb::bot_event::Event::GameFinished(_))))
        };
        let append = || self.inner.append_event(log, owner, seq, event);
        let entry = log == EventLog::Tournament && {
            let told = pb::TournamentEvent::decode(event).map(|e| e.event);
            matches!(
                told,
                Ok(Some(pb::tournament_event::Event::EntrantJoined(_)))
            )
        };
        if entry {
            self.write(|| self.through(Gated::TournamentEntry, append))?;
        } else if game_end {
            self.write(|| self.through(Gated::AppendGameEndTold, append))?;
            self.darken_after(Gated::WritesAfterGameEndTold);
        } else {
            self.write(append)?;
        }
        Ok(())
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

impl<S: Store> Store for GatedStore<S> {
    /// Its gated calls block until the test opens the gate: the server
    /// makes its calls off the async workers, as a durable store's, so
    /// that a call waiting there (or on what it records) holds no worker.
    fn is_durable(&self) -> bool {
        true
    }
}
