//! `druids pools`: what a bot reads before it seeks (`ListPools`) — each
//! pool's turn clock, how its rated matches are played and the seeks open in
//! it, and how matchmaking forms games.

use clap::Args;
use druids_contract::{Kind, pb};

use crate::arena::client::{arena, arena_error};
use crate::args::{game_kind, game_name};
use crate::connect::{CliError, ServerAddr};
use crate::output::outln;

#[derive(Args)]
pub struct PoolsArgs {
    /// Only this game's pools.
    #[arg(long, value_parser = game_kind())]
    pub game: Option<Kind>,
    /// Print the ListPoolsResponse as one proto3 JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A pool in one line: "meduris:4  10 s a decision + 60 s bank, autopilot
/// after 3 timeouts; rated: a duplicate match of 4 games; seeking: 1 rated,
/// 0 unrated".
fn pool_line(p: &pb::PoolInfo) -> String {
    let clock = p.time_control.unwrap_or_default();
    let rated = match p.games_per_rated_match {
        1 => "one game".to_owned(),
        n => format!("a duplicate match of {n} games"),
    };
    format!(
        "{}:{}  {} ms a decision + {} ms bank, autopilot after {} timeouts; \
         rated: {rated}; seeking now: {} rated, {} unrated",
        game_name(p.kind),
        p.players,
        clock.decision_ms,
        clock.time_bank_ms,
        p.autopilot_after,
        p.seeking_rated,
        p.seeking_unrated
    )
}

/// `druids pools`.
pub async fn pools(server: &ServerAddr, args: PoolsArgs) -> Result<(), CliError> {
    let reply = arena(server)
        .await?
        .list_pools(pb::ListPoolsRequest {
            kind: args.game.map_or(0, Kind::number),
        })
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        return outln!("{}", druids_contract::json::to_json(&reply));
    }
    for p in &reply.pools {
        outln!("{}", pool_line(p))?;
    }
    let m = reply.matchmaking.unwrap_or_default();
    outln!(
        "matching: the oldest seek first, ratings within ±{} mu at once, widening by {} mu a \
         second to ±{} mu; any rating after {} s; at most {} matches at once per bot",
        m.window_mu,
        m.widen_mu_per_second,
        m.max_window_mu,
        m.any_rating_after_ms / 1000,
        m.bot_max_matches
    )?;
    match m.house_bot_ids.len() {
        0 => outln!("house bots: none (a pool needs enough bots seeking)"),
        n => outln!(
            "house bots: {n}, joining a seek that lacks opponents after {} ms",
            m.house_bots_after_ms
        ),
    }
}
