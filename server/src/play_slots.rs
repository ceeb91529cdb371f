//! The count of games in play (waiting for players or running), which
//! `--max-games` limits.
//!
//! A game holds a [`PlaySlot`] while it is in play; the slot is taken when the
//! game is created, so that the check against the limit and the insert cannot
//! race, and given back (dropped) when the game ends or is abandoned.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of games in play.
#[derive(Debug, Default)]
pub struct PlaySlots(Arc<AtomicUsize>);

impl PlaySlots {
    /// A place for one more game, if fewer than `max` are in play.
    pub fn reserve(&self, max: usize) -> Option<PlaySlot> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| PlaySlot(Arc::clone(&self.0)))
    }

    /// Games in play now.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// A place among the games in play; given back when dropped.
#[derive(Debug)]
pub struct PlaySlot(Arc<AtomicUsize>);

impl Drop for PlaySlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
