//! What a bot reads before it seeks (`ListPools`): each pool's game and
//! player count, the turn clock of its games, how its rated matches are
//! played, the seeks open in it, and the matchmaking rules — the facts the
//! arena plays by, read from where they live (its settings, its pool's
//! windows), so the answer cannot drift from what a seek meets.

use druids_contract::pb;

use super::matches::match_games;
use super::{Arena, POINTS_PER_MU, POOL};
use crate::error::ServiceError;

impl Arena {
    /// ListPools.
    pub fn list_pools(
        &self,
        req: &pb::ListPoolsRequest,
    ) -> Result<pb::ListPoolsResponse, ServiceError> {
        let catalog = self.lobby.catalog();
        let kinds = match req.kind {
            0 => catalog.kinds().collect(),
            n => vec![catalog.parse(n)?],
        };
        let house_bot_ids = self.house_bot_ids();
        let clock = self.default_clock();
        let st = self.state();
        let mut pools = Vec::new();
        for kind in kinds {
            let seats = crate::bounds::arena::seats(kind);
            for players in seats.min()..=seats.max() {
                let open = |rated: bool| {
                    st.pool
                        .seeks()
                        .filter(|s| {
                            s.kind == kind && s.rated == rated && s.players.contains(&players)
                        })
                        .count() as u32
                };
                pools.push(pb::PoolInfo {
                    kind: kind.number(),
                    players: u32::from(players),
                    time_control: Some(clock),
                    autopilot_after: self.settings.autopilot_after,
                    games_per_rated_match: match_games(kind, u32::from(players), true),
                    seeking_rated: open(true),
                    seeking_unrated: open(false),
                });
            }
        }
        let mu = |points: f64| points / POINTS_PER_MU;
        Ok(pb::ListPoolsResponse {
            pools,
            matchmaking: Some(pb::Matchmaking {
                window_mu: mu(POOL.base_window),
                widen_mu_per_second: mu(POOL.widen_per_second),
                max_window_mu: mu(POOL.max_window),
                any_rating_after_ms: POOL.open_after_ms.unwrap_or(0),
                house_bots_after_ms: if house_bot_ids.is_empty() {
                    0
                } else {
                    self.settings.house_bots_after_ms
                },
                house_bot_ids,
                bot_max_matches: self.settings.bot_max_games,
            }),
        })
    }
}
