//! Tournaments run by the server: a schedule (round-robin, Swiss, gauntlet:
//! `druids_arena::pairing::schedule`) played round by round as arena
//! matches. A round starts when the previous one is over.
//!
//! Everything is derived from the store: the tournament's settings, its
//! event log (who joined during open entry; whether entry closed) and its
//! matches (each tagged with its tournament and round), so a restart resumes
//! where it was; a Swiss round's byes are the entrants missing from its
//! matches.
//!
//! * this module: a tournament ([`Tourney`]) and how the contract shows it;
//! * [`entry`]: CreateTournament, JoinTournament, GetTournament;
//! * [`run`]: the rounds, the results, the end, the event log, the restart.

mod entry;
mod run;

use std::collections::HashSet;
use std::sync::Mutex;

use druids_arena::pairing::schedule::{self, Format, Game, Round, Standings};
use druids_arena::pairing::{BotId, Seats};
use druids_arena::ratings::{FitConfig, FitInput, GameResult};
use druids_contract::{Kind, pb};
use prost::Message;

use super::Arena;
use super::bots::{BotNo, parse_id, public_id};
use crate::bounds::arena::MAX_ENTRANTS;
use crate::error::ServiceError;
use crate::store::TournamentRecord;

/// Most entrants of an open tournament when its request does not say.
const DEFAULT_MAX_ENTRANTS: usize = 64;

/// A tournament's counts of results, entrants and byes: its standings
/// change only with them.
type Counts = (usize, usize, usize);

/// A tournament and how far it got.
pub struct Tourney {
    record: TournamentRecord,
    settings: pb::CreateTournamentRequest,
    kind: Kind,
    k: u8,
    /// In the order they entered: named ones first, then those who joined.
    entrants: Vec<BotNo>,
    /// Bots whose entry is being recorded (JoinTournament, without the
    /// arena's lock): they count against the most entrants, and entry does
    /// not close meanwhile.
    joining: Vec<BotNo>,
    /// With open entry: when it closes, ms since the Unix epoch.
    closes_ms: Option<u64>,
    /// Entry closes early when this many have entered.
    max_entrants: usize,
    /// Entry closed and the schedule is drawn.
    started: bool,
    /// Entry closed with too few entrants: no match is played.
    cancelled: bool,
    /// The whole schedule, except for a Swiss tournament (drawn per round).
    schedule: Vec<Round>,
    rounds_total: u32,
    /// Rounds started.
    round: u32,
    /// Matches of the current round still being played.
    pending: HashSet<String>,
    /// Finished matches, in the order they finished.
    results: Vec<pb::MatchFinished>,
    standings: Standings,
    /// Every game played so far (Swiss: who met whom).
    history: Vec<Game>,
    byes: Vec<BotId>,
    /// The standings as last shown, with the counts of results, entrants and
    /// byes they were computed from: they change only with those, and each
    /// computation fits the tournament's matches, so GetTournament polls and
    /// events share it.
    shown: Mutex<Option<(Counts, Vec<pb::Standing>)>>,
}

impl Tourney {
    /// The seats its kind's arena games have.
    fn seats(&self) -> Seats {
        crate::bounds::arena::seats(self.kind)
    }

    /// The tournament of `record` as created: entry open, or (without open
    /// entry) its named entrants, not started yet.
    fn new(record: TournamentRecord) -> Result<Tourney, ServiceError> {
        let settings = pb::CreateTournamentRequest::decode(record.settings.as_slice())
            .map_err(|e| ServiceError::invalid("settings", format!("stored settings: {e}")))?;
        let kind = Kind::from_number(settings.kind)?;
        let k = settings.players as u8;
        let entrants: Vec<BotNo> = settings
            .entrants
            .iter()
            .filter_map(|e| parse_id(e))
            .collect();
        let (closes_ms, max_entrants) = match &settings.open_entry {
            Some(open) => (
                Some(record.created_unix_ms + u64::from(open.closes_in_secs) * 1000),
                match open.max_entrants as usize {
                    0 => DEFAULT_MAX_ENTRANTS,
                    n => n.min(MAX_ENTRANTS),
                },
            ),
            None => (None, MAX_ENTRANTS),
        };
        Ok(Tourney {
            record,
            settings,
            kind,
            k,
            entrants,
            joining: Vec::new(),
            closes_ms,
            max_entrants,
            started: false,
            cancelled: false,
            schedule: Vec::new(),
            rounds_total: 0,
            round: 0,
            pending: HashSet::new(),
            results: Vec::new(),
            standings: Standings::new(),
            history: Vec::new(),
            byes: Vec::new(),
            shown: Mutex::new(None),
        })
    }

    /// Closes entry: draws the schedule of the entrants (a Swiss tournament
    /// only checks that its first round can be drawn). Why not, if not.
    fn seal(&mut self) -> Result<(), String> {
        if self.entrants.len() < usize::from(self.k) {
            return Err(format!(
                "{} entrants, a game needs {}",
                self.entrants.len(),
                self.k
            ));
        }
        let ids: Vec<BotId> = self.entrants.iter().map(|&b| BotId(b)).collect();
        let format = self.format();
        let (schedule, rounds_total) = match format {
            Format::Swiss { rounds } => {
                schedule::swiss_round(&ids, self.k, self.seats(), &Standings::new(), &[], &[])
                    .map_err(|e| e.to_string())?;
                (Vec::new(), rounds)
            }
            Format::Gauntlet { .. } => {
                let once = schedule::schedule(&format, &ids, self.k, self.seats())
                    .map_err(|e| e.to_string())?;
                let repeats = match &self.settings.format {
                    Some(pb::create_tournament_request::Format::Gauntlet(g)) => g.games.max(1),
                    _ => 1,
                };
                let all: Vec<Round> = (0..repeats).flat_map(|_| once.clone()).collect();
                let n = all.len() as u32;
                (all, n)
            }
            Format::RoundRobin { .. } => {
                let all = schedule::schedule(&format, &ids, self.k, self.seats())
                    .map_err(|e| e.to_string())?;
                let n = all.len() as u32;
                (all, n)
            }
        };
        self.schedule = schedule;
        self.rounds_total = rounds_total;
        self.started = true;
        Ok(())
    }

    /// Notes the result of one of its matches.
    fn record_result(&mut self, match_id: &str, finished: pb::MatchFinished) {
        self.pending.remove(match_id);
        let ranks: Vec<(BotId, u8)> = finished
            .placements
            .iter()
            .filter_map(|p| {
                let no = parse_id(&p.bot.as_ref()?.bot_id)?;
                Some((BotId(no), p.rank.min(u32::from(u8::MAX)) as u8))
            })
            .collect();
        if !ranks.is_empty() {
            self.standings.record_game(&ranks);
        }
        self.results.push(finished);
    }

    /// Whether entry closed and its schedule was drawn.
    pub(in crate::arena) fn has_started(&self) -> bool {
        self.started
    }

    fn is_over(&self) -> bool {
        self.started && self.round >= self.rounds_total && self.pending.is_empty()
    }

    fn format(&self) -> Format {
        format_of(&self.settings)
    }

    fn status(&self) -> pb::TournamentStatus {
        if self.cancelled {
            pb::TournamentStatus::Cancelled
        } else if self.record.finished_unix_ms.is_some() {
            pb::TournamentStatus::Finished
        } else if self.started {
            pb::TournamentStatus::Running
        } else {
            pb::TournamentStatus::Open
        }
    }
}

/// The schedule's format of `settings`.
fn format_of(settings: &pb::CreateTournamentRequest) -> Format {
    use pb::create_tournament_request::Format as F;
    match &settings.format {
        Some(F::Swiss(s)) => Format::Swiss { rounds: s.rounds },
        Some(F::Gauntlet(g)) => Format::Gauntlet {
            opponent: BotId(parse_id(&g.opponent).unwrap_or_default()),
        },
        Some(F::RoundRobin(r)) => Format::RoundRobin {
            games_per_group: r.games_per_group.max(1),
        },
        None => Format::RoundRobin { games_per_group: 1 },
    }
}

impl Arena {
    /// The standings of `t`, with a fit of its own matches for the
    /// intervals (computed again only after a change).
    fn standings(&self, t: &Tourney) -> Vec<pb::Standing> {
        let key: Counts = (t.results.len(), t.entrants.len(), t.byes.len());
        let mut shown = t.shown.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, standings)) = shown.as_ref()
            && *at == key
        {
            return standings.clone();
        }
        let standings = self.compute_standings(t);
        *shown = Some((key, standings.clone()));
        standings
    }

    fn compute_standings(&self, t: &Tourney) -> Vec<pb::Standing> {
        let mut fit_input = FitInput::new();
        for r in &t.results {
            let players: Vec<_> = r
                .placements
                .iter()
                .filter_map(|p| {
                    Some((
                        druids_arena::ratings::BotId(parse_id(&p.bot.as_ref()?.bot_id)?),
                        p.rank,
                    ))
                })
                .collect();
            if let Ok(result) = GameResult::new(players) {
                fit_input.add(&result);
            }
        }
        let fit = fit_input.fit(&FitConfig::default()).ok();
        let strength = |bot: BotId| {
            fit.as_ref()
                .and_then(|f| f.get(druids_arena::ratings::BotId(bot.0)))
                .map(|f| f.display())
        };
        let bots = self.bots();
        let mut table: Vec<(BotId, f64, Option<f64>)> = t
            .standings
            .table()
            .into_iter()
            .map(|(bot, points)| (bot, points, strength(bot).map(|d| d.value)))
            .collect();
        for &e in &t.entrants {
            if !table.iter().any(|(b, ..)| b.0 == e) {
                table.push((BotId(e), 0.0, strength(BotId(e)).map(|d| d.value)));
            }
        }
        let ranks = tie_broken_ranks(&mut table);
        table
            .iter()
            .zip(ranks)
            .map(|(&(bot, points, _), rank)| pb::Standing {
                rank,
                bot: Some(bots.reference(bot.0)),
                points,
                matches: t
                    .results
                    .iter()
                    .filter(|r| {
                        r.placements
                            .iter()
                            .any(|p| p.bot.as_ref().is_some_and(|b| b.bot_id == public_id(bot.0)))
                    })
                    .count() as u32,
                strength: strength(bot).map(|d| pb::FittedStrength {
                    strength: d.value,
                    low: d.low,
                    high: d.high,
                }),
            })
            .collect()
    }

    /// A tournament's line of ListTournaments.
    fn summary(&self, t: &Tourney) -> pb::TournamentSummary {
        let leader = if t.results.is_empty() {
            None
        } else {
            self.standings(t).into_iter().next().and_then(|s| s.bot)
        };
        pb::TournamentSummary {
            tournament_id: t.record.id.clone(),
            name: t.settings.name.clone(),
            kind: t.kind.number(),
            players: u32::from(t.k),
            status: t.status() as i32,
            rounds_started: t.round,
            rounds_total: t.rounds_total,
            entrants: t.entrants.len() as u32,
            leader,
            created_unix_ms: t.record.created_unix_ms,
        }
    }

    /// A tournament as the contract shows it.
    fn view(&self, t: &Tourney) -> pb::Tournament {
        let standings = self.standings(t);
        let entrants = {
            let bots = self.bots();
            t.entrants.iter().map(|&b| bots.reference(b)).collect()
        };
        pb::Tournament {
            tournament_id: t.record.id.clone(),
            name: t.settings.name.clone(),
            kind: t.kind.number(),
            players: u32::from(t.k),
            settings: Some(t.settings.clone()),
            status: t.status() as i32,
            rounds_started: t.round,
            rounds_total: t.rounds_total,
            standings,
            results: t.results.clone(),
            created_unix_ms: t.record.created_unix_ms,
            entrants,
            entry_closes_unix_ms: t.closes_ms.unwrap_or(0),
        }
    }
}

/// Sorts a tournament's table (bot, points, strength in the tournament's own
/// fit) and gives each row its rank. The tie-break, as arena.proto's
/// `Standing.rank` documents it: more points first; equal points, the
/// stronger in the fit of the tournament's matches first (it weighs whom
/// each beat and lost to, as Buchholz or Sonneborn-Berger scores do for
/// chess); still equal, a shared rank (listed by bot id).
fn tie_broken_ranks(table: &mut [(BotId, f64, Option<f64>)]) -> Vec<u32> {
    let strength = |s: Option<f64>| s.unwrap_or(f64::NEG_INFINITY);
    table.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(strength(b.2).total_cmp(&strength(a.2)))
            .then(a.0.cmp(&b.0))
    });
    let mut ranks: Vec<u32> = Vec::with_capacity(table.len());
    for i in 0..table.len() {
        let tied = i > 0 && {
            let (prev, this) = (&table[i - 1], &table[i]);
            prev.1 == this.1 && strength(prev.2) == strength(this.2)
        };
        ranks.push(if tied { ranks[i - 1] } else { i as u32 + 1 });
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_in_points_go_to_the_stronger_in_the_fit_else_share_the_rank() {
        let mut table = vec![
            (BotId(4), 1.0, Some(1450.0)),
            (BotId(3), 2.0, Some(1400.0)),
            (BotId(2), 2.0, Some(1600.0)),
            (BotId(1), 1.0, Some(1450.0)),
            (BotId(5), 0.0, None),
        ];
        let ranks = tie_broken_ranks(&mut table);
        let order: Vec<u64> = table.iter().map(|r| r.0.0).collect();
        assert_eq!(order, [2, 3, 1, 4, 5]);
        assert_eq!(ranks, [1, 2, 3, 3, 5]);
    }
}
