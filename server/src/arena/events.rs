//! Each bot's event log: numbered from 1, stored before it is announced, so a
//! bot that reconnects resumes from the seq it last saw and misses nothing.
//! Streams wait on a watch of the log's last seq and read the store.

use dashmap::DashMap;
use druids::pb;
use prost::Message;
use tokio::sync::watch;

use super::bots::{BotNo, public_id};
use crate::arena_store::ArenaStore;
use crate::store::StoreError;

/// The last seq of each bot's log that anyone asked about.
#[derive(Default)]
pub struct Events {
    last: DashMap<BotNo, watch::Sender<u64>>,
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
        // The entry is held while storing, so two appends cannot take one seq.
        let entry = match self.last.entry(bot) {
            dashmap::Entry::Occupied(e) => e.into_ref(),
            dashmap::Entry::Vacant(e) => e.insert(watch::channel(store.last_bot_event(&id)?).0),
        };
        let seq = *entry.borrow() + 1;
        let record = pb::BotEvent {
            seq,
            at_unix_ms: at_ms,
            event: Some(event),
        };
        store.append_bot_event(&id, seq, &record.encode_to_vec())?;
        entry.send_replace(seq);
        Ok(())
    }

    /// A watch of bot `bot`'s last seq.
    pub fn subscribe(
        &self,
        store: &dyn ArenaStore,
        bot: BotNo,
    ) -> Result<watch::Receiver<u64>, StoreError> {
        if let Some(tx) = self.last.get(&bot) {
            return Ok(tx.subscribe());
        }
        let last = store.last_bot_event(&public_id(bot))?;
        Ok(self
            .last
            .entry(bot)
            .or_insert_with(|| watch::channel(last).0)
            .subscribe())
    }
}

/// Decodes stored events.
pub fn decode(rows: Vec<(u64, Vec<u8>)>) -> Result<Vec<pb::BotEvent>, StoreError> {
    rows.into_iter()
        .map(|(seq, bytes)| {
            pb::BotEvent::decode(bytes.as_slice())
                .map_err(|e| StoreError::Corrupt(format!("bot event {seq}: {e}")))
        })
        .collect()
}
