//! Resuming a numbered event stream of the arena (a tournament's, a bot's):
//! from the last seq seen + 1, after the pause the server asks for (for a
//! while), else after a growing pause, a few times in a row.

use std::time::Duration;

use tonic::Status;

use crate::retry::{Failures, asked_delay, transient};

/// Reconnections of a dropped event stream in a row before giving up,
/// besides those the server asks for (`retry::PATIENCE`).
const RECONNECTS: u32 = 8;

/// Resuming a numbered event stream (a tournament's or a bot's): where to
/// start again, and how long to wait before the next try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resume {
    /// The seq to ask for next (the last seen + 1).
    pub next: u64,
    /// Failures in a row since the last event.
    pub failures: Failures,
}

impl Resume {
    /// From `from_seq` on.
    pub fn from(from_seq: u64) -> Resume {
        Resume {
            next: from_seq,
            failures: Failures::new(RECONNECTS),
        }
    }

    /// Event `seq` was seen.
    pub fn seen(&mut self, seq: u64) {
        self.next = seq + 1;
        self.failures.cleared();
    }

    /// A dropped stream that ended with `ended` (None: it ended without an
    /// error): the pause before reconnecting, or None to give up (another
    /// error, or too many failures in a row).
    pub fn retry(&mut self, ended: Option<&Status>) -> Option<Duration> {
        if !ended.is_none_or(transient) {
            return None;
        }
        self.failures.next(ended.and_then(asked_delay), |n| {
            Duration::from_millis(250) * 2u32.pow(n - 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn dropped_streams_resume_after_the_last_seq_seen() {
        let status = |code| Status::new(code, "x");
        let mut r = Resume::from(0);
        r.seen(7);
        assert_eq!(r.next, 8);
        assert_eq!(
            r.retry(Some(&status(Code::Unavailable))),
            Some(Duration::from_millis(250))
        );
        assert_eq!(r.retry(None), Some(Duration::from_millis(500)));
        r.seen(8);
        assert_eq!((r.next, r.failures.unasked()), (9, 0));
        assert_eq!(r.retry(Some(&status(Code::NotFound))), None);
        let mut tries = 0;
        while r.retry(Some(&status(Code::Unavailable))).is_some() {
            tries += 1;
        }
        assert_eq!(tries, RECONNECTS);
    }
}
