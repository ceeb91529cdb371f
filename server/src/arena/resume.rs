//! The arena at start-up, and on the node that takes its work over: the
//! stored matches replayed (results into the ratings, unfinished matches
//! back into play) and what a stopped holder left untold told.
//!
//! A match is stored before its bots are told it started, each game before
//! its bots are told of it, a match's end before its bots are told of it or
//! of its last games' ends ([`Arena::open_match`], [`Arena::start_game`],
//! [`Arena::finish_matches`]; the round tells once it lets the arena's lock go,
//! [`super::outbox`]), and a game's bots are told of its end one after
//! another. A holder killed in between leaves something some bot never
//! heard. The bots' logs say what they were told, so the next holder tells
//! the rest, once.

use std::collections::{HashMap, HashSet};

use druids_arena::pairing::BotId;
use druids_contract::pb;
use pb::bot_event::Event;

use super::bots::{self, BotNo, public_id};
use super::match_end::{rating_changed, remember};
use super::matches::{game_finished, game_results, match_game};
use super::{Arena, Running, State, events, rotation};
use crate::store::{EventLog, StoreError, StoredMatch};

/// The last finished matches whose bots' logs are checked: a holder stops
/// while telling one match's end, so only the last few can be untold.
const CHECKED_ENDS: usize = 32;

/// A bot's last events read to learn what it was told.
const RECENT_EVENTS: u64 = 512;

/// What a bot's last events told it, by game or match id.
#[derive(Default)]
struct Told {
    /// When the first event read was told; `None`: the log was read from its
    /// start.
    since_ms: Option<u64>,
    match_starts: HashSet<String>,
    game_starts: HashSet<String>,
    game_ends: HashSet<String>,
    match_ends: HashSet<String>,
    rating_changes: HashSet<String>,
}

impl Told {
    /// Whether the events read reach back to `at_ms`: what they lack from
    /// then on was not told (an older event may lie before them).
    fn reaches(&self, at_ms: u64) -> bool {
        self.since_ms.is_none_or(|since| since <= at_ms)
    }
}

/// The bots' logs, each read once while resuming (`None`: unreadable).
type ToldCache = HashMap<BotNo, Option<Told>>;

impl Arena {
    /// Replays the stored matches: results into the ratings in the order they
    /// were recorded, unfinished matches back into play; tells the bots of
    /// the unfinished and the last finished matches what they were not told.
    pub(super) fn resume(&self, stored: Vec<StoredMatch>) {
        let mut st = self.state();
        let mut told = ToldCache::new();
        let now = self.clock.now_ms();
        let mut finished: Vec<(u64, StoredMatch)> = Vec::new();
        for (seq, m) in stored.into_iter().enumerate() {
            let seq = seq as u64;
            st.next_match = seq + 1;
            let bots = match_bots(&m);
            if m.record.rated {
                let key = (m.record.kind, bots.len() as u32);
                st.ratings.started(key, &bots, m.record.created_unix_ms);
            }
            match m.finished_unix_ms {
                Some(at) => finished.push((at, m)),
                None => self.resume_running(&mut st, seq, m, &mut told, now),
            }
        }
        // The order `tick` records results in: by time, then by match id.
        finished.sort_by(|(a, m), (b, n)| (a, &m.record.id).cmp(&(b, &n.record.id)));
        let checked_from = finished.len().saturating_sub(CHECKED_ENDS);
        for (i, (at, m)) in finished.into_iter().enumerate() {
            let untold = (i >= checked_from).then_some(&mut told);
            self.replay_finished(&mut st, m, at, untold, now);
        }
        let limit = self.settings.bot_max_games;
        let loads: Vec<(BotNo, u32)> = st.playing.iter().map(|(&b, &n)| (b, n)).collect();
        for (bot, n) in loads {
            st.pool.set_load(BotId(bot), n, limit);
        }
    }

    /// Puts unfinished match `m` back into play as match `seq`, telling its
    /// bots its start and its games' starts where their logs lack them.
    fn resume_running(
        &self,
        st: &mut State,
        seq: u64,
        m: StoredMatch,
        told: &mut ToldCache,
        now: u64,
    ) {
        let bots = match_bots(&m);
        // Unread, a game's end may be told again: better than never.
        let told_before = bots
            .iter()
            .filter_map(|&b| Some((b, self.told(told, b)?.game_ends.clone())))
            .collect();
        let running = Running {
            bots,
            told_before,
            outcomes: vec![None; m.record.games as usize],
            untold_ends: Vec::new(),
            game_ids: m.game_ids,
            streams: Vec::new(),
            record: m.record,
        };
        self.tell_starts(&running, told, now);
        for (i, id) in running.game_ids.iter().enumerate() {
            self.seats.insert(id.clone(), running.seating(i));
        }
        for &b in &running.bots {
            *st.playing.entry(b).or_default() += 1;
        }
        st.matches.insert(seq, running);
    }

    /// Tells the bots of running match `run` its start and its games'
    /// starts where their logs lack them.
    fn tell_starts(&self, run: &Running, told: &mut ToldCache, now: u64) {
        let id = &run.record.id;
        for &b in &run.bots {
            let Some(t) = self.told(told, b) else {
                continue;
            };
            // A start told before the events read is not told again.
            if !t.reaches(run.record.created_unix_ms) {
                continue;
            }
            let match_told = t.match_starts.contains(id);
            let games: Vec<pb::MatchGame> = (run.game_ids.iter().enumerate())
                .filter(|(_, game_id)| !t.game_starts.contains(*game_id))
                .filter_map(|(index, game_id)| {
                    let seat = run.seating(index).iter().position(|&s| s == b)?;
                    Some(match_game(run, index, game_id, seat))
                })
                .collect();
            if !match_told {
                self.tell_late(b, now, Event::MatchStarted(self.match_started(run)));
            }
            for game in games {
                self.tell_late(b, now, Event::GameStarted(game));
            }
        }
    }

    /// Replays finished match `m` (finished at `at`) into the ratings and
    /// the bots' recent matches; with `untold`, tells its bots its games'
    /// ends, its end and their rating changes where their logs lack them.
    fn replay_finished(
        &self,
        st: &mut State,
        m: StoredMatch,
        at: u64,
        untold: Option<&mut ToldCache>,
        now: u64,
    ) {
        let bots = match_bots(&m);
        for (i, id) in m.game_ids.iter().enumerate() {
            self.ended(id.clone(), rotation(&bots, i));
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
        let Some(told) = untold else {
            return;
        };
        let id = &m.record.id;
        // The match's end is stored before its last games' ends are told.
        for (index, game_id) in m.game_ids.iter().enumerate() {
            let seating = rotation(&bots, index);
            let lacking: Vec<usize> = (0..seating.len())
                .filter(|&seat| {
                    self.told(told, seating[seat])
                        .is_some_and(|t| t.reaches(at) && !t.game_ends.contains(game_id))
                })
                .collect();
            if lacking.is_empty() {
                continue;
            }
            let room = match self.rooms.load(game_id, now) {
                Ok(room) => room,
                Err(e) => {
                    tracing::warn!(%game_id, "an arena game cannot be read: {e}");
                    continue;
                }
            };
            let (_, by_seat) = game_results(&room, &seating);
            for seat in lacking {
                let event = game_finished(id, game_id, index, seat, by_seat[seat]);
                self.tell_late(seating[seat], now, event);
            }
        }
        for &b in &bots {
            if self
                .told(told, b)
                .is_some_and(|t| t.reaches(at) && !t.match_ends.contains(id))
            {
                self.tell_late(b, now, Event::MatchFinished(summary.clone()));
            }
        }
        for change in &changes {
            let b = change.bot.0;
            if self
                .told(told, b)
                .is_some_and(|t| t.reaches(at) && !t.rating_changes.contains(id))
            {
                self.tell_late(b, now, rating_changed(id, key, change));
            }
        }
    }

    /// Appends to bot `bot`'s log an event a stopped holder did not (once
    /// the arena's lock is let go).
    fn tell_late(&self, bot: BotNo, now: u64, event: Event) {
        self.tell_later(bot, now, event, None);
    }

    /// What bot `bot`'s last events told it, read once into `cache`; `None`
    /// if they cannot be read.
    fn told<'c>(&self, cache: &'c mut ToldCache, bot: BotNo) -> Option<&'c Told> {
        cache
            .entry(bot)
            .or_insert_with(|| self.read_told(bot))
            .as_ref()
    }

    fn read_told(&self, bot: BotNo) -> Option<Told> {
        let id = public_id(bot);
        let read = || -> Result<(u64, Vec<pb::BotEvent>), StoreError> {
            let last = self.store.last_event(EventLog::Bot, &id)?;
            let from = last.saturating_sub(RECENT_EVENTS - 1).max(1);
            let rows = self
                .store
                .events(EventLog::Bot, &id, from, RECENT_EVENTS as usize)?;
            Ok((from, events::decode(rows, "bot")?))
        };
        let (from, events) = match read() {
            Ok(read) => read,
            Err(e) => {
                tracing::warn!("cannot read a bot's events: {e}");
                return None;
            }
        };
        let mut told = Told {
            since_ms: (from > 1).then(|| events.first().map_or(u64::MAX, |e| e.at_unix_ms)),
            ..Told::default()
        };
        for event in events.into_iter().filter_map(|e| e.event) {
            match event {
                Event::MatchStarted(m) => told.match_starts.insert(m.match_id),
                Event::GameStarted(g) => told.game_starts.insert(g.game_id),
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
