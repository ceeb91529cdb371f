//! The arena's event logs: each bot's (`StreamBotEvents`) and each
//! tournament's (`StreamTournamentEvents`). An event is numbered from 1 and
//! stored before it is announced, so a reader that reconnects resumes from
//! the seq it last saw and misses nothing. Streams wait on a watch of a log's
//! last seq and read the store.

use std::hash::Hash;

use dashmap::DashMap;
use druids_contract::pb;
use prost::Message;
use tokio::sync::watch;

use super::bots::{BotNo, public_id};
use crate::store::{ArenaStore, EventLog, StoreError};

/// The last seq of each log that anyone wrote or asked about, by key.
pub struct Logs<K> {
    last: DashMap<K, watch::Sender<u64>>,
}

impl<K: Eq + Hash + Clone> Default for Logs<K> {
    fn default() -> Self {
        Logs {
            last: DashMap::new(),
        }
    }
}

impl<K: Eq + Hash + Clone> Logs<K> {
    /// Appends to log `key` the event `write` stores at the seq it is given
    /// (`stored_last` reads the log's last seq the first time); its seq.
    fn append(
        &self,
        key: K,
        stored_last: impl FnOnce() -> Result<u64, StoreError>,
        write: impl FnOnce(u64) -> Result<(), StoreError>,
    ) -> Result<u64, StoreError> {
        // The entry is held while storing, so two appends cannot take one seq.
        let entry = match self.last.entry(key) {
            dashmap::Entry::Occupied(e) => e.into_ref(),
            dashmap::Entry::Vacant(e) => e.insert(watch::channel(stored_last()?).0),
        };
        let seq = *entry.borrow() + 1;
        write(seq)?;
        entry.send_replace(seq);
        Ok(seq)
    }

    /// A watch of log `key`'s last seq.
    fn subscribe(
        &self,
        key: K,
        stored_last: impl FnOnce() -> Result<u64, StoreError>,
    ) -> Result<watch::Receiver<u64>, StoreError> {
        if let Some(tx) = self.last.get(&key) {
            return Ok(tx.subscribe());
        }
        let last = stored_last()?;
        Ok(self
            .last
            .entry(key)
            .or_insert_with(|| watch::channel(last).0)
            .subscribe())
    }
}

/// Every bot's log.
#[derive(Default)]
pub struct Events {
    logs: Logs<BotNo>,
}

impl Events {
    /// Appends `event` to bot `bot`'s log (stored first, then announced).
    pub fn append(
        &self,
        store: &dyn ArenaStore,
        bot: BotNo,
        at_ms: u64,
        event: pb::bot_event::Event,
    ) -> Result<(), StoreError> {
        let id = public_id(bot);
        self.logs.append(
            bot,
            || store.last_event(EventLog::Bot, &id),
            |seq| {
                let record = pb::BotEvent {
                    seq,
                    at_unix_ms: at_ms,
                    event: Some(event),
                };
                store.append_event(EventLog::Bot, &id, seq, &record.encode_to_vec())
            },
        )?;
        Ok(())
    }

    /// A watch of bot `bot`'s last seq.
    pub fn subscribe(
        &self,
        store: &dyn ArenaStore,
        bot: BotNo,
    ) -> Result<watch::Receiver<u64>, StoreError> {
        self.logs
            .subscribe(bot, || store.last_event(EventLog::Bot, &public_id(bot)))
    }
}

/// Every tournament's log.
#[derive(Default)]
pub struct TournamentEvents {
    logs: Logs<String>,
}

impl TournamentEvents {
    /// Appends `event` to tournament `id`'s log (stored first, then
    /// announced).
    pub fn append(
        &self,
        store: &dyn ArenaStore,
        id: &str,
        at_ms: u64,
        event: pb::tournament_event::Event,
    ) -> Result<(), StoreError> {
        self.logs.append(
            id.to_owned(),
            || store.last_event(EventLog::Tournament, id),
            |seq| {
                let record = pb::TournamentEvent {
                    seq,
                    at_unix_ms: at_ms,
                    event: Some(event),
                };
                store.append_event(EventLog::Tournament, id, seq, &record.encode_to_vec())
            },
        )?;
        Ok(())
    }

    /// A watch of tournament `id`'s last seq.
    pub fn subscribe(
        &self,
        store: &dyn ArenaStore,
        id: &str,
    ) -> Result<watch::Receiver<u64>, StoreError> {
        self.logs
            .subscribe(id.to_owned(), || store.last_event(EventLog::Tournament, id))
    }
}

/// Decodes stored events of type `E` (what is a log's: `what`).
pub fn decode<E: Message + Default>(
    rows: Vec<(u64, Vec<u8>)>,
    what: &str,
) -> Result<Vec<E>, StoreError> {
    rows.into_iter()
        .map(|(seq, bytes)| {
            E::decode(bytes.as_slice())
                .map_err(|e| StoreError::Corrupt(format!("{what} event {seq}: {e}")))
        })
        .collect()
}
