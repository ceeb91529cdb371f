//! The count of games in play (waiting for players or running), which
//! `--max-games` limits, and each client address's share of it, which
//! `--max-games-per-address` limits (so that one client cannot fill the
//! server with games that wait forever and lock everyone else out).
//!
//! A game holds a [`PlaySlot`] while it is in play; the slot is taken when the
//! game is created, so that the check against the limits and the insert
//! cannot race, and given back (dropped) when the game ends or is abandoned.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::quota::{Share, Shares};

/// The number of games in play, in all and by the address that made them.
#[derive(Debug, Default)]
pub struct PlaySlots {
    count: Arc<AtomicUsize>,
    by_address: Shares,
}

/// Why no slot was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The server holds its most games in play.
    Server,
    /// The client's address holds its most.
    Address,
}

impl PlaySlots {
    /// A place for one more game, if fewer than `max` are in play.
    pub fn reserve(&self, max: usize) -> Option<PlaySlot> {
        self.count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| PlaySlot {
                count: Arc::clone(&self.count),
                _share: None,
            })
    }

    /// A place for one more game made by `address`, if fewer than `max` are
    /// in play and fewer than `per_address` (0: no limit) made by it.
    pub fn reserve_for(
        &self,
        max: usize,
        address: IpAddr,
        per_address: usize,
    ) -> Result<PlaySlot, Full> {
        if per_address == 0 {
            return self.reserve(max).ok_or(Full::Server);
        }
        let share = self
            .by_address
            .take(address, per_address)
            .ok_or(Full::Address)?;
        let mut slot = self.reserve(max).ok_or(Full::Server)?;
        slot._share = Some(share);
        Ok(slot)
    }

    /// Games in play now.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }
}

/// A place among the games in play; given back when dropped.
#[derive(Debug)]
pub struct PlaySlot {
    count: Arc<AtomicUsize>,
    /// The share of the address that made the game, if it is limited.
    _share: Option<Share>,
}

impl Drop for PlaySlot {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_its_share_and_gets_it_back() {
        let slots = PlaySlots::default();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let first = slots.reserve_for(3, a, 2).unwrap();
        let _second = slots.reserve_for(3, a, 2).unwrap();
        assert_eq!(slots.reserve_for(3, a, 2).unwrap_err(), Full::Address);
        let _third = slots.reserve_for(3, b, 2).unwrap();
        assert_eq!(slots.reserve_for(3, b, 2).unwrap_err(), Full::Server);
        // The refusal by the server took no share of b's.
        assert_eq!(slots.by_address.held(b), 1);
        drop(first);
        assert_eq!(slots.by_address.held(a), 1);
        let _again = slots.reserve_for(3, a, 2).unwrap();
        assert_eq!(slots.count(), 3);
        // No limit per address: only the server's.
        assert_eq!(slots.reserve_for(3, a, 0).unwrap_err(), Full::Server);
    }
}
