//! What the ladder's pages read beyond leaderboards and profiles: a bot's
//! rating history in one pool (from its event log, where every rated
//! match's change is kept) and the arena's tags of the games of the matches
//! being played (for `ListGames`' filters).

use std::collections::HashMap;

use druids_contract::pb;

use super::Arena;
use super::accounts::bot_no;
use super::bots::public_id;
use crate::bounds::arena::check_players;
use crate::error::ServiceError;
use crate::store::MatchTag;

/// Points of a rating-history page when the request does not say.
const DEFAULT_POINTS: usize = 100;
/// Most points of a rating-history page.
const MAX_POINTS: usize = 500;
/// Most events of a bot's log one page reads: a page of a pool the bot
/// rarely plays may hold fewer points than asked, and a token to read on.
const EVENTS_PER_PAGE: usize = 2_000;

impl Arena {
    /// GetRatingHistory. Blocks on the store.
    pub fn rating_history(
        &self,
        req: &pb::GetRatingHistoryRequest,
    ) -> Result<pb::GetRatingHistoryResponse, ServiceError> {
        let bot = bot_no(&req.bot_id)?;
        let kind = self.lobby.catalog().parse(req.kind)?;
        check_players(kind, req.players, "players")?;
        if self.bots().get(bot).is_none() {
            return Err(ServiceError::BotNotFound(public_id(bot)));
        }
        let size = match req.page_size as usize {
            0 => DEFAULT_POINTS,
            n => n.min(MAX_POINTS),
        };
        let prefix = format!("v1.{}.{}.", kind.number(), req.players);
        let from = if req.page_token.is_empty() {
            1
        } else {
            req.page_token
                .strip_prefix(&prefix)
                .and_then(|seq| seq.parse::<u64>().ok().filter(|n| n.to_string() == seq))
                .ok_or_else(|| {
                    ServiceError::invalid(
                        "page_token",
                        "page_token is not a next_page_token of this pool's history",
                    )
                })?
        };
        let events = self.events_from(bot, from, EVENTS_PER_PAGE)?;
        let mut points = Vec::new();
        let mut next = None;
        for event in &events {
            let Some(pb::bot_event::Event::RatingChanged(change)) = &event.event else {
                continue;
            };
            if change.kind != kind.number() || change.players != req.players {
                continue;
            }
            points.push(pb::RatingPoint {
                match_id: change.match_id.clone(),
                at_unix_ms: event.at_unix_ms,
                before: change.before,
                after: change.after,
            });
            if points.len() == size {
                next = Some(event.seq + 1);
                break;
            }
        }
        if next.is_none() && events.len() == EVENTS_PER_PAGE {
            next = events.last().map(|e| e.seq + 1);
        }
        Ok(pb::GetRatingHistoryResponse {
            points,
            next_page_token: next.map_or_else(String::new, |seq| format!("{prefix}{seq}")),
        })
    }

    /// The tag of every game of the matches being played, by game id.
    pub fn match_tags(&self) -> HashMap<String, MatchTag> {
        let st = self.state();
        let mut tags = HashMap::new();
        for run in st.matches.values() {
            let tag = MatchTag::of(&run.record);
            for id in &run.game_ids {
                tags.insert(id.clone(), tag.clone());
            }
        }
        tags
    }
}
