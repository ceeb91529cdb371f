//! What the arena decides under its lock and tells after letting it go.
//!
//! The arena's round ends games and matches under the lock every arena call
//! waits on, and each end is told to every bot of it (its event log, a store
//! write each, and its Seek stream): a match of four bots and four games is
//! 24 writes. Those writes wait here instead, in the order they were decided,
//! and the thread that decided them stores them once the lock is let go
//! ([`StateGuard`]). One thread stores at a time, in that order, so a
//! bot's log reads as the arena decided (a match's end before the start of
//! the match it made room for), and a thread returns only once what it
//! decided is stored: a client that reads a log after its call sees what the
//! call told.
//!
//! A write that must succeed before the call goes on (a challenge received,
//! a tournament entry) or that runs without the lock beside others (a new
//! match's start, [`super::pass`]) is stored at once, after what waits here
//! ([`super::Arena::tell_now`]), so it never overtakes it.

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard};

use druids_contract::pb;

use super::bots::BotNo;
use super::{Arena, SeekSender, State};
use crate::store::StoreError;

/// A write decided and not stored yet: mostly an event for a log.
pub(super) enum Notice {
    /// For bot `bot`'s log, and then its Seek stream if it has one open for
    /// the match.
    Bot {
        bot: BotNo,
        at_ms: u64,
        event: pb::bot_event::Event,
        seek: Option<(SeekSender, pb::seek_event::Event)>,
    },
    /// For tournament `id`'s log.
    Tournament {
        id: String,
        at_ms: u64,
        event: pb::tournament_event::Event,
    },
    /// Challenge `id` ended without a match: the store forgets it.
    ChallengeOver { id: String },
}

/// The notices waiting, and whether one taken from them is being stored.
#[derive(Default)]
struct Waiting {
    notices: VecDeque<Notice>,
    in_flight: bool,
    /// Notices ever pushed.
    pushed: u64,
}

/// The arena's notices in the order they were decided.
#[derive(Default)]
pub(super) struct Outbox {
    waiting: Mutex<Waiting>,
    /// Held by the one thread storing notices.
    storing: Mutex<()>,
}

impl Outbox {
    /// Queues `notice` behind every notice decided before it.
    pub(super) fn push(&self, notice: Notice) {
        let mut waiting = self.waiting();
        waiting.notices.push_back(notice);
        waiting.pushed += 1;
    }

    /// How many notices were ever pushed: a thread that pushed none while
    /// it held the arena's lock has nothing to wait for.
    pub(super) fn pushed(&self) -> u64 {
        self.waiting().pushed
    }

    /// Stores every waiting notice with `store`, in order; returns once none
    /// waits and none is being stored (by this thread or another).
    pub(super) fn deliver(&self, mut store: impl FnMut(Notice)) {
        {
            let waiting = self.waiting();
            if waiting.notices.is_empty() && !waiting.in_flight {
                return;
            }
        }
        let _storing = self.storing.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let next = {
                let mut waiting = self.waiting();
                let next = waiting.notices.pop_front();
                waiting.in_flight = next.is_some();
                next
            };
            match next {
                Some(notice) => store(notice),
                None => return,
            }
        }
    }

    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Arena {
    /// The arena's state, locked until the guard is dropped; then what was
    /// decided under it ([`Arena::tell_later`]) is stored.
    pub(super) fn state(&self) -> StateGuard<'_> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        StateGuard {
            arena: self,
            pushed_before: self.outbox.pushed(),
            state: Some(state),
        }
    }

    /// Queues `event` for bot `bot`'s log and then its Seek stream `seek`,
    /// behind everything decided before it; stored when the state's guard
    /// is dropped. For callers holding the state's lock (or that deliver
    /// the outbox before they return).
    pub(super) fn tell_later(
        &self,
        bot: BotNo,
        at_ms: u64,
        event: pb::bot_event::Event,
        seek: Option<(SeekSender, pb::seek_event::Event)>,
    ) {
        self.outbox.push(Notice::Bot {
            bot,
            at_ms,
            event,
            seek,
        });
    }

    /// Appends `event` to bot `bot`'s log now, after everything decided
    /// before it.
    pub(super) fn tell_now(
        &self,
        bot: BotNo,
        at_ms: u64,
        event: pb::bot_event::Event,
    ) -> Result<(), StoreError> {
        self.deliver();
        self.events.append(self.store.as_ref(), bot, at_ms, event)
    }

    /// Queues the store's forgetting of challenge `id`, which ended without
    /// a match, behind everything decided before it.
    pub(super) fn forget_later(&self, id: &str) {
        self.outbox
            .push(Notice::ChallengeOver { id: id.to_owned() });
    }

    /// Stores what waits in the outbox, in order: each event in its log
    /// (a failure is logged; the arena goes on), then a bot's on its Seek
    /// stream.
    pub(super) fn deliver(&self) {
        self.outbox.deliver(|notice| match notice {
            Notice::Bot {
                bot,
                at_ms,
                event,
                seek,
            } => {
                if let Err(e) = self.events.append(self.store.as_ref(), bot, at_ms, event) {
                    tracing::warn!("cannot record a bot event: {e}");
                }
                if let Some((tx, event)) = seek {
                    let _ = tx.try_send(Ok(pb::SeekEvent { event: Some(event) }));
                }
            }
            Notice::Tournament { id, at_ms, event } => {
                if let Err(e) =
                    self.tournament_events
                        .append(self.store.as_ref(), &id, at_ms, event)
                {
                    tracing::warn!(tournament_id = %id, "cannot record a tournament event: {e}");
                }
            }
            Notice::ChallengeOver { id } => {
                if let Err(e) = self.store.remove_challenge(&id) {
                    tracing::warn!(challenge_id = %id, "cannot forget a challenge: {e}");
                }
            }
        });
    }
}

/// The arena's state, locked. Dropping it lets the lock go, then stores
/// what was decided under it (its [`Outbox`]): the store's writes of a round's
/// tellings hold no lock, and a call that decided nothing to tell does not
/// wait for them.
pub(super) struct StateGuard<'a> {
    arena: &'a Arena,
    /// The outbox's count of notices when the lock was taken.
    pushed_before: u64,
    /// Always `Some` until dropped.
    state: Option<MutexGuard<'a, State>>,
}

impl Deref for StateGuard<'_> {
    type Target = State;

    fn deref(&self) -> &State {
        self.state.as_ref().expect("held until dropped")
    }
}

impl DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.state.as_mut().expect("held until dropped")
    }
}

impl StateGuard<'_> {
    /// Lets the lock go until `busy` is false of the state: another call is
    /// recording something this call is about, without the lock, and wakes
    /// the waiters once it is done ([`Arena::done_recording`]).
    pub(super) fn wait_while(&mut self, mut busy: impl FnMut(&mut State) -> bool) {
        let state = self.state.take().expect("held until dropped");
        let state = (self.arena.recorded)
            .wait_while(state, |st| busy(st))
            .unwrap_or_else(|p| p.into_inner());
        self.state = Some(state);
    }
}

impl Arena {
    /// Wakes the calls waiting for a recording to end
    /// ([`StateGuard::wait_while`]); called with the state's lock held
    /// after the state says it ended, so no waiter misses it.
    pub(super) fn done_recording(&self) {
        self.recorded.notify_all();
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        let told = self.arena.outbox.pushed() != self.pushed_before;
        drop(self.state.take());
        if told && !std::thread::panicking() {
            self.arena.deliver();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(id: &str) -> Notice {
        Notice::Tournament {
            id: id.to_owned(),
            at_ms: 0,
            event: pb::tournament_event::Event::Cancelled(pb::TournamentCancelled::default()),
        }
    }

    fn id(n: &Notice) -> String {
        match n {
            Notice::Tournament { id, .. } => id.clone(),
            Notice::Bot { .. } | Notice::ChallengeOver { .. } => unreachable!(),
        }
    }

    #[test]
    fn notices_are_stored_in_the_order_they_were_pushed() {
        let outbox = Outbox::default();
        outbox.push(notice("a"));
        outbox.push(notice("b"));
        let mut stored = Vec::new();
        outbox.deliver(|n| stored.push(id(&n)));
        assert_eq!(stored, ["a", "b"]);
        outbox.deliver(|n| stored.push(id(&n)));
        assert_eq!(stored.len(), 2, "nothing is stored twice");
    }

    #[test]
    fn a_notice_pushed_while_storing_is_stored_by_the_same_delivery() {
        let outbox = Outbox::default();
        outbox.push(notice("a"));
        let mut stored = Vec::new();
        outbox.deliver(|n| {
            if id(&n) == "a" {
                outbox.push(notice("b"));
            }
            stored.push(id(&n));
        });
        assert_eq!(stored, ["a", "b"]);
    }

    #[test]
    fn a_delivery_waits_for_the_notice_another_thread_is_storing() {
        // The waiter may reach the outbox after the store ended, which
        // proves nothing; many tries make a waiter that came too early
        // (and returned before "a" was stored) all but certain.
        for _ in 0..200 {
            let outbox = Outbox::default();
            outbox.push(notice("a"));
            let (taken_tx, taken_rx) = std::sync::mpsc::channel();
            let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
            let stored = Mutex::new(Vec::new());
            let (outbox, stored) = (&outbox, &stored);
            std::thread::scope(|s| {
                s.spawn(move || {
                    outbox.deliver(|n| {
                        taken_tx.send(()).unwrap();
                        release_rx.recv().unwrap();
                        stored.lock().unwrap().push(id(&n));
                    })
                });
                // "a" is taken and being stored: none waits, yet a delivery
                // must not return before "a" is stored.
                taken_rx.recv().unwrap();
                let waiter = s.spawn(move || {
                    outbox.deliver(|_| unreachable!("only the first thread stores"));
                    stored.lock().unwrap().clone()
                });
                release_tx.send(()).unwrap();
                assert_eq!(waiter.join().unwrap(), ["a"]);
            });
        }
    }
}
