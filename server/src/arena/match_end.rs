//! A match's end: its result decided under the arena's lock, recorded
//! without it, then entered (ratings, the bots told, its tournament's
//! result). Its own module because the order matters to a restart: the
//! store has a result before any bot hears of it ([`super::resume`]).

use std::collections::{HashMap, VecDeque};

use druids_arena::pairing::BotId;
use druids_arena::pairing::duplicate::{self, Outcome};
use druids_arena::ratings::RatingChange;
use druids_contract::pb;

use super::bots::{self, BotNo, public_id};
use super::outbox::StateGuard;
use super::{Arena, RECENT_MATCHES, Running, State, ratings};
use crate::store::PlacementRecord;

impl Arena {
    /// Records the ends of the matches `over` whose games have all ended
    /// ([`Arena::progress`]), in that order: their results are decided
    /// under the lock `st` holds, which is let go while the store records
    /// them, and taken again to enter them ([`Arena::enter_end`]): only then
    /// are their last games' ends told. A match whose end cannot be recorded
    /// stays in play, tried again next round.
    pub(super) fn finish_matches<'a>(
        &'a self,
        st: StateGuard<'a>,
        over: Vec<u64>,
        now: u64,
    ) -> StateGuard<'a> {
        let ends: Vec<End> = over
            .into_iter()
            .filter_map(|seq| st.matches.get(&seq).map(|run| End::of(seq, run)))
            .collect();
        if ends.is_empty() {
            return st;
        }
        drop(st);
        let recorded = |end: &End| match self.store.finish_match(&end.match_id, &end.records, now) {
            Ok(()) => true,
            Err(e) => {
                // Nothing is entered or told before the store has it.
                tracing::warn!(match_id = %end.match_id, "cannot record a match's result: {e}");
                false
            }
        };
        let recorded: Vec<End> = ends.into_iter().filter(recorded).collect();
        let mut st = self.state();
        for end in recorded {
            self.enter_end(&mut st, end, now);
        }
        st
    }

    /// Enters the recorded end of a match: its bots told (its last games'
    /// ends, then its own), its ratings, its tournament's result.
    fn enter_end(&self, st: &mut State, end: End, now: u64) {
        let End {
            seq,
            records,
            placements,
            void,
            ..
        } = end;
        let Some(run) = st.matches.remove(&seq) else {
            return;
        };
        for (index, by_seat) in &run.untold_ends {
            self.game_over(&run, *index, by_seat, now);
        }
        let finished = self.finished_message(&run.record.id, &records);
        for (i, &bot) in run.bots.iter().enumerate() {
            let seek = run
                .streams
                .get(i)
                .cloned()
                .flatten()
                .map(|tx| (tx, pb::seek_event::Event::MatchFinished(finished.clone())));
            let event = pb::bot_event::Event::MatchFinished(finished.clone());
            self.tell_later(bot, now, event, seek);
        }
        if run.record.rated && !void {
            let ranks: Vec<(BotNo, u32)> = placements
                .iter()
                .map(|p| (p.bot.0, u32::from(p.rank)))
                .collect();
            let key = run.pool();
            for change in st.ratings.record(key, &ranks) {
                let event = rating_changed(&run.record.id, key, &change);
                self.tell_later(change.bot.0, now, event, None);
            }
        }
        for &b in &run.bots {
            remember(&mut st.recent, b, finished.clone());
            let playing = st.playing.entry(b).or_default();
            *playing = playing.saturating_sub(1);
            let playing = *playing;
            st.pool
                .set_load(BotId(b), playing, self.settings.bot_max_games);
        }
        for game_id in &run.game_ids {
            if let Some((id, seating)) = self.seats.remove(game_id) {
                self.ended(id, seating);
            }
        }
        if let Some((tournament, round)) = &run.record.tournament {
            self.tournament_result(st, tournament, *round, finished, now);
        }
        // Dropping the senders ends the Seek streams.
    }

    pub(super) fn finished_message(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
    ) -> pb::MatchFinished {
        let bots = self.bots();
        pb::MatchFinished {
            match_id: match_id.to_owned(),
            placements: placements
                .iter()
                .map(|p| pb::Placement {
                    bot: Some(bots::parse_id(&p.bot_id).map_or_else(
                        || pb::BotRef {
                            bot_id: p.bot_id.clone(),
                            ..Default::default()
                        },
                        |no| bots.reference(no),
                    )),
                    rank: p.rank,
                    score: p.score,
                })
                .collect(),
        }
    }
}

/// A match whose games have all ended: its result, decided under the
/// arena's lock, to be recorded without it ([`Arena::finish_matches`]).
struct End {
    seq: u64,
    match_id: String,
    records: Vec<PlacementRecord>,
    placements: Vec<duplicate::Placing>,
    /// A game was abandoned: no placements, no ratings.
    void: bool,
}

impl End {
    fn of(seq: u64, run: &Running) -> End {
        let void = run.outcomes.iter().flatten().any(Vec::is_empty);
        let placements = if void { Vec::new() } else { placements(run) };
        let records = placements
            .iter()
            .map(|p| PlacementRecord {
                bot_id: public_id(p.bot.0),
                rank: u32::from(p.rank),
                score: p.total_score,
            })
            .collect();
        End {
            seq,
            match_id: run.record.id.clone(),
            records,
            placements,
            void,
        }
    }
}

/// A finished match's placements: its one game's ranks, or a duplicate
/// match's ranking by total score.
fn placements(run: &Running) -> Vec<duplicate::Placing> {
    let games: Vec<Vec<Outcome>> = run.outcomes.iter().flatten().cloned().collect();
    if games.len() > 1
        && let Ok(placings) =
            duplicate::combine(&games, crate::bounds::arena::seats(run.record.kind))
    {
        return placings;
    }
    games
        .first()
        .map(|game| {
            game.iter()
                .map(|o| duplicate::Placing {
                    bot: o.bot,
                    rank: o.rank,
                    total_score: o.score,
                    total_rank: u32::from(o.rank),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The `rating_changed` event that `change` in pool `key`, by match
/// `match_id`, tells its bot.
pub(super) fn rating_changed(
    match_id: &str,
    key: ratings::PoolKey,
    change: &RatingChange,
) -> pb::bot_event::Event {
    pb::bot_event::Event::RatingChanged(pb::RatingChanged {
        match_id: match_id.to_owned(),
        kind: key.0.number(),
        players: key.1,
        before: Some(ratings::rating(&change.before)),
        after: Some(ratings::rating(&change.after)),
    })
}

/// Keeps match `m` first among bot `bot`'s recent matches (at most
/// [`RECENT_MATCHES`]).
pub(super) fn remember(
    recent: &mut HashMap<BotNo, VecDeque<pb::MatchFinished>>,
    bot: BotNo,
    m: pb::MatchFinished,
) {
    let list = recent.entry(bot).or_default();
    list.push_front(m);
    list.truncate(RECENT_MATCHES);
}
