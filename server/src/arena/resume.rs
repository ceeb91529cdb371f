//! The arena at start-up, and on the node that takes its work over: the
//! stored matches replayed (results into the ratings, unfinished matches
//! back into play) and what a stopped holder left untold told.
//!
//! A match's end is stored before its bots are told of it
//! ([`Arena::finish`]); a holder killed in between leaves a finished match
//! whose end, and rating changes, some bot never heard. The bots' logs say
//! what they were told, so the next holder tells the rest, once.

use std::collections::{HashMap, HashSet};

use druids_arena::pairing::BotId;
use druids_contract::pb;

use super::bots::{self, BotNo, public_id};
use super::matches::{rating_changed, remember};
use super::{Arena, Running, events};
use crate::store::{EventLog, StoreError, StoredMatch};

/// The last finished matches whose bots' logs are checked: a holder stops
/// while telling one match's end, so only the last few can be untold.
const CHECKED_ENDS: usize = 32;

/// A bot's last events read to learn what it was told.
const RECENT_EVENTS: u64 = 512;

/// What a bot's last events told it, by game or match id.
#[derive(Default)]
struct Told {
    game_ends: HashSet<String>,
    match_ends: HashSet<String>,
    rating_changes: HashSet<String>,
}

impl Arena {
    /// Replays the stored matches: results into the ratings in the order they
    /// were recorded, unfinished matches back into play; tells the bots of
    /// the last finished matches what they were not told.
    pub(super) fn resume(&self, stored: Vec<StoredMatch>) {
        let mut st = self.state();
        let mut finished: Vec<(u64, StoredMatch)> = Vec::new();
        // Each bot's log read once (`None`: unreadable).
        let mut told: HashMap<BotNo, Option<Told>> = HashMap::new();
        for (seq, m) in stored.into_iter().enumerate() {
            let seq = seq as u64;
            st.next_match = seq + 1;
            let bots = match_bots(&m);
            if m.record.rated {
                let key = (m.record.kind, bots.len() as u32);
                st.ratings.started(key, &bots, m.record.created_unix_ms);
            }
            let Some(at) = m.finished_unix_ms else {
                // Unread, a game's end may be told again: better than never.
                let told_before = bots
                    .iter()
                    .filter_map(|&b| {
                        let told = told.entry(b).or_insert_with(|| self.told(b));
                        Some((b, told.as_ref()?.game_ends.clone()))
                    })
                    .collect();
                let running = Running {
                    bots,
                    told_before,
                    outcomes: vec![None; m.record.games as usize],
                    game_ids: m.game_ids,
                    streams: Vec::new(),
                    record: m.record,
                };
                for (i, id) in running.game_ids.iter().enumerate() {
                    self.seats.insert(id.clone(), running.seating(i));
                }
                for &b in &running.bots {
                    *st.playing.entry(b).or_default() += 1;
                }
                st.matches.insert(seq, running);
                continue;
            };
            finished.push((at, m));
        }
        // The order `tick` records results in: by time, then by match id.
        finished.sort_by(|(a, m), (b, n)| (a, &m.record.id).cmp(&(b, &n.record.id)));
        let checked_from = finished.len().saturating_sub(CHECKED_ENDS);
        let now = self.clock.now_ms();
        for (i, (_, m)) in finished.into_iter().enumerate() {
            let bots = match_bots(&m);
            for (i, id) in m.game_ids.iter().enumerate() {
                let k = bots.len().max(1);
                let seating = (0..bots.len()).map(|s| bots[(s + i) % k]).collect();
                self.ended(id.clone(), seating);
            }
            let placements = m.placements.unwrap_or_default();
            let key = (m.record.kind, placements.len() as u32);
            let changes = if m.record.rated && !placements.is_empty() {
                let ranks: Vec<(BotNo, u32)> = placements
                    .iter()
                    .filter_map(|p| Some((bots::parse_id(&p.bot_id)?, p.rank)))
                    .collect();
                st.ratings.record(key, &ranks)
            } else {
                Vec::new()
            };
            let summary = self.finished_message(&m.record.id, &placements);
            for &b in &bots {
                remember(&mut st.recent, b, summary.clone());
            }
            if i >= checked_from {
                let id = &m.record.id;
                for &b in &bots {
                    let told = told.entry(b).or_insert_with(|| self.told(b));
                    if told.as_ref().is_some_and(|t| !t.match_ends.contains(id)) {
                        let event = pb::bot_event::Event::MatchFinished(summary.clone());
                        self.tell_late(b, now, event);
                    }
                }
                for change in &changes {
                    let b = change.bot.0;
                    let told = told.entry(b).or_insert_with(|| self.told(b));
                    if told
                        .as_ref()
                        .is_some_and(|t| !t.rating_changes.contains(id))
                    {
                        self.tell_late(b, now, rating_changed(id, key, change));
                    }
                }
            }
        }
        let limit = self.settings.bot_max_games;
        let loads: Vec<(BotNo, u32)> = st.playing.iter().map(|(&b, &n)| (b, n)).collect();
        for (bot, n) in loads {
            st.pool.set_load(BotId(bot), n, limit);
        }
    }

    /// Appends to bot `bot`'s log an event a stopped holder did not.
    fn tell_late(&self, bot: BotNo, now: u64, event: pb::bot_event::Event) {
        if let Err(e) = self.events.append(self.store.as_ref(), bot, now, event) {
            tracing::warn!("cannot record a bot event: {e}");
        }
    }

    /// What bot `bot`'s last events told it; `None` if they cannot be read.
    fn told(&self, bot: BotNo) -> Option<Told> {
        let id = public_id(bot);
        let read = || -> Result<Vec<pb::BotEvent>, StoreError> {
            let last = self.store.last_event(EventLog::Bot, &id)?;
            let from = last.saturating_sub(RECENT_EVENTS - 1).max(1);
            let rows = self
                .store
                .events(EventLog::Bot, &id, from, RECENT_EVENTS as usize)?;
            events::decode(rows, "bot")
        };
        let events = match read() {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!("cannot read a bot's events: {e}");
                return None;
            }
        };
        let mut told = Told::default();
        for event in events.into_iter().filter_map(|e| e.event) {
            use pb::bot_event::Event;
            match event {
                Event::GameFinished(g) => told.game_ends.insert(g.game_id),
                Event::MatchFinished(m) => told.match_ends.insert(m.match_id),
                Event::RatingChanged(r) => told.rating_changes.insert(r.match_id),
                _ => false,
            };
        }
        Some(told)
    }
}

/// A stored match's bots, in the seat order of its first game.
fn match_bots(m: &StoredMatch) -> Vec<BotNo> {
    m.record
        .bots
        .iter()
        .filter_map(|b| bots::parse_id(b))
        .collect()
}
