//! The CPU that bots run by the server share: practice games' bots now, the
//! arena's house bots later. One bounded budget, off the async workers, so
//! that however many such bots play, they never take the cores the server's
//! own calls run on, and one address cannot take the whole budget.
//!
//! * A fixed number of threads of their own (`--bot-threads`) take every
//!   bot's decisions, one decision at a time each, in the order they were
//!   asked for (first in, first out: a game's bots wait their turn behind
//!   other games' and never starve them). Nothing else runs on them, and
//!   they never run on Tokio's workers or its blocking pool: a search of
//!   any length slows only the bots.
//! * Each game of server-run bots holds a [`Lease`] for as long as its bots
//!   play. Leases of one client address are at most
//!   `--practice-games-per-address`, and those of all addresses at most
//!   `--max-practice-games`; beyond, RESOURCE_EXHAUSTED (`LIMIT_REACHED`).
//!   The server's own bots ([`Owner::House`]) have no per-address quota and
//!   do not count against the practice games.
//!
//! How to use it: `let lease = service.bot_cpu().lease(owner)?;` when the
//! game is made (keep it with the bots, e.g. in an `Arc`), then
//! `lease.think(move || bot.choose(..)).await` for each decision.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, mpsc};

use crate::error::ServiceError;

/// Whose bots a lease is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// Bots a client at this address asked for (a practice game).
    Address(IpAddr),
    /// A client whose address is unknown (in-process callers): one owner.
    Unknown,
    /// The server's own bots (the arena's house bots).
    House,
    /// A practice game rebuilt from the store (after a restart, or taken
    /// over from another node), whose person's address was not kept: it was
    /// admitted when it was made, so it is never refused now, but it counts
    /// among the practice games in play.
    Resumed,
}

/// The budget's size (the flags of [`crate::config::Limits`]).
#[derive(Clone, Copy, Debug)]
pub struct BotCpuLimits {
    /// Threads taking bots' decisions.
    pub threads: usize,
    /// Leases one address may hold at once.
    pub per_address: usize,
    /// Leases of every address together (house bots aside).
    pub total: usize,
}

/// One decision's work, and where its answer goes.
type Job = Box<dyn FnOnce() + Send>;

/// The shared budget: its threads' queue, and the leases held.
pub struct BotCpu {
    queue: Mutex<mpsc::Sender<Job>>,
    held: Mutex<Held>,
    limits: BotCpuLimits,
}

#[derive(Default)]
struct Held {
    by_owner: HashMap<Owner, usize>,
    /// Leases of clients (every owner but the house).
    clients: usize,
    /// The games whose leases say which game they are ([`Lease::bind`]):
    /// their bots play in this process.
    games: HashSet<String>,
}

impl BotCpu {
    /// A budget of `limits.threads` threads (at least one), started now; they
    /// end when the budget is dropped and its queue is empty.
    pub fn new(limits: BotCpuLimits) -> Arc<BotCpu> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for n in 0..limits.threads.max(1) {
            let rx = Arc::clone(&rx);
            std::thread::Builder::new()
                .name(format!("druids-bot-cpu-{n}"))
                .spawn(move || {
                    loop {
                        // The lock is held only to take the next job.
                        let job = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                })
                .expect("a thread for the bots' budget");
        }
        Arc::new(BotCpu {
            queue: Mutex::new(tx),
            held: Mutex::new(Held::default()),
            limits,
        })
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A lease for one game of `owner`'s bots, within the quotas (see the
    /// module's doc).
    pub fn lease(self: &Arc<Self>, owner: Owner) -> Result<Lease, ServiceError> {
        let mut held = self.held();
        if !matches!(owner, Owner::House | Owner::Resumed) {
            let per_address = self.limits.per_address;
            let mine = held.by_owner.get(&owner).copied().unwrap_or(0);
            if mine >= per_address {
                return Err(ServiceError::Limit(format!(
                    "at most {per_address} games with the server's bots may be in play for one address: \
                     finish or resign one first (Resign with its seat's token, or the resign button on \
                     its seat's page)"
                )));
            }
            let total = self.limits.total;
            if held.clients >= total {
                return Err(ServiceError::Limit(format!(
                    "at most {total} games with the server's bots may be in play at once"
                )));
            }
        }
        if owner != Owner::House {
            held.clients += 1;
        }
        *held.by_owner.entry(owner).or_insert(0) += 1;
        Ok(Lease {
            cpu: Arc::clone(self),
            owner,
            game: None,
        })
    }

    /// A lease for the bots of practice game `game_id`, rebuilt from the
    /// store ([`Owner::Resumed`]), unless bots of this process already play
    /// it (then none: they play on).
    pub fn resume(self: &Arc<Self>, game_id: &str) -> Option<Lease> {
        let mut lease = self.lease(Owner::Resumed).ok()?;
        lease.bind(game_id).then_some(lease)
    }

    /// Leases held by `owner` now.
    pub fn leases_of(&self, owner: Owner) -> usize {
        self.held().by_owner.get(&owner).copied().unwrap_or(0)
    }
}

/// A game's place in the bots' budget; given back when dropped.
pub struct Lease {
    cpu: Arc<BotCpu>,
    owner: Owner,
    /// The game it is for, once bound.
    game: Option<String>,
}

impl Lease {
    /// Says which game this lease's bots play, so that nothing starts a
    /// second set of bots for it in this process ([`BotCpu::resume`]);
    /// false if another lease is bound to it already.
    pub fn bind(&mut self, game_id: &str) -> bool {
        if self.game.is_some() || !self.cpu.held().games.insert(game_id.to_owned()) {
            return false;
        }
        self.game = Some(game_id.to_owned());
        true
    }

    /// Runs `decide` (a bot's decision) on the budget's threads when its turn
    /// comes; the calling task waits without holding a thread.
    pub async fn think<T: Send + 'static>(
        &self,
        decide: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The asker may have gone (its game ended): nothing to tell.
            let _ = tx.send(decide());
        });
        let sent = self
            .cpu
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(job);
        if sent.is_err() {
            return Err(ServiceError::ShuttingDown);
        }
        rx.await.map_err(|_| ServiceError::ShuttingDown)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut held = self.cpu.held();
        if let Some(n) = held.by_owner.get_mut(&self.owner) {
            *n -= 1;
            if *n == 0 {
                held.by_owner.remove(&self.owner);
            }
        }
        if self.owner != Owner::House {
            held.clients -= 1;
        }
        if let Some(game) = &self.game {
            held.games.remove(game);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    fn limits(threads: usize) -> BotCpuLimits {
        BotCpuLimits {
            threads,
            per_address: 2,
            total: 3,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn decisions_run_on_the_budget_s_threads_never_more_at_once() {
        let cpu = BotCpu::new(limits(2));
        let lease = Arc::new(cpu.lease(Owner::House).unwrap());
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..12 {
            let (lease, running, most) =
                (Arc::clone(&lease), Arc::clone(&running), Arc::clone(&most));
            tasks.push(tokio::spawn(async move {
                lease
                    .think(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        running.fetch_sub(1, Ordering::SeqCst);
                        std::thread::current().name().map(str::to_owned)
                    })
                    .await
                    .unwrap()
            }));
        }
        for t in tasks {
            let name = t.await.unwrap().unwrap();
            assert!(name.starts_with("druids-bot-cpu-"), "{name}");
        }
        assert_eq!(most.load(Ordering::SeqCst), 2, "two threads, both used");
    }

    #[test]
    fn one_address_holds_at_most_its_quota_and_all_at_most_the_total() {
        let cpu = BotCpu::new(limits(1));
        let a = Owner::Address([10, 0, 0, 1].into());
        let b = Owner::Address([10, 0, 0, 2].into());
        let first = cpu.lease(a).unwrap();
        let _second = cpu.lease(a).unwrap();
        assert!(matches!(cpu.lease(a), Err(ServiceError::Limit(_))));
        let _third = cpu.lease(b).unwrap();
        assert!(
            matches!(cpu.lease(b), Err(ServiceError::Limit(_))),
            "the total"
        );
        let _house = cpu.lease(Owner::House).unwrap();
        drop(first);
        assert_eq!(cpu.leases_of(a), 1);
        cpu.lease(b).unwrap();
    }
}
