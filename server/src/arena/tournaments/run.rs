//! A tournament's life after creation: entry closing (the start, or the
//! cancellation), its rounds drawn (under the arena's lock) and their
//! matches opened (without it, as a matchmaking pass's are), their results,
//! its end; each step on the tournament's event log. And the restart: the
//! tournaments rebuilt from their settings, logs and matches, with any event
//! a crash kept from the log written then.

use std::collections::{HashMap, HashSet};

use druids_arena::pairing::BotId;
use druids_arena::pairing::schedule::{self, Format, Game};
use druids_contract::pb;
use druids_contract::pb::tournament_event::Event;

use super::Tourney;
use crate::arena::bots::{BotNo, parse_id};
use crate::arena::matches::NewMatch;
use crate::arena::outbox::Notice;
use crate::arena::pass::Formed;
use crate::arena::{Arena, State};
use crate::store::{StoredMatch, TournamentRecord};

/// What the round decided for the tournaments under the arena's lock, to
/// be done without it: rounds to open ([`Arena::open_rounds`]) and ends to
/// record ([`Arena::end_tournaments`]).
pub(in crate::arena) struct Decided {
    pub(in crate::arena) rounds: Vec<DrawnRound>,
    pub(in crate::arena) ends: Vec<End>,
}

/// A tournament's end, decided and not recorded yet.
pub(in crate::arena) struct End {
    id: String,
    /// Cancelled (entry closed with too few entrants), and why; else
    /// finished.
    cancelled: Option<String>,
}

/// A tournament's round drawn under the arena's lock: its matches formed
/// (and pending in the tournament), not opened yet.
pub(in crate::arena) struct DrawnRound {
    tournament: String,
    /// From 0.
    round: u32,
    byes: Vec<BotId>,
    matches: Vec<Formed>,
}

impl Arena {
    /// Queues `event` for tournament `id`'s log, stored once the arena's
    /// lock is let go ([`super::super::outbox`]); a failure is logged (the
    /// log is what watchers see; the tournament itself goes on).
    fn log_event(&self, id: &str, now: u64, event: Event) {
        self.outbox.push(Notice::Tournament {
            id: id.to_owned(),
            at_ms: now,
            event,
        });
    }

    /// Takes the bots revoked meanwhile out of `t`'s entrants, as entry
    /// closes: a revoked bot plays no more (the log's `Started` names who
    /// is left, so a restart keeps them).
    pub(in crate::arena) fn drop_revoked(&self, t: &mut Tourney) {
        let bots = self.bots();
        t.entrants.retain(|&b| !bots.is_revoked(b));
    }

    /// Logs that `t`'s entry closed and who entered.
    pub(super) fn log_start(&self, t: &Tourney, now: u64) {
        let entrants = {
            let bots = self.bots();
            t.entrants.iter().map(|&b| bots.reference(b)).collect()
        };
        let started = pb::TournamentStarted {
            entrants,
            rounds_total: t.rounds_total,
        };
        self.log_event(&t.record.id, now, Event::Started(started));
    }

    /// Closes entry, draws the next round, or ends every tournament whose
    /// round is over (one with an entry being recorded waits: its entrants
    /// are not known yet); what it decided is done once the lock is let go.
    pub(in crate::arena) fn run_tournaments(&self, st: &mut State, now: u64) -> Decided {
        let mut drawn = Vec::new();
        let mut ends = Vec::new();
        let ids: Vec<String> = st
            .tournaments
            .iter()
            .filter(|(_, t)| {
                t.record.finished_unix_ms.is_none() && t.pending.is_empty() && t.joining.is_empty()
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            let Some(t) = st.tournaments.get_mut(&id) else {
                continue;
            };
            if !t.started {
                let full = t.entrants.len() >= t.max_entrants;
                if t.closes_ms.is_some_and(|c| now < c) && !full {
                    continue;
                }
                self.drop_revoked(t);
                match t.seal() {
                    Ok(()) => self.log_start(t, now),
                    Err(why) => {
                        ends.push(cancel(t, why));
                        continue;
                    }
                }
            }
            if t.is_over() {
                ends.push(conclude(t));
                continue;
            }
            let round = t.round;
            let mut byes = Vec::new();
            let games = match t.format() {
                Format::Swiss { .. } => {
                    // A bot revoked since entry closed is withdrawn, as a
                    // player who leaves a Swiss event: paired no more, its
                    // results so far kept in the standings.
                    let ids: Vec<BotId> = {
                        let bots = self.bots();
                        (t.entrants.iter())
                            .filter(|&&b| !bots.is_revoked(b))
                            .map(|&b| BotId(b))
                            .collect()
                    };
                    if ids.len() < usize::from(t.k) {
                        tracing::info!(tournament_id = %id, "too few bots left for a game: the tournament ends");
                        ends.push(conclude(t));
                        continue;
                    }
                    match schedule::swiss_round(
                        &ids,
                        t.k,
                        t.seats(),
                        &t.standings,
                        &t.history,
                        &t.byes,
                    ) {
                        Ok(drawn) => {
                            for &b in &drawn.byes {
                                t.standings.record_bye(b, t.k);
                                t.byes.push(b);
                            }
                            byes = drawn.byes;
                            drawn.games
                        }
                        Err(e) => {
                            tracing::error!(tournament_id = %id, "cannot draw a Swiss round: {e}");
                            continue;
                        }
                    }
                }
                _ => {
                    // A bot revoked since entry closed is withdrawn from a
                    // fixed schedule too: the games that seat it are not
                    // played (no one scores them), the rest of its round is.
                    let mut games = t.schedule.get(round as usize).cloned().unwrap_or_default();
                    let bots = self.bots();
                    let before = games.len();
                    games.retain(|game| game.iter().all(|b| !bots.is_revoked(b.0)));
                    if games.len() < before {
                        tracing::info!(tournament_id = %id, round, dropped = before - games.len(), "games with a revoked bot are not played");
                    }
                    games
                }
            };
            let (kind, rated) = (t.kind, t.settings.rated);
            let clock = self.clock(t.settings.time_control.as_ref());
            t.round += 1;
            t.history.extend(games.iter().cloned());
            let matches: Vec<Formed> = games
                .into_iter()
                .map(|game| {
                    let bots: Vec<BotNo> = game.iter().map(|b| b.0).collect();
                    let new = NewMatch {
                        id: None,
                        kind,
                        rated,
                        streams: vec![None; bots.len()],
                        bots,
                        tournament: Some((id.clone(), round)),
                        clock,
                    };
                    self.form(st, new, now)
                })
                .collect();
            if let Some(t) = st.tournaments.get_mut(&id) {
                t.pending.extend(matches.iter().map(|m| m.id().to_owned()));
            }
            drawn.push(DrawnRound {
                tournament: id,
                round,
                byes,
                matches,
            });
        }
        Decided {
            rounds: drawn,
            ends,
        }
    }

    /// Opens the matches of the rounds drawn ([`Arena::run_tournaments`])
    /// without the arena's lock; a match that cannot be recorded leaves its
    /// tournament's pending matches (the round goes on without it, as it
    /// always did). Logs each round with the matches that opened.
    pub(in crate::arena) fn open_rounds(&self, rounds: Vec<DrawnRound>, now: u64) {
        for drawn in rounds {
            let DrawnRound {
                tournament,
                round,
                byes,
                matches,
            } = drawn;
            let seated: Vec<(String, Vec<BotNo>)> = matches
                .iter()
                .map(|m| (m.id().to_owned(), m.bots().to_vec()))
                .collect();
            let opened = self.open_formed_matches(matches, now);
            let (started, failed): (Vec<_>, Vec<_>) =
                seated.into_iter().partition(|(id, _)| opened.contains(id));
            if !failed.is_empty() {
                tracing::warn!(tournament_id = %tournament, matches = failed.len(), "cannot start tournament matches");
                let mut st = self.state();
                if let Some(t) = st.tournaments.get_mut(&tournament) {
                    for (id, _) in &failed {
                        t.pending.remove(id);
                    }
                }
            }
            self.log_round(&tournament, round, &started, &byes, now);
        }
        // Logged without the lock: stored here.
        self.deliver();
    }

    /// Logs the start of round `round` (from 0) with its matches.
    fn log_round(
        &self,
        id: &str,
        round: u32,
        matches: &[(String, Vec<BotNo>)],
        byes: &[BotId],
        now: u64,
    ) {
        let started = {
            let bots = self.bots();
            pb::RoundStarted {
                round: round + 1,
                matches: matches
                    .iter()
                    .map(|(match_id, seated)| pb::TournamentMatch {
                        match_id: match_id.clone(),
                        bots: seated.iter().map(|&b| bots.reference(b)).collect(),
                    })
                    .collect(),
                byes: byes.iter().map(|b| bots.reference(b.0)).collect(),
            }
        };
        self.log_event(id, now, Event::RoundStarted(started));
    }

    /// Records the ends decided ([`Arena::run_tournaments`]) without the
    /// arena's lock, then logs them. One the store cannot record is tried
    /// again next round.
    pub(in crate::arena) fn end_tournaments(&self, ends: Vec<End>, now: u64) {
        for End { id, cancelled } in ends {
            let recorded = self.store.finish_tournament(&id, now);
            let mut st = self.state();
            let Some(t) = st.tournaments.get_mut(&id) else {
                continue;
            };
            if let Err(e) = recorded {
                tracing::warn!(tournament_id = %id, "cannot record a tournament's end: {e}");
                // Entry closes again next round.
                if cancelled.is_some() {
                    t.cancelled = false;
                }
                continue;
            }
            t.record.finished_unix_ms = Some(now);
            let event = match cancelled {
                Some(why) => {
                    tracing::info!(tournament_id = %id, "tournament cancelled: {why}");
                    Event::Cancelled(pb::TournamentCancelled { reason: why })
                }
                None => {
                    tracing::info!(tournament_id = %id, "tournament finished");
                    let standings = self.standings(t);
                    Event::Finished(pb::TournamentFinished { standings })
                }
            };
            self.log_event(&id, now, event);
        }
    }

    /// Notes the result of match `match_id` of round `round` (from 0) of
    /// tournament `id`, and logs it with the standings after it.
    pub(in crate::arena) fn tournament_result(
        &self,
        st: &mut State,
        id: &str,
        round: u32,
        finished: pb::MatchFinished,
        now: u64,
    ) {
        let Some(t) = st.tournaments.get_mut(id) else {
            return;
        };
        t.record_result(&finished.match_id.clone(), finished.clone());
        let event = pb::TournamentMatchFinished {
            round: round + 1,
            result: Some(finished),
            standings: self.standings(t),
        };
        self.log_event(id, now, Event::MatchFinished(event));
    }

    /// Rebuilds the stored tournaments from their settings, logs and
    /// matches, and writes the events a crash kept from their logs.
    pub(in crate::arena) fn resume_tournaments(
        &self,
        stored: Vec<TournamentRecord>,
        matches: &[StoredMatch],
    ) {
        let now = self.clock.now_ms();
        let mut by_tournament: HashMap<&str, Vec<&StoredMatch>> = HashMap::new();
        for m in matches {
            if let Some((tid, _)) = &m.record.tournament {
                by_tournament.entry(tid.as_str()).or_default().push(m);
            }
        }
        let mut st = self.state();
        let mut ends = Vec::new();
        for record in stored {
            let id = record.id.clone();
            let mut t = match Tourney::new(record) {
                Ok(t) => t,
                Err(e) => {
                    tracing::error!(tournament_id = %id, "a stored tournament does not load: {e}");
                    continue;
                }
            };
            let logged = match self.tournament_events_from(&id, 1, LOG_READ_LIMIT) {
                Ok(events) => events,
                Err(e) => {
                    tracing::error!(tournament_id = %id, "a tournament's log does not load: {e}");
                    Vec::new()
                }
            };
            let mut log = Logged::default();
            for event in &logged {
                match &event.event {
                    Some(Event::EntrantJoined(bot)) => {
                        if let Some(no) = parse_id(&bot.bot_id)
                            && !t.entrants.contains(&no)
                        {
                            t.entrants.push(no);
                        }
                    }
                    Some(Event::Started(s)) => {
                        t.entrants = s
                            .entrants
                            .iter()
                            .filter_map(|b| parse_id(&b.bot_id))
                            .collect();
                        log.started = true;
                    }
                    Some(Event::RoundStarted(r)) => {
                        let byes = r.byes.iter().filter_map(|b| parse_id(&b.bot_id));
                        log.rounds.insert(r.round, byes.map(BotId).collect());
                    }
                    Some(Event::MatchFinished(m)) => {
                        if let Some(r) = &m.result {
                            log.results.insert(r.match_id.clone());
                        }
                    }
                    Some(Event::Finished(_)) => log.ended = true,
                    Some(Event::Cancelled(_)) => {
                        log.ended = true;
                        t.cancelled = true;
                    }
                    // Never logged: a heartbeat is only sent on a stream.
                    Some(Event::Heartbeat(_)) | None => {}
                }
            }
            let mine = by_tournament.remove(id.as_str()).unwrap_or_default();
            // Tournaments from before the log, or whose start was not logged:
            // started if entry is over by now or any match was formed.
            let finished = t.record.finished_unix_ms.is_some();
            let due = t.closes_ms.is_none_or(|c| now >= c) || !mine.is_empty();
            let cancelled = t.cancelled || (finished && mine.is_empty() && !log.started);
            if !cancelled && (log.started || due) {
                // Not once a match was formed from the entrants as they were.
                if !log.started && mine.is_empty() {
                    self.drop_revoked(&mut t);
                }
                match t.seal() {
                    Ok(()) if !log.started => self.log_start(&t, now),
                    Ok(()) => {}
                    Err(why) if !finished => {
                        ends.push(cancel(&mut t, why));
                        st.tournaments.insert(id, t);
                        continue;
                    }
                    Err(_) => {}
                }
            }
            t.cancelled = cancelled;
            let byes = self.replay_matches(&mut t, &mine, &log);
            self.backfill(&t, &mine, &log, &byes, now);
            st.tournaments.insert(id, t);
        }
        drop(st);
        self.end_tournaments(ends, now);
    }

    /// Puts `t`'s stored matches back: its rounds, Swiss history and byes,
    /// results in the order they finished, matches still being played.
    /// Returns each round's byes.
    fn replay_matches(
        &self,
        t: &mut Tourney,
        mine: &[&StoredMatch],
        log: &Logged,
    ) -> Vec<Vec<BotId>> {
        let mut rounds: Vec<Vec<&StoredMatch>> = Vec::new();
        for m in mine {
            let Some((_, round)) = &m.record.tournament else {
                continue;
            };
            let r = *round as usize;
            if rounds.len() <= r {
                rounds.resize(r + 1, Vec::new());
            }
            rounds[r].push(m);
        }
        // A round whose every game seated a revoked bot opened no match:
        // only its log says it was drawn.
        let logged = log.rounds.keys().max().copied().unwrap_or(0) as usize;
        rounds.resize(rounds.len().max(logged), Vec::new());
        t.round = rounds.len() as u32;
        let mut finished: Vec<&StoredMatch> = Vec::new();
        let mut round_byes = Vec::new();
        for (r, round) in rounds.iter().enumerate() {
            let mut seated = HashSet::new();
            for m in round {
                let game: Game = m
                    .record
                    .bots
                    .iter()
                    .filter_map(|b| parse_id(b))
                    .map(BotId)
                    .collect();
                seated.extend(game.iter().copied());
                t.history.push(game);
                match m.finished_unix_ms {
                    Some(_) => finished.push(m),
                    None => {
                        t.pending.insert(m.record.id.clone());
                    }
                }
            }
            if matches!(t.format(), Format::Swiss { .. }) {
                // The byes the round's start logged; a bot withdrawn (revoked)
                // was not seated either, but had no bye. A round whose start
                // a crash kept from the log: the bots not seated but for the
                // revoked ones, as the round was drawn.
                let byes: Vec<BotId> = match log.rounds.get(&(r as u32 + 1)) {
                    Some(byes) => byes.clone(),
                    None => {
                        let bots = self.bots();
                        (t.entrants.iter())
                            .filter(|&&e| !seated.contains(&BotId(e)) && !bots.is_revoked(e))
                            .map(|&e| BotId(e))
                            .collect()
                    }
                };
                for &b in &byes {
                    t.byes.push(b);
                    t.standings.record_bye(b, t.k);
                }
                round_byes.push(byes);
            } else {
                round_byes.push(Vec::new());
            }
        }
        finished.sort_by_key(|m| m.finished_unix_ms);
        for m in finished {
            let placements = m.placements.clone().unwrap_or_default();
            let message = self.finished_message(&m.record.id, &placements);
            t.record_result(&m.record.id, message);
        }
        round_byes
    }

    /// Writes the events of `t` its log lacks: a crash came between a step
    /// and its event.
    fn backfill(
        &self,
        t: &Tourney,
        mine: &[&StoredMatch],
        log: &Logged,
        byes: &[Vec<BotId>],
        now: u64,
    ) {
        let id = &t.record.id;
        for round in 0..t.round {
            if log.rounds.contains_key(&(round + 1)) {
                continue;
            }
            let matches: Vec<(String, Vec<BotNo>)> = mine
                .iter()
                .filter(|m| {
                    m.record
                        .tournament
                        .as_ref()
                        .is_some_and(|(_, r)| *r == round)
                })
                .map(|m| {
                    let bots = m.record.bots.iter().filter_map(|b| parse_id(b)).collect();
                    (m.record.id.clone(), bots)
                })
                .collect();
            let byes = byes.get(round as usize).map_or(&[][..], Vec::as_slice);
            self.log_round(id, round, &matches, byes, now);
        }
        for result in &t.results {
            if log.results.contains(&result.match_id) {
                continue;
            }
            let round = mine
                .iter()
                .find(|m| m.record.id == result.match_id)
                .and_then(|m| m.record.tournament.as_ref().map(|(_, r)| *r))
                .unwrap_or(0);
            let event = pb::TournamentMatchFinished {
                round: round + 1,
                result: Some(result.clone()),
                standings: self.standings(t),
            };
            self.log_event(id, now, Event::MatchFinished(event));
        }
        if t.record.finished_unix_ms.is_some() && !log.ended {
            let event = if t.cancelled {
                Event::Cancelled(pb::TournamentCancelled {
                    reason: "too few entrants".into(),
                })
            } else {
                Event::Finished(pb::TournamentFinished {
                    standings: self.standings(t),
                })
            };
            self.log_event(id, now, event);
        }
    }
}

/// More events than any tournament's log holds (a round-robin has at most
/// 10,000 matches).
const LOG_READ_LIMIT: usize = 1_000_000;

/// What a tournament's log says happened.
#[derive(Default)]
struct Logged {
    started: bool,
    /// Rounds (from 1) whose start is logged, with their byes.
    rounds: HashMap<u32, Vec<BotId>>,
    /// Matches whose result is logged.
    results: HashSet<String>,
    ended: bool,
}

/// Cancels `t` (entry closed with too few entrants: `why`): no one joins it
/// any more; recorded by [`Arena::end_tournaments`] (which reopens it if it
/// cannot be).
fn cancel(t: &mut Tourney, why: String) -> End {
    t.cancelled = true;
    End {
        id: t.record.id.clone(),
        cancelled: Some(why),
    }
}

/// Ends `t`: its last match is over, or too few bots are left for a game.
fn conclude(t: &Tourney) -> End {
    End {
        id: t.record.id.clone(),
        cancelled: None,
    }
}
