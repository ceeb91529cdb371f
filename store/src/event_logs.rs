//! The arena's numbered event logs ([`EventLogs`]): each bot's
//! (`StreamBotEvents`) and each tournament's (`StreamTournamentEvents`),
//! kept so that a client that reconnects resumes from a seq. Both are rows of
//! `(owner, seq, event)` and differ only in their names ([`EventLog`]), so
//! each store writes and reads both with the same code.

use crate::StoreError;

/// Which of the arena's event logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventLog {
    /// A bot's log (owner: a bot id), of encoded `pb::BotEvent`s.
    Bot,
    /// A tournament's log (owner: a tournament id), of encoded
    /// `pb::TournamentEvent`s.
    Tournament,
}

impl EventLog {
    /// Its table (durable stores).
    pub(crate) fn table(self) -> &'static str {
        match self {
            EventLog::Bot => "bot_events",
            EventLog::Tournament => "tournament_events",
        }
    }

    /// The column naming the owner (durable stores).
    pub(crate) fn owner_column(self) -> &'static str {
        match self {
            EventLog::Bot => "bot_id",
            EventLog::Tournament => "tournament_id",
        }
    }

    /// What owns a log, for messages.
    pub(crate) fn owner_kind(self) -> &'static str {
        match self {
            EventLog::Bot => "bot",
            EventLog::Tournament => "tournament",
        }
    }

    /// Appending, as errors name it.
    pub(crate) fn append_op(self) -> &'static str {
        match self {
            EventLog::Bot => "appending a bot event",
            EventLog::Tournament => "appending a tournament event",
        }
    }

    /// Reading, as errors name it.
    pub(crate) fn read_op(self) -> &'static str {
        match self {
            EventLog::Bot => "reading bot events",
            EventLog::Tournament => "reading tournament events",
        }
    }

    /// Reading the last seq, as errors name it.
    pub(crate) fn last_op(self) -> &'static str {
        match self {
            EventLog::Bot => "reading a bot's last event",
            EventLog::Tournament => "reading a tournament's last event",
        }
    }
}

/// The event logs. Appending to the log of an unknown owner (a bot not
/// registered, a tournament not stored) or at a seq taken already is
/// refused ([`crate::Refused`]); reads of unknown owners' logs are empty.
pub trait EventLogs: Send + Sync {
    /// Appends event `seq` (the next of the owner's log) to `owner`'s `log`.
    fn append_event(
        &self,
        log: EventLog,
        owner: &str,
        seq: u64,
        event: &[u8],
    ) -> Result<(), StoreError>;
    /// `owner`'s events from `from_seq` on, at most `limit`, in order.
    fn events(
        &self,
        log: EventLog,
        owner: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError>;
    /// The seq of `owner`'s last event (0: none).
    fn last_event(&self, log: EventLog, owner: &str) -> Result<u64, StoreError>;
}
