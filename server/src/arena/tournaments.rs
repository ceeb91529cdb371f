//! Tournaments run by the server: a schedule (round-robin, Swiss, gauntlet:
//! `druids_arena::pairing::schedule`) played round by round as arena
//! matches. A round starts when the previous one is over. Everything is
//! derived from the store: the tournament's settings, and its matches (each
//! tagged with its tournament and round), so a restart resumes where it was;
//! a Swiss round's byes are the entrants missing from its matches.

use std::collections::HashSet;

use druids::pb;
use druids_arena::pairing::BotId;
use druids_arena::pairing::schedule::{self, Format, Game, Round, Standings};
use druids_arena::ratings::{FitConfig, FitInput, GameResult};
use prost::Message;

use super::bots::{BotNo, parse_id, public_id};
use super::{Arena, State, game_kind};
use crate::arena_store::{StoredMatch, TournamentRecord};
use crate::auth::TokenHash;
use crate::config::Registration;
use crate::error::{ServiceError, clip};

/// Most bytes of a tournament's name.
const MAX_NAME_BYTES: usize = 80;
/// Most Swiss rounds.
const MAX_ROUNDS: u32 = 100;

/// A tournament and how far it got.
pub struct Tourney {
    record: TournamentRecord,
    settings: pb::CreateTournamentRequest,
    kind: pb::GameKind,
    k: u8,
    entrants: Vec<BotNo>,
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
}

impl Tourney {
    /// Notes the result of one of its matches.
    pub fn record_result(&mut self, match_id: &str, finished: pb::MatchFinished) {
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

    fn is_over(&self) -> bool {
        self.round >= self.rounds_total && self.pending.is_empty()
    }

    fn format(&self) -> Format {
        format_of(&self.settings)
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

/// The tournament of `record`, before any result: its schedule.
fn plan(record: TournamentRecord) -> Result<Tourney, ServiceError> {
    let settings = pb::CreateTournamentRequest::decode(record.settings.as_slice())
        .map_err(|e| ServiceError::invalid("settings", format!("stored settings: {e}")))?;
    let kind = pb::GameKind::try_from(settings.kind).unwrap_or(pb::GameKind::Meduris);
    let k = settings.players as u8;
    let entrants: Vec<BotNo> = settings
        .entrants
        .iter()
        .filter_map(|e| parse_id(e))
        .collect();
    let ids: Vec<BotId> = entrants.iter().map(|&b| BotId(b)).collect();
    let format = format_of(&settings);
    let (schedule, rounds_total) = match format {
        Format::Swiss { rounds } => (Vec::new(), rounds),
        Format::Gauntlet { .. } => {
            let once = schedule::schedule(&format, &ids, k).map_err(invalid_schedule)?;
            let repeats = match &settings.format {
                Some(pb::create_tournament_request::Format::Gauntlet(g)) => g.games.max(1),
                _ => 1,
            };
            let all: Vec<Round> = (0..repeats).flat_map(|_| once.clone()).collect();
            let n = all.len() as u32;
            (all, n)
        }
        Format::RoundRobin { .. } => {
            let all = schedule::schedule(&format, &ids, k).map_err(invalid_schedule)?;
            let n = all.len() as u32;
            (all, n)
        }
    };
    Ok(Tourney {
        record,
        settings,
        kind,
        k,
        entrants,
        schedule,
        rounds_total,
        round: 0,
        pending: HashSet::new(),
        results: Vec::new(),
        standings: Standings::new(),
        history: Vec::new(),
        byes: Vec::new(),
    })
}

fn invalid_schedule(e: schedule::ScheduleError) -> ServiceError {
    ServiceError::invalid("format", e.to_string())
}

impl Arena {
    /// CreateTournament with bearer `token`. Blocks on the store.
    pub fn create_tournament(
        &self,
        req: &pb::CreateTournamentRequest,
        token: Option<&TokenHash>,
    ) -> Result<pb::CreateTournamentResponse, ServiceError> {
        let operator = self.is_operator(token);
        if !operator {
            // Any bot may run one on an open server; else only the operator.
            if self.settings.registration == Registration::Closed {
                return Err(ServiceError::RegistrationClosed);
            }
            self.bot_of(token)?;
        }
        if req.name.trim().is_empty() || req.name.len() > MAX_NAME_BYTES {
            return Err(ServiceError::invalid(
                "name",
                format!("name must be 1 to {MAX_NAME_BYTES} bytes"),
            ));
        }
        game_kind(req.kind)?;
        if !(2..=4).contains(&req.players) {
            return Err(ServiceError::invalid(
                "players",
                format!("players {}: tournaments have games of 2 to 4", req.players),
            ));
        }
        {
            let bots = self.bots();
            for id in &req.entrants {
                parse_id(id)
                    .filter(|no| bots.get(*no).is_some())
                    .ok_or_else(|| ServiceError::BotNotFound(clip(id)))?;
            }
            if let Some(pb::create_tournament_request::Format::Gauntlet(g)) = &req.format {
                parse_id(&g.opponent)
                    .filter(|no| bots.get(*no).is_some())
                    .ok_or_else(|| ServiceError::BotNotFound(clip(&g.opponent)))?;
            }
        }
        match &req.format {
            None => return Err(ServiceError::invalid("format", "a format is required")),
            Some(pb::create_tournament_request::Format::Swiss(s))
                if s.rounds == 0 || s.rounds > MAX_ROUNDS =>
            {
                return Err(ServiceError::invalid(
                    "format",
                    format!("a Swiss tournament has 1 to {MAX_ROUNDS} rounds"),
                ));
            }
            Some(pb::create_tournament_request::Format::Swiss(_)) => {
                // Checks entrants and players as the draw will.
                let ids: Vec<BotId> = req
                    .entrants
                    .iter()
                    .filter_map(|e| parse_id(e))
                    .map(BotId)
                    .collect();
                schedule::swiss_round(&ids, req.players as u8, &Standings::new(), &[], &[])
                    .map_err(invalid_schedule)?;
            }
            Some(_) => {}
        }
        let now = self.clock.now_ms();
        let record = TournamentRecord {
            id: format!("{:016x}", rand::random::<u64>()),
            settings: req.encode_to_vec(),
            created_unix_ms: now,
            finished_unix_ms: None,
        };
        let tourney = plan(record.clone())?;
        self.store.create_tournament(&record)?;
        tracing::info!(tournament_id = %record.id, rounds = tourney.rounds_total, "tournament created");
        let view = self.view(&tourney);
        self.state().tournaments.insert(record.id.clone(), tourney);
        Ok(pb::CreateTournamentResponse {
            tournament: Some(view),
        })
    }

    /// GetTournament.
    pub fn tournament(
        &self,
        req: &pb::GetTournamentRequest,
    ) -> Result<pb::GetTournamentResponse, ServiceError> {
        let st = self.state();
        let t = st
            .tournaments
            .get(&req.tournament_id)
            .ok_or_else(|| ServiceError::TournamentNotFound(clip(&req.tournament_id)))?;
        Ok(pb::GetTournamentResponse {
            tournament: Some(self.view(t)),
        })
    }

    /// A tournament as the contract shows it, with its standings and a fit
    /// of its own matches for the intervals.
    fn view(&self, t: &Tourney) -> pb::Tournament {
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
        let bots = self.bots();
        let mut table = t.standings.table();
        for &e in &t.entrants {
            if !table.iter().any(|(b, _)| b.0 == e) {
                table.push((BotId(e), 0.0));
            }
        }
        let standings = table
            .iter()
            .enumerate()
            .map(|(i, &(bot, points))| pb::Standing {
                rank: i as u32 + 1,
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
                strength: fit
                    .as_ref()
                    .and_then(|f| f.get(druids_arena::ratings::BotId(bot.0)))
                    .map(|f| {
                        let d = f.display();
                        pb::FittedStrength {
                            strength: d.value,
                            low: d.low,
                            high: d.high,
                        }
                    }),
            })
            .collect();
        pb::Tournament {
            tournament_id: t.record.id.clone(),
            name: t.settings.name.clone(),
            kind: t.kind as i32,
            players: u32::from(t.k),
            settings: Some(t.settings.clone()),
            status: if t.record.finished_unix_ms.is_some() {
                pb::TournamentStatus::Finished
            } else {
                pb::TournamentStatus::Running
            } as i32,
            rounds_started: t.round,
            rounds_total: t.rounds_total,
            standings,
            results: t.results.clone(),
            created_unix_ms: t.record.created_unix_ms,
            entrants: Vec::new(),
            entry_closes_unix_ms: 0,
        }
    }

    /// Starts the next round of every tournament whose round is over, and
    /// records the end of those with no round left.
    pub(super) fn run_tournaments(&self, st: &mut State, now: u64) {
        let ids: Vec<String> = st
            .tournaments
            .iter()
            .filter(|(_, t)| t.record.finished_unix_ms.is_none() && t.pending.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            let Some(t) = st.tournaments.get_mut(&id) else {
                continue;
            };
            if t.is_over() {
                match self.store.finish_tournament(&id, now) {
                    Ok(()) => {
                        t.record.finished_unix_ms = Some(now);
                        tracing::info!(tournament_id = %id, "tournament finished");
                    }
                    Err(e) => {
                        tracing::warn!(tournament_id = %id, "cannot record a tournament's end: {e}")
                    }
                }
                continue;
            }
            let round = t.round;
            let games = match t.format() {
                Format::Swiss { .. } => {
                    let ids: Vec<BotId> = t.entrants.iter().map(|&b| BotId(b)).collect();
                    match schedule::swiss_round(&ids, t.k, &t.standings, &t.history, &t.byes) {
                        Ok(drawn) => {
                            for &b in &drawn.byes {
                                t.standings.record_bye(b, t.k);
                                t.byes.push(b);
                            }
                            drawn.games
                        }
                        Err(e) => {
                            tracing::error!(tournament_id = %id, "cannot draw a Swiss round: {e}");
                            continue;
                        }
                    }
                }
                _ => t.schedule.get(round as usize).cloned().unwrap_or_default(),
            };
            let (kind, rated) = (t.kind, t.settings.rated);
            t.round += 1;
            t.history.extend(games.iter().cloned());
            for game in games {
                let bots: Vec<BotNo> = game.iter().map(|b| b.0).collect();
                let streams = vec![None; bots.len()];
                match self.begin_match(
                    st,
                    kind,
                    rated,
                    bots,
                    streams,
                    Some((id.clone(), round)),
                    now,
                ) {
                    Ok(match_id) => {
                        if let Some(t) = st.tournaments.get_mut(&id) {
                            t.pending.insert(match_id);
                        }
                    }
                    Err(e) => {
                        tracing::warn!(tournament_id = %id, "cannot start a tournament match: {e}")
                    }
                }
            }
        }
    }

    /// Rebuilds the stored tournaments from their settings and matches.
    pub(super) fn resume_tournaments(
        &self,
        stored: Vec<TournamentRecord>,
        matches: &[StoredMatch],
    ) {
        let mut st = self.state();
        for record in stored {
            let id = record.id.clone();
            let mut t = match plan(record) {
                Ok(t) => t,
                Err(e) => {
                    tracing::error!(tournament_id = %id, "a stored tournament does not load: {e}");
                    continue;
                }
            };
            let mut rounds: Vec<Vec<&StoredMatch>> = Vec::new();
            for m in matches {
                let Some((tid, round)) = &m.record.tournament else {
                    continue;
                };
                if *tid != id {
                    continue;
                }
                let r = *round as usize;
                if rounds.len() <= r {
                    rounds.resize(r + 1, Vec::new());
                }
                rounds[r].push(m);
            }
            t.round = rounds.len() as u32;
            let mut finished: Vec<&StoredMatch> = Vec::new();
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
                if matches!(t.format(), Format::Swiss { .. }) && (r as u32) < t.round {
                    for &e in &t.entrants {
                        if !seated.contains(&BotId(e)) {
                            t.byes.push(BotId(e));
                            t.standings.record_bye(BotId(e), t.k);
                        }
                    }
                }
            }
            finished.sort_by_key(|m| m.finished_unix_ms);
            for m in finished {
                let placements = m.placements.clone().unwrap_or_default();
                let message = self.finished_message(&m.record.id, &placements);
                t.record_result(&m.record.id, message);
            }
            st.tournaments.insert(id, t);
        }
    }
}
