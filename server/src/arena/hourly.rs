//! The arena's hourly quotas (bots registered per address, challenges and
//! tournaments per bot): the times of the last hour's uses, so that a refusal
//! says exactly when the oldest use leaves the window (`RetryInfo`), and
//! only what was done counts (a refused call spends nothing).

use std::collections::VecDeque;
use std::time::Duration;

use crate::error::ServiceError;

/// An hour, ms: the window of every hourly quota.
pub const HOUR_MS: u64 = 3_600_000;

/// The uses of one quota within the last hour.
#[derive(Debug, Default)]
pub struct Hourly(VecDeque<u64>);

impl Hourly {
    /// RESOURCE_EXHAUSTED (RATE_LIMITED, with the delay until the oldest use
    /// leaves the window) if `limit` uses were made in the hour before
    /// `now_ms`; `what` words the quota. Spends nothing: see [`Hourly::spend`].
    pub fn check(
        &mut self,
        limit: u32,
        now_ms: u64,
        what: impl FnOnce() -> String,
    ) -> Result<(), ServiceError> {
        while self
            .0
            .front()
            .is_some_and(|&t| now_ms.saturating_sub(t) >= HOUR_MS)
        {
            self.0.pop_front();
        }
        if self.0.len() < limit as usize {
            return Ok(());
        }
        let oldest = self.0.front().copied().unwrap_or(now_ms);
        Err(ServiceError::RateLimited {
            what: what(),
            retry_after: Duration::from_millis((oldest + HOUR_MS).saturating_sub(now_ms).max(1)),
        })
    }

    /// Counts a use made at `now_ms`.
    pub fn spend(&mut self, now_ms: u64) {
        self.0.push_back(now_ms);
    }

    /// Takes back a use counted at `now_ms` ([`Hourly::spend`]) by a call
    /// that failed after all.
    pub fn give_back(&mut self, now_ms: u64) {
        if let Some(i) = self.0.iter().rposition(|&t| t == now_ms) {
            self.0.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_when_the_oldest_use_leaves_the_hour() {
        let mut q = Hourly::default();
        q.check(2, 1_000, String::new).unwrap();
        q.spend(1_000);
        q.spend(2_000);
        let e = q.check(2, 10_000, || "two an hour".into()).unwrap_err();
        assert!(matches!(
            e,
            ServiceError::RateLimited { retry_after, .. } if retry_after == Duration::from_millis(HOUR_MS - 9_000)
        ));
        q.check(2, 1_000 + HOUR_MS, String::new).unwrap();
    }

    #[test]
    fn a_use_given_back_counts_no_more() {
        let mut q = Hourly::default();
        q.spend(1_000);
        q.spend(2_000);
        q.give_back(2_000);
        q.check(2, 3_000, String::new).unwrap();
        q.give_back(5_000);
        q.spend(3_000);
        assert!(
            q.check(2, 4_000, String::new).is_err(),
            "nothing else given back"
        );
    }
}
