//! Challenges: a bot names its opponents; each answers on its own; when all
//! accept the match starts like a formed one, a refusal or the expiry ends
//! it. Pending challenges live in memory only: they expire within minutes,
//! and a restart ends them (their bots may challenge again).

use std::collections::HashSet;

use druids::pb;

use super::bots::{BotNo, parse_id};
use super::{Arena, State, game_kind, quota};
use crate::error::{ServiceError, clip};

/// Expiry when the request does not say, seconds.
const DEFAULT_EXPIRY_SECS: u64 = 60;
/// Longest expiry, seconds.
const MAX_EXPIRY_SECS: u64 = 600;
/// An hour, ms: the challenge quota's window.
const HOUR_MS: u64 = 3_600_000;

/// A challenge waiting for answers.
pub struct Pending {
    info: pb::ChallengeInfo,
    kind: pb::GameKind,
    /// Challenger first, then the opponents: the first game's seat order.
    bots: Vec<BotNo>,
    accepted: HashSet<BotNo>,
}

impl Arena {
    /// Challenge from bot `from`. Blocks on the store (the opponents' event
    /// logs).
    pub fn challenge(
        &self,
        from: BotNo,
        req: &pb::ChallengeRequest,
    ) -> Result<pb::ChallengeResponse, ServiceError> {
        let kind = game_kind(req.kind)?;
        if req.opponents.is_empty() || req.opponents.len() > 3 {
            return Err(ServiceError::invalid(
                "opponents",
                format!(
                    "{} opponents: a challenge names 1 to 3",
                    req.opponents.len()
                ),
            ));
        }
        let mut bots = vec![from];
        {
            let known = self.bots();
            for id in &req.opponents {
                let no = parse_id(id)
                    .filter(|no| known.get(*no).is_some())
                    .ok_or_else(|| ServiceError::BotNotFound(clip(id)))?;
                if bots.contains(&no) {
                    return Err(ServiceError::invalid(
                        "opponents",
                        format!("bot {} is named twice, or is the challenger", clip(id)),
                    ));
                }
                bots.push(no);
            }
        }
        let secs = match u64::from(req.expires_in_secs) {
            0 => DEFAULT_EXPIRY_SECS,
            n => n.min(MAX_EXPIRY_SECS),
        };
        let now = self.clock.now_ms();
        let mut st = self.state();
        let sent = st.challenged.entry(from).or_default();
        while sent
            .front()
            .is_some_and(|&t| now.saturating_sub(t) >= HOUR_MS)
        {
            sent.pop_front();
        }
        if sent.len() >= self.settings.bot_challenges_per_hour as usize {
            return Err(quota(format!(
                "a bot may send {} challenges an hour",
                self.settings.bot_challenges_per_hour
            )));
        }
        sent.push_back(now);
        let info = {
            let known = self.bots();
            pb::ChallengeInfo {
                challenge_id: format!("{:016x}", rand::random::<u64>()),
                from: Some(known.reference(from)),
                opponents: bots[1..].iter().map(|&b| known.reference(b)).collect(),
                kind: kind as i32,
                rated: req.rated,
                expires_unix_ms: now + secs * 1000,
                time_control: None,
            }
        };
        for &bot in &bots[1..] {
            let event = pb::bot_event::Event::ChallengeReceived(info.clone());
            self.events.append(self.store.as_ref(), bot, now, event)?;
        }
        st.challenges.insert(
            info.challenge_id.clone(),
            Pending {
                info: info.clone(),
                kind,
                bots,
                accepted: HashSet::new(),
            },
        );
        Ok(pb::ChallengeResponse {
            challenge: Some(info),
        })
    }

    /// AnswerChallenge from bot `bot`. Blocks on the store.
    pub fn answer(
        &self,
        bot: BotNo,
        req: &pb::AnswerChallengeRequest,
    ) -> Result<pb::AnswerChallengeResponse, ServiceError> {
        let now = self.clock.now_ms();
        let mut st = self.state();
        let not_found = || ServiceError::ChallengeNotFound(clip(&req.challenge_id));
        let playing = st.playing.get(&bot).copied().unwrap_or(0);
        let pending = st
            .challenges
            .get_mut(&req.challenge_id)
            .ok_or_else(not_found)?;
        if !pending.bots[1..].contains(&bot) {
            return Err(not_found());
        }
        if !req.accept {
            let name = self.bots().reference(bot).name;
            let pending = st
                .challenges
                .remove(&req.challenge_id)
                .ok_or_else(not_found)?;
            self.end(&pending, &format!("declined by {name}"), now);
            return Ok(pb::AnswerChallengeResponse::default());
        }
        if playing >= self.settings.bot_max_games {
            return Err(quota(format!(
                "a bot may play {} matches at once",
                self.settings.bot_max_games
            )));
        }
        pending.accepted.insert(bot);
        if pending.accepted.len() + 1 < pending.bots.len() {
            return Ok(pb::AnswerChallengeResponse::default());
        }
        let pending = st
            .challenges
            .remove(&req.challenge_id)
            .ok_or_else(not_found)?;
        let streams = vec![None; pending.bots.len()];
        let match_id = self.begin_match(
            &mut st,
            pending.kind,
            pending.info.rated,
            pending.bots,
            streams,
            None,
            now,
        )?;
        Ok(pb::AnswerChallengeResponse { match_id })
    }

    /// Ends the challenges past their expiry.
    pub(super) fn expire_challenges(&self, st: &mut State, now: u64) {
        let expired: Vec<String> = st
            .challenges
            .iter()
            .filter(|(_, p)| p.info.expires_unix_ms <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            if let Some(pending) = st.challenges.remove(&id) {
                self.end(&pending, "expired", now);
            }
        }
    }

    /// Tells a challenge's bots that it ended without a match.
    fn end(&self, pending: &Pending, reason: &str, now: u64) {
        for &bot in &pending.bots {
            let event = pb::bot_event::Event::ChallengeEnded(pb::ChallengeEnded {
                challenge_id: pending.info.challenge_id.clone(),
                reason: reason.to_owned(),
            });
            if let Err(e) = self.events.append(self.store.as_ref(), bot, now, event) {
                tracing::warn!("cannot record a bot event: {e}");
            }
        }
    }
}
