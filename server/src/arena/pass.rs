//! How the arena's round opens many matches at once (a matchmaking pass, a
//! tournament's round): the matches are formed under the arena's lock, which
//! takes their seekers out of the pool (so a seeker is placed in at most one
//! match) and counts the matches against their bots' limits; then the lock
//! is let go and the matches are recorded and their games created,
//! [`OPENING_AT_ONCE`] at a time, each game told to its bots as soon as it
//! exists; each match enters the arena's state under the lock again,
//! briefly, once it is recorded. A large pass or round (hundreds of games,
//! each a database write) so never holds the lock across I/O, and every
//! other arena call (a leaderboard, a new seek) is answered meanwhile. A
//! challenge's one match is opened the same way ([`Arena::open_alone`]).

use std::collections::HashSet;
use std::sync::Mutex;

use druids_arena::pairing::BotId;
use druids_arena::pairing::pool::Match;
use druids_contract::Kind;
use tonic::Status;

use super::bots::BotNo;
use super::matches::{GameRooms, NewMatch};
use super::outbox::StateGuard;
use super::{Arena, Running, State};
use crate::error::ServiceError;
use crate::store::StoreError;

/// Matches of one pass opened at once: enough to keep a database's commits
/// full (each opening waits on a few round trips), few enough that one pass
/// does not take the whole blocking pool.
const OPENING_AT_ONCE: usize = 16;

/// A match formed under the arena's lock (its seekers out of the pool, its
/// bots' match counts taken), not recorded yet.
pub(super) struct Formed {
    /// Its place in the arena's formation order.
    seq: u64,
    run: Running,
}

impl Formed {
    /// Its id.
    pub(super) fn id(&self) -> &str {
        &self.run.record.id
    }

    /// Its bots, in the seat order of its first game.
    pub(super) fn bots(&self) -> &[BotNo] {
        &self.run.bots
    }
}

impl Arena {
    /// Opens the matches formed ([`Arena::take_formed`], [`Arena::form`]),
    /// [`OPENING_AT_ONCE`] at a time, without the arena's lock (each takes it
    /// briefly to enter the state). Returns, once every one is open or given
    /// back, the ids of those that opened.
    pub(super) fn open_formed_matches(&self, formed: Vec<Formed>, now: u64) -> HashSet<String> {
        let opened = Mutex::new(HashSet::new());
        let queue = Mutex::new(formed.into_iter());
        let workers = OPENING_AT_ONCE.min(queue.lock().map_or(0, |q| q.len()));
        // The round runs on the blocking pool; the openings' threads see the
        // same runtime (a store may use it).
        let runtime = tokio::runtime::Handle::try_current().ok();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    let _runtime = runtime.as_ref().map(|r| r.enter());
                    // The queue's lock is held only to take the next match.
                    while let Some(next) = queue.lock().ok().and_then(|mut q| q.next()) {
                        if let Some(id) = self.open_formed(next, now)
                            && let Ok(mut opened) = opened.lock()
                        {
                            opened.insert(id);
                        }
                    }
                });
            }
        });
        opened.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the matches the pool formed this round out of the state: their
    /// seekers' streams, and their places in their bots' match counts.
    pub(super) fn take_formed(
        &self,
        st: &mut State,
        formed: Vec<Match<Kind>>,
        now: u64,
    ) -> Vec<Formed> {
        formed
            .into_iter()
            .map(|formed| {
                let bots: Vec<_> = formed.seats.iter().map(|(_, b)| b.0).collect();
                let streams = formed
                    .seats
                    .iter()
                    .map(|(id, _)| st.seeks.remove(id).map(|s| s.tx))
                    .collect();
                let new = NewMatch {
                    id: None,
                    kind: formed.kind,
                    rated: formed.rated,
                    bots,
                    streams,
                    tournament: None,
                    clock: self.default_clock(),
                };
                self.form(st, new, now)
            })
            .collect()
    }

    /// Forms match `new`: counts it against its bots' limits and gives it
    /// its place in the formation order; recorded by
    /// [`Arena::open_formed_matches`].
    pub(super) fn form(&self, st: &mut State, new: NewMatch, now: u64) -> Formed {
        for &b in &new.bots {
            *st.playing.entry(b).or_default() += 1;
        }
        let run = self.new_running(st, new, now);
        // Counted against the pair's rated matches of the day at once, under
        // the lock that decided it is rated: two challenges of one pair
        // accepted together cannot both pass the check before either counts.
        if run.record.rated {
            let at = run.record.created_unix_ms;
            st.ratings.started(run.pool(), &run.bots, at);
        }
        let seq = st.next_match;
        st.next_match += 1;
        Formed { seq, run }
    }

    /// Records and starts one formed match without the lock, then puts it
    /// into play (its id); if it cannot be recorded, its seekers are told
    /// (`UNAVAILABLE`, their clients seek again) and its bots' counts given
    /// back.
    fn open_formed(&self, formed: Formed, now: u64) -> Option<String> {
        let Formed { seq, mut run } = formed;
        let opened = self.open_match(&mut run, now);
        let mut st = self.state();
        match opened {
            Ok(()) => {
                let id = run.record.id.clone();
                self.enter_match(&mut st, seq, run);
                Some(id)
            }
            Err(e) => {
                tracing::warn!("cannot record a match: {e}");
                let status: Status = ServiceError::Storage(e).into();
                for tx in run.streams.iter().flatten() {
                    let _ = tx.try_send(Err(status.clone()));
                }
                self.give_back(&mut st, &run);
                None
            }
        }
    }

    /// Opens one formed match (a challenge's) as [`Arena::open_formed`]
    /// does, for a caller holding the lock (`st`): lets it go while the
    /// match is recorded, takes it again to put the match into play (its
    /// games started, [`Arena::progress`]) and hands it back. If the match
    /// cannot be recorded, its bots' counts are given back.
    pub(super) fn open_alone<'a>(
        &'a self,
        st: StateGuard<'a>,
        formed: Formed,
        now: u64,
    ) -> (StateGuard<'a>, Result<String, StoreError>) {
        let Formed { seq, mut run } = formed;
        drop(st);
        let opened = self.open_match(&mut run, now);
        let mut st = self.state();
        let id = run.record.id.clone();
        match opened {
            Ok(()) => {
                self.enter_match(&mut st, seq, run);
                // Its games have just started: the round finishes it.
                self.progress(&mut st, seq, now, &mut GameRooms::default());
                (st, Ok(id))
            }
            Err(e) => {
                self.give_back(&mut st, &run);
                (st, Err(e))
            }
        }
    }

    /// Gives back the places in their bots' match counts of a match that
    /// could not be opened.
    fn give_back(&self, st: &mut State, run: &Running) {
        if run.record.rated {
            let at = run.record.created_unix_ms;
            st.ratings.not_started(run.pool(), &run.bots, at);
        }
        for &b in &run.bots {
            let playing = st.playing.entry(b).or_default();
            *playing = playing.saturating_sub(1);
            let playing = *playing;
            st.pool
                .set_load(BotId(b), playing, self.settings.bot_max_games);
        }
    }
}
