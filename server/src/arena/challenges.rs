//! Challenges: a bot names its opponents; each answers on its own; when all
//! accept the match starts like a formed one, a refusal or the expiry ends
//! it. Pending challenges are stored with their acceptances, so a restart
//! keeps them; the match a challenge becomes has the challenge's id, so a
//! restart after the match was recorded does not revive the challenge.
//!
//! What a call decides about a challenge is decided under the arena's lock
//! and stored without it: meanwhile the challenge is marked as being
//! recorded, and other calls about it wait for that to end
//! ([`super::outbox::StateGuard::wait_while`]), so they see it as stored.

use std::collections::HashSet;

use druids_contract::{Kind, pb};
use prost::Message;

use super::bots::{BotNo, parse_id, public_id};
use super::matches::NewMatch;
use super::outbox::StateGuard;
use super::{Arena, State, quota};
use crate::bounds::Checked;
use crate::error::{ChallengeSide, ServiceError, clip};
use crate::store::{ChallengeRecord, StoreError, StoredMatch};

/// Expiry when the request does not say, seconds (the longest is
/// [`crate::bounds::arena::MAX_CHALLENGE_SECS`]).
const DEFAULT_EXPIRY_SECS: u64 = 60;

/// A challenge waiting for answers.
pub struct Pending {
    info: pb::ChallengeInfo,
    kind: Kind,
    /// Challenger first, then the opponents: the first game's seat order.
    bots: Vec<BotNo>,
    /// Opponents who accepted, in the order they did.
    accepted: Vec<BotNo>,
    /// A call is storing what it decided about it, without the lock:
    /// others about it wait, and the round leaves it be.
    recording: bool,
}

impl Pending {
    /// The challenge as the store keeps it.
    fn record(&self) -> ChallengeRecord {
        ChallengeRecord {
            id: self.info.challenge_id.clone(),
            info: self.info.encode_to_vec(),
            accepted: self.accepted.iter().map(|&b| public_id(b)).collect(),
        }
    }

    /// A stored challenge, if it reads as one.
    fn from_record(record: &ChallengeRecord) -> Option<Pending> {
        let info = pb::ChallengeInfo::decode(record.info.as_slice()).ok()?;
        let kind = Kind::from_number(info.kind).ok()?;
        let mut bots = vec![parse_id(&info.from.as_ref()?.bot_id)?];
        for o in &info.opponents {
            bots.push(parse_id(&o.bot_id)?);
        }
        let accepted = record.accepted.iter().filter_map(|a| parse_id(a)).collect();
        Some(Pending {
            info,
            kind,
            bots,
            accepted,
            recording: false,
        })
    }

    /// Whether bot `bot` is in it.
    pub fn involves(&self, bot: BotNo) -> bool {
        self.bots.contains(&bot)
    }
}

impl Arena {
    /// Challenge from bot `from`. Blocks on the store (the opponents' event
    /// logs), without the arena's lock.
    pub fn challenge(
        &self,
        from: BotNo,
        req: &Checked<pb::ChallengeRequest>,
    ) -> Result<pb::ChallengeResponse, ServiceError> {
        let kind = self.lobby.catalog().parse(req.kind)?;
        let mut bots = vec![from];
        {
            let known = self.bots();
            for id in &req.opponents {
                let no = known.playable(id, "opponents")?;
                if bots.contains(&no) {
                    return Err(ServiceError::invalid(
                        "opponents",
                        format!("bot {} is named twice, or is the challenger", clip(id)),
                    ));
                }
                bots.push(no);
            }
        }
        let clock = self.clock(req.time_control.as_ref());
        let secs = match u64::from(req.expires_in_secs) {
            0 => DEFAULT_EXPIRY_SECS,
            n => n,
        };
        let now = self.clock.now_ms();
        let mut st = self.state();
        let per_hour = self.settings.bot_challenges_per_hour;
        st.challenged
            .entry(from)
            .or_default()
            .check(per_hour, now, || {
                format!("a bot may send {per_hour} challenges an hour")
            })?;
        self.check_opponents_free(&st, from, &bots[1..])?;
        if req.rated {
            // Rated challenges are between established bots only: a fresh
            // identity cannot throw rated games (docs/ratings.md).
            let key = (kind, bots.len() as u32);
            let rule = self.established();
            let known = self.bots();
            if let Some(&b) = bots
                .iter()
                .find(|&&b| !st.ratings.established(key, b, rule))
            {
                return Err(ServiceError::NotEstablished(known.reference(b).name));
            }
        }
        // A pair past its rated matches of the day plays unrated: say so
        // now (the match plays as announced).
        let rated = req.rated && self.challenge_may_be_rated(&mut st, kind, &bots, now);
        let info = {
            let known = self.bots();
            pb::ChallengeInfo {
                challenge_id: format!("{:016x}", rand::random::<u64>()),
                from: Some(known.reference(from)),
                opponents: bots[1..].iter().map(|&b| known.reference(b)).collect(),
                kind: kind.number(),
                rated,
                expires_unix_ms: now + secs * 1000,
                time_control: Some(clock),
            }
        };
        // House bots accept at once, when they may play another match.
        let accepted: Vec<BotNo> = bots[1..]
            .iter()
            .copied()
            .filter(|&b| {
                self.is_house(b)
                    && st.playing.get(&b).copied().unwrap_or(0) < self.settings.bot_max_games
            })
            .collect();
        let pending = Pending {
            info: info.clone(),
            kind,
            bots,
            accepted,
            recording: false,
        };
        if pending.accepted.len() + 1 == pending.bots.len() {
            // Only house bots were challenged: the match starts now, if the
            // challenger has room for it.
            if let Some(busy) = self.busy(&st, &pending.bots[..1]) {
                return Err(busy);
            }
            let (mut st, started) = self.start_challenge(st, pending, now);
            if let Err(e) = started {
                st.challenges.remove(&info.challenge_id);
                return Err(e);
            }
            st.challenged.entry(from).or_default().spend(now);
            return Ok(pb::ChallengeResponse {
                challenge: Some(info),
            });
        }
        // Pending from now on (the limits count it), and being recorded: it
        // is stored and its opponents told without the lock; an answer from
        // one told waits until all are.
        let id = info.challenge_id.clone();
        let record = pending.record();
        let to_tell: Vec<BotNo> = (pending.bots[1..].iter())
            .copied()
            .filter(|b| !pending.accepted.contains(b))
            .collect();
        st.challenges.insert(
            id.clone(),
            Pending {
                recording: true,
                ..pending
            },
        );
        st.challenged.entry(from).or_default().spend(now);
        drop(st);
        let announced = self.store_and_tell(&record, &info, &to_tell, now);
        let mut st = self.state();
        if let Err(e) = announced {
            // Not stored, or not every opponent could be told: withdrawn,
            // and not counted.
            st.challenges.remove(&id);
            if let Some(quota) = st.challenged.get_mut(&from) {
                quota.give_back(now);
            }
            self.done_recording();
            drop(st);
            let _ = self.store.remove_challenge(&id);
            return Err(e.into());
        }
        self.recorded(&mut st, &id, now);
        Ok(pb::ChallengeResponse {
            challenge: Some(info),
        })
    }

    /// Stores a new challenge (`record`) and tells the opponents `to_tell`
    /// of it, in that order.
    fn store_and_tell(
        &self,
        record: &ChallengeRecord,
        info: &pb::ChallengeInfo,
        to_tell: &[BotNo],
        now: u64,
    ) -> Result<(), StoreError> {
        self.store.save_challenge(record)?;
        for &bot in to_tell {
            let event = pb::bot_event::Event::ChallengeReceived(info.clone());
            self.tell_now(bot, now, event)?;
        }
        Ok(())
    }

    /// Runs `write` (the store's part of a decision about challenge `id`)
    /// without the lock `st` holds; the challenge is marked as being
    /// recorded meanwhile. Returns the lock again, the mark still on: the
    /// caller ends it ([`Arena::recorded`], or removes the challenge and
    /// wakes the waiters).
    fn unlocked<'a>(
        &'a self,
        mut st: StateGuard<'a>,
        id: &str,
        write: impl FnOnce() -> Result<(), StoreError>,
    ) -> (StateGuard<'a>, Result<(), StoreError>) {
        if let Some(pending) = st.challenges.get_mut(id) {
            pending.recording = true;
        }
        drop(st);
        let written = write();
        (self.state(), written)
    }

    /// Ends challenge `id`'s recording and wakes the calls waiting on it.
    /// If a bot of it was revoked meanwhile (the revocation left it be),
    /// it ends now.
    fn recorded(&self, st: &mut State, id: &str, now: u64) {
        let Some(pending) = st.challenges.get_mut(id) else {
            return;
        };
        pending.recording = false;
        self.done_recording();
        let revoked = {
            let bots = self.bots();
            pending.bots.iter().copied().find(|&b| bots.is_revoked(b))
        };
        if let Some(bot) = revoked {
            let this = |p: &Pending| p.info.challenge_id == id;
            self.end_where(st, this, &Ending::Revoked { bot }, now);
        }
    }

    /// Waits, letting the lock go, until no call is recording challenge
    /// `id`.
    fn unless_recording(st: &mut StateGuard<'_>, id: &str) {
        st.wait_while(|st| st.challenges.get(id).is_some_and(|p| p.recording));
    }

    /// RESOURCE_EXHAUSTED naming the first of `bots` that plays as many
    /// matches at once as a bot may, if one does: a match of them cannot
    /// start now.
    fn busy(&self, st: &State, bots: &[BotNo]) -> Option<ServiceError> {
        let most = self.settings.bot_max_games;
        let busy = bots
            .iter()
            .find(|b| st.playing.get(b).copied().unwrap_or(0) >= most)?;
        let name = self.bots().reference(*busy).name;
        Some(quota(format!(
            "bot {} plays {most} matches at once already, the most a bot may: accept again once it has finished one",
            clip(&name)
        )))
    }

    /// LIMIT_REACHED if one of `opponents` has its fill of pending
    /// challenges, or one from `from` already: a crowd of challengers cannot
    /// flood a bot's event log.
    fn check_opponents_free(
        &self,
        st: &State,
        from: BotNo,
        opponents: &[BotNo],
    ) -> Result<(), ServiceError> {
        let most = self.settings.bot_max_pending_challenges as usize;
        for &bot in opponents {
            let mut received = st
                .challenges
                .values()
                .filter(|p| p.bots[1..].contains(&bot));
            let name = || self.bots().reference(bot).name;
            if received.clone().any(|p| p.bots[0] == from) {
                return Err(ServiceError::Limit(format!(
                    "bot {} has a pending challenge from this bot already",
                    clip(&name())
                )));
            }
            if received.by_ref().count() >= most {
                return Err(ServiceError::Limit(format!(
                    "bot {} has {most} pending challenges, the most a bot may have",
                    clip(&name())
                )));
            }
        }
        Ok(())
    }

    /// CancelChallenge from bot `bot`: its own pending challenge ends for
    /// everyone in it. Blocks on the store, without the arena's lock.
    pub fn cancel_challenge(
        &self,
        bot: BotNo,
        req: &pb::CancelChallengeRequest,
    ) -> Result<pb::CancelChallengeResponse, ServiceError> {
        let now = self.clock.now_ms();
        let id = &req.challenge_id;
        let mut st = self.state();
        Self::unless_recording(&mut st, id);
        let not_found = || ServiceError::ChallengeNotFound(clip(id), ChallengeSide::Sent);
        // Another bot's challenge is not found: its id tells this bot nothing.
        match st.challenges.get(id) {
            Some(pending) if pending.bots[0] == bot => {}
            _ => return Err(not_found()),
        }
        let ending = Ending::Cancelled { by: bot };
        self.forget(st, id, &ending, now)?;
        Ok(pb::CancelChallengeResponse {})
    }

    /// Ends pending challenge `id` as `ending` says: forgotten by the store
    /// without the lock `st` holds, then told to its bots. If the store
    /// cannot forget it, it stays pending.
    fn forget(
        &self,
        st: StateGuard<'_>,
        id: &str,
        ending: &Ending,
        now: u64,
    ) -> Result<(), StoreError> {
        let (mut st, forgotten) = self.unlocked(st, id, || self.store.remove_challenge(id));
        if let Err(e) = forgotten {
            self.recorded(&mut st, id, now);
            return Err(e);
        }
        let pending = st.challenges.remove(id);
        self.done_recording();
        if let Some(pending) = pending {
            self.end(&pending, ending, now);
        }
        Ok(())
    }

    /// AnswerChallenge from bot `bot`. Blocks on the store, without the
    /// arena's lock.
    pub fn answer(
        &self,
        bot: BotNo,
        req: &Checked<pb::AnswerChallengeRequest>,
    ) -> Result<pb::AnswerChallengeResponse, ServiceError> {
        let now = self.clock.now_ms();
        let id = &req.challenge_id;
        let mut st = self.state();
        Self::unless_recording(&mut st, id);
        let not_found =
            || ServiceError::ChallengeNotFound(clip(&req.challenge_id), ChallengeSide::Received);
        let playing = st.playing.get(&bot).copied().unwrap_or(0);
        let pending = st
            .challenges
            .get_mut(&req.challenge_id)
            .ok_or_else(not_found)?;
        if !pending.bots[1..].contains(&bot) {
            return Err(not_found());
        }
        if !req.accept {
            let ending = Ending::Declined {
                by: bot,
                reason: &req.reason,
            };
            self.forget(st, id, &ending, now)?;
            return Ok(pb::AnswerChallengeResponse::default());
        }
        if playing >= self.settings.bot_max_games {
            return Err(quota(format!(
                "a bot may play {} matches at once",
                self.settings.bot_max_games
            )));
        }
        if pending.accepted.contains(&bot) {
            return Ok(pb::AnswerChallengeResponse::default());
        }
        let last = pending.accepted.len() + 2 == pending.bots.len();
        // The match starts now: every bot of it must have room for it, the
        // challenger and those that accepted before too.
        let bots = pending.bots.clone();
        if last && let Some(busy) = self.busy(&st, &bots) {
            return Err(busy);
        }
        let Some(pending) = st.challenges.get_mut(&req.challenge_id) else {
            return Err(not_found());
        };
        if !last {
            // Not the last acceptance: stored, so a restart keeps it.
            pending.accepted.push(bot);
            let record = pending.record();
            let (mut st, saved) = self.unlocked(st, id, || self.store.save_challenge(&record));
            if saved.is_err()
                && let Some(pending) = st.challenges.get_mut(id)
            {
                pending.accepted.retain(|&b| b != bot);
            }
            self.recorded(&mut st, id, now);
            saved?;
            return Ok(pb::AnswerChallengeResponse::default());
        }
        let pending = st
            .challenges
            .remove(&req.challenge_id)
            .ok_or_else(not_found)?;
        let (st, started) = self.start_challenge(st, pending, now);
        drop(st);
        let match_id = started?;
        if let Err(e) = self.store.remove_challenge(&match_id) {
            // Harmless: at start-up a stored challenge whose match exists is dropped.
            tracing::warn!(challenge_id = %match_id, "cannot forget a challenge: {e}");
        }
        Ok(pb::AnswerChallengeResponse { match_id })
    }

    /// Starts the match of a challenge every opponent accepted; its house
    /// bots' games go to the house bots' player. The match is formed under
    /// the lock `st` holds, and recorded without it ([`Arena::open_alone`]):
    /// the challenge is no longer pending meanwhile, so no other call ends
    /// or answers it. On failure the challenge is pending again.
    fn start_challenge<'a>(
        &'a self,
        mut st: StateGuard<'a>,
        pending: Pending,
        now: u64,
    ) -> (StateGuard<'a>, Result<String, ServiceError>) {
        let new = NewMatch {
            id: Some(pending.info.challenge_id.clone()),
            kind: pending.kind,
            rated: pending.info.rated,
            bots: pending.bots.clone(),
            streams: self.house_streams(pending.kind, &pending.bots),
            tournament: None,
            clock: pending
                .info
                .time_control
                .unwrap_or_else(|| self.default_clock()),
        };
        let formed = self.form(&mut st, new, now);
        let (mut st, opened) = self.open_alone(st, formed, now);
        if opened.is_err() {
            st.challenges
                .insert(pending.info.challenge_id.clone(), pending);
        }
        (st, opened.map_err(ServiceError::from))
    }

    /// Ends the pending challenges bot `bot` is in: it was revoked.
    pub(super) fn end_challenges_of(&self, st: &mut State, bot: BotNo, now: u64) {
        self.end_where(st, |p| p.involves(bot), &Ending::Revoked { bot }, now);
    }

    /// Takes back the stored challenges, except those that became matches
    /// or have a revoked bot (the store forgets them: a crash came between
    /// their end and the store's).
    pub(super) fn resume_challenges(&self, stored: Vec<ChallengeRecord>, matches: &[StoredMatch]) {
        let formed: HashSet<&str> = matches.iter().map(|m| m.record.id.as_str()).collect();
        let revoked = |p: &Pending| {
            let bots = self.bots();
            p.bots.iter().any(|&b| bots.is_revoked(b))
        };
        let mut pending = Vec::new();
        for record in stored {
            let kept = if formed.contains(record.id.as_str()) {
                None
            } else if let Some(p) = Pending::from_record(&record) {
                Some(p).filter(|p| !revoked(p))
            } else {
                tracing::error!(challenge_id = %record.id, "a stored challenge does not load; skipped");
                continue;
            };
            match kept {
                Some(p) => pending.push((record.id, p)),
                None => {
                    if let Err(e) = self.store.remove_challenge(&record.id) {
                        tracing::warn!(challenge_id = %record.id, "cannot forget a challenge: {e}");
                    }
                }
            }
        }
        self.state().challenges.extend(pending);
    }

    /// Ends the challenges past their expiry.
    pub(super) fn expire_challenges(&self, st: &mut State, now: u64) {
        self.end_where(st, |p| p.info.expires_unix_ms <= now, &Ending::Expired, now);
    }

    /// Ends the pending challenges `which` picks, telling their bots how;
    /// the store forgets them once the lock is let go ([`super::outbox`]:
    /// a failure is logged; after a restart, the next round ends an expired
    /// one again, and the start forgets a revoked one). One being recorded
    /// is left to a later round, or to the call recording it
    /// ([`Arena::recorded`]).
    fn end_where(
        &self,
        st: &mut State,
        which: impl Fn(&Pending) -> bool,
        ending: &Ending,
        now: u64,
    ) {
        let ids: Vec<String> = st
            .challenges
            .iter()
            .filter(|(_, p)| !p.recording && which(p))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(pending) = st.challenges.remove(&id) {
                self.forget_later(&id);
                self.end(&pending, ending, now);
            }
        }
    }

    /// Tells a challenge's bots that it ended without a match, and how.
    fn end(&self, pending: &Pending, ending: &Ending, now: u64) {
        let ended = ending.event(self, &pending.info.challenge_id);
        for &bot in &pending.bots {
            let event = pb::bot_event::Event::ChallengeEnded(ended.clone());
            self.tell_later(bot, now, event, None);
        }
    }
}

/// How a challenge ended without a match.
enum Ending<'a> {
    /// Bot `by` declined it, saying `reason` (bounded by the request's
    /// check; may be empty).
    Declined { by: BotNo, reason: &'a str },
    /// Its challenger withdrew it.
    Cancelled { by: BotNo },
    /// Its expiry passed.
    Expired,
    /// Bot `bot` of it was revoked.
    Revoked { bot: BotNo },
}

impl Ending<'_> {
    /// The `challenge_ended` event its bots are told.
    fn event(&self, arena: &Arena, challenge_id: &str) -> pb::ChallengeEnded {
        use pb::ChallengeEndCause as C;
        let name = |b: BotNo| arena.bots().reference(b);
        let (cause, by, decline_reason) = match *self {
            Ending::Declined { by, reason } => (C::Declined, Some(name(by)), reason),
            Ending::Cancelled { by } => (C::Cancelled, Some(name(by)), ""),
            Ending::Expired => (C::Expired, None, ""),
            Ending::Revoked { bot } => (C::Revoked, Some(name(bot)), ""),
        };
        let who = by.as_ref().map(|b| b.name.as_str()).unwrap_or_default();
        let reason = match (cause, decline_reason) {
            (C::Declined, "") => format!("declined by {who}"),
            (C::Declined, said) => format!("declined by {who}: {said}"),
            (C::Cancelled, _) => format!("cancelled by {who}"),
            (C::Revoked, _) => format!("{who} was revoked"),
            _ => "expired".to_owned(),
        };
        pb::ChallengeEnded {
            challenge_id: challenge_id.to_owned(),
            reason,
            cause: cause as i32,
            by,
            decline_reason: decline_reason.to_owned(),
        }
    }
}
