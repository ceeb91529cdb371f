//! Rate limits per client: token buckets keyed by client address or seat
//! token, so that one client's flood of reads or game creations cannot slow
//! the games of everyone else. A refused call is told when to retry
//! (`google.rpc.RetryInfo`).

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dashmap::DashMap;

use crate::auth::TokenHash;
use crate::error::ServiceError;

/// The address a client's quotas and shares are kept under: an IPv4 address
/// as it is (also when it comes IPv4-mapped), an IPv6 address by its /64, the
/// block one subscriber is usually given, so that moving within its own
/// block gives a client no fresh quota.
pub fn client_address(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// What each client address holds of something the server has a fixed
/// amount of (connections, games in play): at most a share each, so that one
/// client cannot take it all.
#[derive(Debug, Default)]
pub struct Shares(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl Shares {
    /// One more for `address` (a [`client_address`]), if it holds fewer
    /// than `max`; given back when the result is dropped.
    pub fn take(&self, address: IpAddr, max: usize) -> Option<Share> {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = held.entry(address).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Share {
            address,
            shares: Arc::clone(&self.0),
        })
    }

    /// What `address` holds now.
    pub fn held(&self, address: IpAddr) -> usize {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.get(&address).copied().unwrap_or(0)
    }
}

/// One of an address's [`Shares`], given back when dropped.
#[derive(Debug)]
pub struct Share {
    address: IpAddr,
    shares: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = held.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.address);
            }
        }
    }
}

/// A token bucket: `rate` units per second, bursts of up to `rate`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bucket {
    /// Units available, in thousandths.
    milli: u64,
    /// When it was last refilled (0: never used, full).
    at_ms: u64,
}

impl Bucket {
    /// Takes `cost` units at `now_ms`; otherwise how long until they are there.
    pub fn take(&mut self, rate: u32, cost: u32, now_ms: u64) -> Result<(), Duration> {
        let cap = rate as u64 * 1000;
        let want = (cost as u64 * 1000).min(cap);
        let refill = now_ms
            .saturating_sub(self.at_ms)
            .saturating_mul(rate as u64);
        self.milli = if self.at_ms == 0 {
            cap
        } else {
            (self.milli + refill).min(cap)
        };
        self.at_ms = now_ms;
        if self.milli >= want {
            self.milli -= want;
            Ok(())
        } else {
            // `rate` units a second is `rate` thousandths a millisecond.
            let wait_ms = (want - self.milli).div_ceil(rate as u64);
            Err(Duration::from_millis(wait_ms.max(1)))
        }
    }

    /// Whether the bucket has been full for a while (safe to forget).
    fn idle(&self, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.at_ms) > 60_000
    }
}

/// Buckets by key, created on first use and forgotten when idle.
struct Buckets<K: Eq + Hash> {
    by_key: DashMap<K, Bucket>,
}

impl<K: Eq + Hash + Clone> Buckets<K> {
    fn new() -> Self {
        Buckets {
            by_key: DashMap::new(),
        }
    }

    fn take(&self, key: &K, rate: u32, cost: u32, now_ms: u64) -> Result<(), Duration> {
        if rate == 0 {
            return Ok(());
        }
        self.by_key
            .entry(key.clone())
            .or_default()
            .take(rate, cost, now_ms)
    }

    fn forget_idle(&self, now_ms: u64) {
        self.by_key.retain(|_, b| !b.idle(now_ms));
    }
}

/// What a call costs against the read budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// GetState, GetLegalActions, ExportReplay, opening a stream.
    One,
    /// ListGames: it looks at every game.
    List,
}

impl Read {
    fn cost(self) -> u32 {
        match self {
            Read::One => 1,
            Read::List => 10,
        }
    }
}

/// The read budgets of client addresses, for calls of no seat (the arena's
/// public reads): the service's own quotas, and its clock.
#[derive(Clone)]
pub struct AddressReads {
    quotas: Arc<Quotas>,
    clock: Arc<dyn crate::clock::Clock>,
}

impl AddressReads {
    /// The budgets of `quotas`, telling time by `clock`.
    pub fn new(quotas: Arc<Quotas>, clock: Arc<dyn crate::clock::Clock>) -> AddressReads {
        AddressReads { quotas, clock }
    }

    /// Charges `read` to the address `peer` (none: an in-process caller).
    pub fn charge(&self, read: Read, peer: Option<IpAddr>) -> Result<(), ServiceError> {
        self.quotas.read(read, peer, None, self.clock.now_ms())
    }
}

/// Every rate limit of the server but SubmitAction's (which belongs to the seat,
/// in its room).
pub struct Quotas {
    setups_per_second: u32,
    reads_per_second: u32,
    anonymous_reads_per_second: u32,
    setups: Buckets<IpAddr>,
    reads_by_address: Buckets<IpAddr>,
    reads_by_token: Buckets<TokenHash>,
}

impl Quotas {
    /// Quotas with these rates (0: no limit): setups per address, reads per
    /// seat token, reads without a token per address.
    pub fn new(
        setups_per_second: u32,
        reads_per_second: u32,
        anonymous_reads_per_second: u32,
    ) -> Quotas {
        Quotas {
            setups_per_second,
            reads_per_second,
            anonymous_reads_per_second,
            setups: Buckets::new(),
            reads_by_address: Buckets::new(),
            reads_by_token: Buckets::new(),
        }
    }

    /// Charges a CreateGame or JoinGame from `peer`.
    pub fn setup(&self, peer: Option<IpAddr>, now_ms: u64) -> Result<(), ServiceError> {
        let Some(peer) = peer else { return Ok(()) };
        let rate = self.setups_per_second;
        self.setups
            .take(&peer, rate, 1, now_ms)
            .map_err(|retry_after| ServiceError::RateLimited {
                what: format!("at most {rate} CreateGame/JoinGame calls per second per address"),
                retry_after,
            })
    }

    /// Charges a read: to the seat token's budget when there is a token, else
    /// to the client address's (spectators). Seats are limited by their token,
    /// so that many bots behind one address (a tournament runner) are not
    /// throttled together.
    pub fn read(
        &self,
        read: Read,
        peer: Option<IpAddr>,
        token: Option<&TokenHash>,
        now_ms: u64,
    ) -> Result<(), ServiceError> {
        let (result, rate, per) = match (token, peer) {
            (Some(token), _) => {
                let rate = self.reads_per_second;
                let r = self.reads_by_token.take(token, rate, read.cost(), now_ms);
                (r, rate, "seat token")
            }
            (None, Some(peer)) => {
                let rate = self.anonymous_reads_per_second;
                let r = self.reads_by_address.take(&peer, rate, read.cost(), now_ms);
                (r, rate, "address (calls without a seat's token, and lists)")
            }
            (None, None) => return Ok(()),
        };
        result.map_err(|retry_after| ServiceError::RateLimited {
            what: format!("at most {rate} reads per second per {per} (ListGames counts 10)"),
            retry_after,
        })
    }

    /// Forgets the buckets of clients gone quiet, so memory stays bounded.
    pub fn forget_idle(&self, now_ms: u64) {
        self.setups.forget_idle(now_ms);
        self.reads_by_address.forget_idle(now_ms);
        self.reads_by_token.forget_idle(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_says_when() {
        let mut b = Bucket::default();
        for _ in 0..10 {
            b.take(10, 1, 1_000).unwrap();
        }
        assert_eq!(b.take(10, 1, 1_000), Err(Duration::from_millis(100)));
        b.take(10, 1, 1_100).unwrap();
        // A cost above the burst is capped at the burst.
        let mut b = Bucket::default();
        b.take(5, 10, 1_000).unwrap();
        assert!(b.take(5, 1, 1_000).is_err());
    }

    #[test]
    fn reads_are_limited_per_token_and_per_address() {
        let q = Quotas::new(0, 2, 3);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t = TokenHash::of("t");
        q.read(Read::One, Some(a), Some(&t), 1).unwrap();
        q.read(Read::One, Some(a), Some(&t), 1).unwrap();
        // The token is spent, whatever the address.
        assert!(q.read(Read::One, Some(b), Some(&t), 1).is_err());
        // Another token from the same address has its own budget.
        q.read(Read::One, Some(a), Some(&TokenHash::of("u")), 1)
            .unwrap();
        // Spectators are limited per address.
        q.read(Read::One, Some(b), None, 1).unwrap();
        assert!(matches!(
            q.read(Read::List, Some(b), None, 1),
            Err(ServiceError::RateLimited { .. })
        ));
        // Setups are unlimited at rate 0.
        for _ in 0..100 {
            q.setup(Some(a), 1).unwrap();
        }
    }

    #[test]
    fn an_ipv6_client_counts_by_its_64_block() {
        let key = |s: &str| client_address(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }
}
