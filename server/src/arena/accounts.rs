//! What the arena answers about bots: registration and key rotation, the
//! leaderboards and a bot's profile. Calls that write block on the store.

use std::net::IpAddr;

use druids_contract::pb;

use super::bots::{self, BotNo, check_registration, new_key, parse_id, public_id};
use super::ratings::{Row, rating};
use super::{Arena, State};
use crate::auth::TokenHash;
use crate::bounds::Checked;
use crate::config::{ArenaSettings, Registration};
use crate::error::{ServiceError, clip};
use crate::store::{BotRecord, EventLog};

/// Entries of a leaderboard page when the request does not say.
const DEFAULT_PAGE: usize = 50;
/// Most entries of a leaderboard page.
const MAX_PAGE: usize = 500;

/// Whether `token` is the operator key of `settings`.
pub(super) fn is_operator_key(settings: &ArenaSettings, token: Option<&TokenHash>) -> bool {
    settings
        .operator_key
        .as_deref()
        .zip(token)
        .is_some_and(|(key, token)| TokenHash::of(key).matches(token))
}

/// Whether `settings` admit a RegisterBot with bearer `token`: true for the
/// operator key. Checked by the node a call reaches and again by the arena's
/// holder, so that a node started with `--registration closed` refuses
/// whatever the holder's setting.
pub fn admits_registration(
    settings: &ArenaSettings,
    token: Option<&TokenHash>,
) -> Result<bool, ServiceError> {
    let operator = is_operator_key(settings, token);
    // A bearer is sent only to register as the operator: on an open server
    // a wrong one is a mistake to be told of, not an anonymous registration
    // (a closed server refuses it as REGISTRATION_CLOSED).
    if token.is_some() && !operator && settings.registration == Registration::Open {
        return Err(ServiceError::NotOperatorKey(match settings.operator_key {
            None => "this server was started without --operator-key; send no bearer to register",
            Some(_) => "registration is open: send no bearer to register without it",
        }));
    }
    if settings.registration == Registration::Closed && !operator {
        return Err(ServiceError::RegistrationClosed);
    }
    Ok(operator)
}

impl Arena {
    /// RegisterBot from `peer`, with bearer `token` (the operator key, when
    /// registration is closed).
    pub fn register(
        &self,
        req: &pb::RegisterBotRequest,
        peer: Option<IpAddr>,
        token: Option<&TokenHash>,
    ) -> Result<pb::RegisterBotResponse, ServiceError> {
        let operator = admits_registration(&self.settings, token)?;
        check_registration(req)?;
        let now = self.clock.now_ms();
        // The name is taken and the quota spent under the state's lock, so
        // two look-alike names never both pass; the store records the bot
        // without it, and a registration that is not made gives both back.
        let mut st = self.state();
        if !operator {
            let per_hour = self.settings.registrations_per_hour;
            st.registrations
                .entry(peer)
                .or_default()
                .check(per_hour, now, || {
                    format!("an address may register {per_hour} bots an hour")
                })?;
        }
        let name = bots::name_key(&req.name);
        if self.bots().name_taken(&req.name) || st.registering.contains(&name) {
            return Err(ServiceError::BotNameTaken(clip(&req.name)));
        }
        let no: BotNo = rand::random();
        let (key, key_hash) = new_key();
        let record = BotRecord {
            id: public_id(no),
            name: req.name.clone(),
            description: req.description.clone(),
            owner_contact: req.owner_contact.clone(),
            key_hash,
            registered_unix_ms: now,
            revoked_unix_ms: None,
        };
        st.registering.insert(name.clone());
        if !operator {
            st.registrations.entry(peer).or_default().spend(now);
        }
        drop(st);
        let stored = self.store.register_bot(&record);
        let mut st = self.state();
        st.registering.remove(&name);
        match stored {
            Ok(true) => {}
            refused => {
                if !operator && let Some(quota) = st.registrations.get_mut(&peer) {
                    quota.give_back(now);
                }
                refused?;
                return Err(ServiceError::BotNameTaken(clip(&req.name)));
            }
        }
        tracing::info!(bot_id = %record.id, name = %clip(&record.name), "bot registered");
        self.bots
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(record);
        Ok(pb::RegisterBotResponse {
            bot_id: public_id(no),
            api_key: key,
        })
    }

    /// The bot call `what` acts on, with bearer `token`: with `bot_id`
    /// empty, the caller; else that bot, which needs the operator key (or,
    /// with `own_key_will_do`, that bot's own key).
    fn target(
        &self,
        bot_id: &str,
        token: Option<&TokenHash>,
        what: &'static str,
        own_key_will_do: bool,
    ) -> Result<BotNo, ServiceError> {
        if bot_id.is_empty() {
            return self.bot_of(token);
        }
        let no = bot_no(bot_id)?;
        if !self.is_operator(token) {
            // No key, or one that is not (any more) a bot's: UNAUTHENTICATED.
            let caller = self.bot_of(token).map_err(|_| ServiceError::KeyRefused {
                what,
                own_key_will_do,
                sent: token.is_some(),
            })?;
            if !(own_key_will_do && caller == no) {
                return Err(ServiceError::OperatorKeyRequired(what));
            }
        }
        if self.bots().get(no).is_none() {
            return Err(ServiceError::BotNotFound(clip(bot_id)));
        }
        Ok(no)
    }

    /// Refuses call `what` on a house bot this server plays: its player
    /// holds the key in memory, so a new key or none would leave the house
    /// calling the bot into games it can no longer play.
    fn not_house(&self, bot: BotNo, what: &'static str) -> Result<(), ServiceError> {
        if self.is_house(bot) {
            return Err(ServiceError::HouseBot(what));
        }
        Ok(())
    }

    /// RotateBotKey with bearer `token`: the new key. Blocks on the store.
    pub fn rotate_key(
        &self,
        req: &pb::RotateBotKeyRequest,
        token: Option<&TokenHash>,
    ) -> Result<pb::RotateBotKeyResponse, ServiceError> {
        let bot = self.target(
            &req.bot_id,
            token,
            "RotateBotKey with a bot_id (empty bot_id: the calling bot's own)",
            false,
        )?;
        self.not_house(bot, "RotateBotKey")?;
        let (key, hash) = new_key();
        self.store.set_bot_key(&public_id(bot), &hash)?;
        self.bots
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .set_key(bot, hash);
        tracing::info!(bot_id = %public_id(bot), "bot key replaced");
        self.end_seeks_of(
            &mut self.state(),
            bot,
            "the bot's key was replaced: seek again with the new one",
        );
        Ok(pb::RotateBotKeyResponse { api_key: key })
    }

    /// Ends the Seek streams of bot `bot`, opened with a key that stopped
    /// working (`why`): those waiting in the pool (their seeks cancelled)
    /// and those following a match (the match goes on; the bot's event log
    /// tells it).
    fn end_seeks_of(&self, st: &mut State, bot: BotNo, why: &'static str) {
        let ended: tonic::Status = ServiceError::BotKeyUnknown(why).into();
        let seeks: Vec<_> = st
            .seeks
            .iter()
            .filter(|(_, s)| s.bot == bot)
            .map(|(&id, _)| id)
            .collect();
        for id in seeks {
            st.pool.remove(id);
            if let Some(seeker) = st.seeks.remove(&id) {
                let _ = seeker.tx.try_send(Err(ended.clone()));
            }
        }
        for run in st.matches.values_mut() {
            let mine = run.bots.iter().position(|&b| b == bot);
            if let Some(tx) = mine.and_then(|i| run.streams.get_mut(i)?.take()) {
                let _ = tx.try_send(Err(ended.clone()));
            }
        }
    }

    /// RevokeBot with bearer `token`. Blocks on the store.
    pub fn revoke(
        &self,
        req: &pb::RevokeBotRequest,
        token: Option<&TokenHash>,
    ) -> Result<pb::RevokeBotResponse, ServiceError> {
        let bot = self.target(&req.bot_id, token, "RevokeBot of another bot", true)?;
        self.not_house(bot, "RevokeBot")?;
        let now = self.clock.now_ms();
        self.store.revoke_bot(&public_id(bot), now)?;
        let at = self
            .bots
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .revoke(bot, now)
            .unwrap_or(now);
        tracing::info!(bot_id = %public_id(bot), "bot key revoked");
        let mut st = self.state();
        self.end_seeks_of(&mut st, bot, "the bot's key was revoked");
        self.end_challenges_of(&mut st, bot, now);
        for t in st.tournaments.values_mut().filter(|t| !t.has_started()) {
            self.drop_revoked(t);
        }
        Ok(pb::RevokeBotResponse {
            revoked_unix_ms: at,
        })
    }

    /// GetLeaderboard.
    pub fn leaderboard(
        &self,
        req: &Checked<pb::GetLeaderboardRequest>,
    ) -> Result<pb::GetLeaderboardResponse, ServiceError> {
        let kind = self.lobby.catalog().parse(req.kind)?;
        let size = match req.page_size as usize {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let board = self
            .state()
            .ratings
            .leaderboard((kind, req.players), self.established());
        let bots = self.bots();
        // Revoked bots are left off; their results stay in everyone's ratings.
        let rows: Vec<_> = board
            .rows
            .into_iter()
            .filter(|r| !bots.is_revoked(r.bot))
            .collect();
        let pages = Pages::of(kind.number(), req.players, &rows);
        let offset = pages.offset(&req.page_token)?;
        let entries = rows
            .iter()
            .enumerate()
            .skip(offset)
            .take(size)
            .map(|(i, row)| pb::LeaderboardEntry {
                rank: i as u32 + 1,
                bot: Some(bots.reference(row.bot)),
                rating: Some(rating(&row.rating)),
                fit: row.fit.as_ref().map(|(f, _)| *f),
                matches: row.rating.games,
                fit_matches: row.fit.as_ref().map_or(0, |(_, games)| *games as u32),
                provisional: row.provisional,
            })
            .collect();
        let next = offset + size;
        Ok(pb::GetLeaderboardResponse {
            entries,
            fitted_unix_ms: board.fitted_ms,
            results_since_fit: board.results_since_fit,
            next_fit_unix_ms: match (board.results_since_fit, board.fitted_ms) {
                (0, _) => 0,
                // A first fit runs on the next round.
                (_, 0) => self.clock.now_ms(),
                (_, at) => at.saturating_add(self.settings.fit_secs.saturating_mul(1000)),
            },
            next_page_token: if next < rows.len() {
                pages.token(next)
            } else {
                String::new()
            },
        })
    }

    /// GetBot of the bot `req` names.
    pub fn profile(&self, req: &pb::GetBotRequest) -> Result<pb::GetBotResponse, ServiceError> {
        self.profile_of(bot_no(&req.bot_id)?)
    }

    /// GetBot of the calling bot `no`, with the seq of its last event.
    /// Blocks on the store.
    pub fn own_profile(&self, no: BotNo) -> Result<pb::GetBotResponse, ServiceError> {
        let mut profile = self.profile_of(no)?;
        profile.last_event_seq = self.store.last_event(EventLog::Bot, &public_id(no))?;
        Ok(profile)
    }

    /// GetBot of bot `no`.
    pub fn profile_of(&self, no: BotNo) -> Result<pb::GetBotResponse, ServiceError> {
        // The state first, then the bots, as everywhere (a lock order).
        let (ratings, recent_matches) = {
            let st = self.state();
            let ratings: Vec<pb::PoolRating> = st
                .ratings
                .of_bot(no, self.established())
                .into_iter()
                .map(|((kind, players), row)| pb::PoolRating {
                    kind: kind.number(),
                    players,
                    rating: Some(rating(&row.rating)),
                    fit: row.fit.as_ref().map(|(f, _)| *f),
                    matches: row.rating.games,
                    provisional: row.provisional,
                })
                .collect();
            let recent = st
                .recent
                .get(&no)
                .map(|r| r.iter().cloned().collect())
                .unwrap_or_default();
            (ratings, recent)
        };
        let bots = self.bots();
        let bot = bots
            .get(no)
            .ok_or_else(|| ServiceError::BotNotFound(public_id(no)))?;
        Ok(pb::GetBotResponse {
            bot: Some(bots.reference(no)),
            revoked: bot.revoked_unix_ms.is_some(),
            description: bot.description.clone(),
            registered_unix_ms: bot.registered_unix_ms,
            ratings,
            recent_matches,
            last_event_seq: 0,
        })
    }

    /// Bot `bot`'s events from `from_seq` on (at most `limit`). Blocks.
    pub fn events_from(
        &self,
        bot: BotNo,
        from_seq: u64,
        limit: usize,
    ) -> Result<Vec<pb::BotEvent>, ServiceError> {
        let rows =
            self.store
                .events(EventLog::Bot, &bots::public_id(bot), from_seq.max(1), limit)?;
        Ok(super::events::decode(rows, "bot")?)
    }

    /// A watch of bot `bot`'s last event seq. Blocks.
    pub fn watch_events(
        &self,
        bot: BotNo,
    ) -> Result<tokio::sync::watch::Receiver<u64>, ServiceError> {
        Ok(self.events.subscribe(self.store.as_ref(), bot)?)
    }
}

/// The bot number of the public id in field `bot_id`.
pub(super) fn bot_no(id: &str) -> Result<BotNo, ServiceError> {
    crate::bounds::arena::check_id("bot_id", id)?;
    parse_id(id).ok_or_else(|| ServiceError::invalid("bot_id", "bot_id is not a bot's id"))
}

/// A leaderboard's pages: a token names where the next page starts in one
/// state of the board (a digest of every row), so that a reader walking the
/// pages while a result is rated is told to start again (`ABORTED`,
/// `STALE_PAGE_TOKEN`) rather than shown one bot twice and another never.
struct Pages {
    prefix: String,
    rows: usize,
    digest: u64,
}

impl Pages {
    fn of(kind: i32, players: u32, rows: &[Row]) -> Pages {
        use std::hash::{Hash, Hasher};
        // SipHash with fixed keys: the same rows give the same digest on
        // every node, so a page served by another holder still matches.
        let mut h = std::hash::DefaultHasher::new();
        for r in rows {
            r.bot.hash(&mut h);
            r.rating.mu.to_bits().hash(&mut h);
            r.rating.sigma.to_bits().hash(&mut h);
            r.rating.games.hash(&mut h);
            r.provisional.hash(&mut h);
            if let Some((fit, games)) = &r.fit {
                for x in [fit.strength, fit.low, fit.high] {
                    x.to_bits().hash(&mut h);
                }
                games.hash(&mut h);
            }
        }
        Pages {
            prefix: format!("v2.{kind}.{players}."),
            rows: rows.len(),
            digest: h.finish(),
        }
    }

    /// The token of the page starting at row `offset`.
    fn token(&self, offset: usize) -> String {
        self.token_of(offset, self.digest)
    }

    /// Where the page `token` names starts (0 for none).
    fn offset(&self, token: &str) -> Result<usize, ServiceError> {
        if token.is_empty() {
            return Ok(0);
        }
        let ours = token.strip_prefix(&self.prefix).and_then(|rest| {
            let (offset, digest) = rest.split_once('.')?;
            let offset: usize = offset.parse().ok()?;
            let digest = u64::from_str_radix(digest, 16).ok()?;
            // Only what `token` writes: no leading zeros, no sign.
            (self.token_of(offset, digest) == token).then_some((offset, digest))
        });
        match ours {
            Some((offset, digest)) if digest == self.digest && offset < self.rows => Ok(offset),
            Some((offset, digest)) if digest != self.digest && offset > 0 => {
                Err(ServiceError::StalePageToken(
                    "the leaderboard changed since the page that gave this page_token (a result \
                     was rated, a fit ran or a bot left): read it again from the first page"
                        .into(),
                ))
            }
            _ => Err(ServiceError::invalid(
                "page_token",
                "page_token is not a next_page_token of this leaderboard",
            )),
        }
    }

    fn token_of(&self, offset: usize, digest: u64) -> String {
        format!("{}{offset}.{digest:016x}", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use druids_arena::ratings::LiveRating;

    fn rows(mus: &[f64]) -> Vec<Row> {
        mus.iter()
            .enumerate()
            .map(|(i, &mu)| Row {
                bot: i as u64 + 1,
                rating: LiveRating {
                    mu,
                    sigma: 8.0,
                    games: 3,
                },
                fit: None,
                provisional: false,
            })
            .collect()
    }

    #[test]
    fn a_page_token_holds_while_the_board_does() {
        let board = rows(&[30.0, 28.0, 25.0, 20.0]);
        let pages = Pages::of(1, 2, &board);
        assert_eq!(pages.offset("").unwrap(), 0);
        let token = pages.token(2);
        assert_eq!(pages.offset(&token).unwrap(), 2);
        // The same board read again (another node, a restart): the same.
        assert_eq!(
            Pages::of(1, 2, &rows(&[30.0, 28.0, 25.0, 20.0]))
                .offset(&token)
                .unwrap(),
            2
        );
        // A result moved a rating: start again.
        let moved = Pages::of(1, 2, &rows(&[30.0, 28.0, 25.5, 20.0]));
        assert!(matches!(
            moved.offset(&token),
            Err(ServiceError::StalePageToken(_))
        ));
        // Another pool's token, a hand-made offset, the old format: not ours.
        let other = Pages::of(1, 3, &board);
        for bad in [
            other.token(2),
            format!("v2.1.2.02.{:016x}", pages.digest),
            pages.token(4),
            pages.token(100),
            "v1.1.2.2".to_string(),
            format!("{token}0"),
        ] {
            assert!(
                matches!(pages.offset(&bad), Err(ServiceError::Invalid { .. })),
                "{bad}"
            );
        }
    }
}
