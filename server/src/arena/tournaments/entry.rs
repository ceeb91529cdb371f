//! Creating a tournament (its request checked in full before anything is
//! stored), joining one with open entry, and reading them: ListTournaments,
//! GetTournament and a tournament's event log.

use druids_contract::pb;
use druids_contract::pb::create_tournament_request::Format as F;
use prost::Message;

use super::Tourney;
use crate::arena::bots::{BotNo, parse_id};
use crate::arena::{Arena, events};
use crate::auth::TokenHash;
use crate::bounds::Checked;
use crate::config::Registration;
use crate::error::{ServiceError, clip};
use crate::store::{EventLog, TournamentRecord};

/// Tournaments of a ListTournaments page when the request does not say.
const DEFAULT_LIST_PAGE: usize = 50;
/// Most tournaments of a ListTournaments page.
const MAX_LIST_PAGE: usize = 200;

impl Arena {
    /// CreateTournament with bearer `token`. Blocks on the store, without
    /// the arena's lock.
    pub fn create_tournament(
        &self,
        req: &Checked<pb::CreateTournamentRequest>,
        token: Option<&TokenHash>,
    ) -> Result<pb::CreateTournamentResponse, ServiceError> {
        let now = self.clock.now_ms();
        let mut st = self.state();
        let creator = if self.is_operator(token) {
            None
        } else {
            // Any bot may run one on an open server; else only the operator.
            if self.settings.registration == Registration::Closed {
                return Err(ServiceError::TournamentsByOperator);
            }
            let bot = self.bot_of(token)?;
            self.check_consent(req, bot)?;
            let per_hour = self.settings.bot_tournaments_per_hour;
            st.created_tournaments
                .entry(bot)
                .or_default()
                .check(per_hour, now, || {
                    format!("a bot may create {per_hour} tournaments an hour")
                })?;
            Some(bot)
        };
        self.check_tournament(req)?;
        let record = TournamentRecord {
            id: format!("{:016x}", rand::random::<u64>()),
            settings: req.encode_to_vec(),
            created_unix_ms: now,
            finished_unix_ms: None,
        };
        let mut tourney = Tourney::new(record.clone())?;
        if req.open_entry.is_none() {
            tourney
                .seal()
                .map_err(|why| ServiceError::invalid("entrants", why))?;
        }
        // Counted now and stored without the lock; a creation that cannot
        // be stored spends no quota.
        if let Some(bot) = creator {
            st.created_tournaments.entry(bot).or_default().spend(now);
        }
        drop(st);
        let stored = self.store.create_tournament(&record);
        let mut st = self.state();
        if let Err(e) = stored {
            if let Some(quota) = creator.and_then(|bot| st.created_tournaments.get_mut(&bot)) {
                quota.give_back(now);
            }
            return Err(e.into());
        }
        tracing::info!(tournament_id = %record.id, rounds = tourney.rounds_total, "tournament created");
        if tourney.started {
            self.log_start(&tourney, now);
        }
        let view = self.view(&tourney);
        st.tournaments.insert(record.id.clone(), tourney);
        Ok(pb::CreateTournamentResponse {
            tournament: Some(view),
        })
    }

    /// What a bot's own tournament may not do (docs/ratings.md, "Cheap
    /// identities"): enter a bot but itself without its consent (the others
    /// join with JoinTournament during open entry; the operator names
    /// entrants), name a gauntlet's fixed opponent other than itself (it
    /// plays every match), or be rated (a rated tournament is the
    /// operator's, as a bot's rated matches come from matchmaking or from
    /// challenges between established bots).
    fn check_consent(
        &self,
        req: &pb::CreateTournamentRequest,
        bot: BotNo,
    ) -> Result<(), ServiceError> {
        if req.rated {
            return Err(ServiceError::OperatorKeyRequired("a rated tournament"));
        }
        let someone_else = |id: &str| parse_id(id) != Some(bot);
        if req.entrants.iter().any(|id| someone_else(id)) {
            return Err(ServiceError::OperatorKeyRequired("naming the entrants"));
        }
        if let Some(F::Gauntlet(g)) = &req.format
            && someone_else(&g.opponent)
        {
            return Err(ServiceError::OperatorKeyRequired(
                "naming the gauntlet's opponent",
            ));
        }
        Ok(())
    }

    /// Checks that a CreateTournament request within its bounds names bots
    /// that may play, each once, and a gauntlet opponent that is not an
    /// entrant (what only the draw can tell waits for it, with open entry).
    fn check_tournament(&self, req: &pb::CreateTournamentRequest) -> Result<(), ServiceError> {
        let bots = self.bots();
        let mut named: Vec<BotNo> = Vec::new();
        for id in &req.entrants {
            let no = bots.playable(id, "entrants")?;
            if named.contains(&no) {
                return Err(ServiceError::invalid(
                    "entrants",
                    format!("bot {} is entered twice", clip(id)),
                ));
            }
            named.push(no);
        }
        if let Some(F::Gauntlet(g)) = &req.format {
            let opponent = bots.playable(&g.opponent, "format")?;
            if named.contains(&opponent) {
                return Err(ServiceError::invalid(
                    "format",
                    "the gauntlet's opponent cannot also be an entrant",
                ));
            }
        }
        Ok(())
    }

    /// JoinTournament from bot `bot`. Blocks on the store, without the
    /// arena's lock.
    pub fn join_tournament(
        &self,
        bot: BotNo,
        req: &pb::JoinTournamentRequest,
    ) -> Result<pb::JoinTournamentResponse, ServiceError> {
        let now = self.clock.now_ms();
        let mut st = self.state();
        // This bot's entry, if being recorded already, is told first.
        st.wait_while(|st| {
            (st.tournaments.get(&req.tournament_id)).is_some_and(|t| t.joining.contains(&bot))
        });
        let id = clip(&req.tournament_id);
        let t = st
            .tournaments
            .get_mut(&req.tournament_id)
            .ok_or_else(|| ServiceError::TournamentNotFound(id.clone()))?;
        let closed = |why| ServiceError::EntryClosed {
            id: id.clone(),
            why,
        };
        let Some(closes) = t.closes_ms else {
            return Err(closed("it has no open entry"));
        };
        if !t.entrants.contains(&bot) {
            if t.started || t.cancelled || now >= closes {
                return Err(closed("its entry has closed"));
            }
            if t.entrants.len() + t.joining.len() >= t.max_entrants {
                return Err(closed("it is full"));
            }
            if let Some(F::Gauntlet(g)) = &t.settings.format
                && parse_id(&g.opponent) == Some(bot)
            {
                return Err(ServiceError::invalid(
                    "tournament_id",
                    "the gauntlet's fixed opponent cannot enter it",
                ));
            }
            let joined = pb::tournament_event::Event::EntrantJoined(self.bots().reference(bot));
            // The event is the record of the entry: stored (without the
            // lock) before it counts, and after what the log was told
            // before it.
            t.joining.push(bot);
            drop(st);
            self.deliver();
            let stored = (self.tournament_events).append(
                self.store.as_ref(),
                &req.tournament_id,
                now,
                joined,
            );
            st = self.state();
            if let Some(t) = st.tournaments.get_mut(&req.tournament_id) {
                t.joining.retain(|&b| b != bot);
                if stored.is_ok() {
                    t.entrants.push(bot);
                }
            }
            self.done_recording();
            stored?;
        }
        let t = st
            .tournaments
            .get(&req.tournament_id)
            .ok_or_else(|| ServiceError::TournamentNotFound(id.clone()))?;
        Ok(pb::JoinTournamentResponse {
            tournament: Some(self.view(t)),
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

    /// ListTournaments: newest first, then by id; a page token is the last
    /// one's `created_unix_ms.id` after the status it filters by.
    pub fn list_tournaments(
        &self,
        req: &pb::ListTournamentsRequest,
    ) -> Result<pb::ListTournamentsResponse, ServiceError> {
        if pb::TournamentStatus::try_from(req.status).is_err() {
            return Err(ServiceError::invalid(
                "status",
                format!("status {} is not a TournamentStatus", req.status),
            ));
        }
        let size = match req.page_size as usize {
            0 => DEFAULT_LIST_PAGE,
            n => n.min(MAX_LIST_PAGE),
        };
        let prefix = format!("v1.{}.", req.status);
        let after = if req.page_token.is_empty() {
            None
        } else {
            let cursor = req
                .page_token
                .strip_prefix(&prefix)
                .and_then(|rest| rest.split_once('.'))
                .and_then(|(ms, id)| Some((ms.parse::<u64>().ok()?, id.to_owned())));
            Some(cursor.ok_or_else(|| {
                ServiceError::invalid(
                    "page_token",
                    "page_token is not a next_page_token of this query (same status)",
                )
            })?)
        };
        let st = self.state();
        // Newest first, ties by id (the order of ListGames).
        let mut rows: Vec<&Tourney> = st
            .tournaments
            .values()
            .filter(|t| req.status == 0 || t.status() as i32 == req.status)
            .filter(|t| {
                after.as_ref().is_none_or(|(ms, id)| {
                    let created = t.record.created_unix_ms;
                    created < *ms || (created == *ms && t.record.id > *id)
                })
            })
            .collect();
        rows.sort_by(|a, b| {
            b.record
                .created_unix_ms
                .cmp(&a.record.created_unix_ms)
                .then_with(|| a.record.id.cmp(&b.record.id))
        });
        let next_page_token = match rows.get(size) {
            Some(_) => {
                let last = &rows[size - 1].record;
                format!("{prefix}{}.{}", last.created_unix_ms, last.id)
            }
            None => String::new(),
        };
        Ok(pb::ListTournamentsResponse {
            tournaments: rows.iter().take(size).map(|t| self.summary(t)).collect(),
            next_page_token,
        })
    }

    /// A watch of tournament `id`'s last event seq, and whether the tournament is over (then its log is complete).
    pub fn watch_tournament(
        &self,
        id: &str,
    ) -> Result<(tokio::sync::watch::Receiver<u64>, bool), ServiceError> {
        // Under the state lock: a tournament ends and logs its end in one go.
        let st = self.state();
        let t = st
            .tournaments
            .get(id)
            .ok_or_else(|| ServiceError::TournamentNotFound(clip(id)))?;
        let over = t.record.finished_unix_ms.is_some();
        let watch = self.tournament_events.subscribe(self.store.as_ref(), id)?;
        Ok((watch, over))
    }

    /// Tournament `id`'s events from `from_seq` on (at most `limit`). Blocks.
    pub fn tournament_events_from(
        &self,
        id: &str,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<pb::TournamentEvent>, ServiceError> {
        let rows = self
            .store
            .events(EventLog::Tournament, id, from_seq.max(1), limit)?;
        Ok(events::decode(rows, "tournament")?)
    }
}
