//! Ratings: `druids leaderboard` (a pool's rated bots) and `druids
//! bot-info` (a bot's profile, ratings and latest matches), and how ratings,
//! fits and finished matches read in one line.

use clap::Args;
use druids_contract::pb;

use crate::arena::client::{arena, arena_error};
use crate::args::{Pool, game_name, pool};
use crate::connect::{CliError, ServerAddr};
use crate::output::outln;
use crate::render::time::utc_seconds;

/// A leaderboard's pool: one game and one player count (`meduris:4`).
fn exact_pool(given: &str) -> Result<Pool, String> {
    let p = pool(given)?;
    if p.min_players != p.max_players {
        return Err("a leaderboard is of one player count (e.g. meduris:4)".into());
    }
    Ok(p)
}

#[derive(Args)]
pub struct LeaderboardArgs {
    /// The pool: game and player count (meduris:4, dolmen:2).
    #[arg(value_name = "GAME:PLAYERS", value_parser = exact_pool)]
    pub pool: Pool,
    /// Bots per page (server default 50, at most 500).
    #[arg(long)]
    pub page_size: Option<u32>,
    /// Start at this page (the token printed after the previous page).
    #[arg(long)]
    pub page_token: Option<String>,
    /// Follow every page to the end.
    #[arg(long)]
    pub all: bool,
    /// One proto3 JSON object (LeaderboardEntry) per bot per line.
    #[arg(long)]
    pub json: bool,
}

/// A rating as "display (mu ± sigma)".
fn rating_text(r: Option<&pb::Rating>) -> String {
    match r {
        Some(r) => format!("{:.2} ({:.2} ± {:.2})", r.display, r.mu, r.sigma),
        None => "-".into(),
    }
}

/// A fitted strength as "strength (low–high)".
pub(crate) fn fit_text(f: Option<&pb::FittedStrength>) -> String {
    match f {
        Some(f) => format!("{:.0} ({:.0}–{:.0})", f.strength, f.low, f.high),
        None => "-".into(),
    }
}

/// An entry's fit, marked `*` when it leaves out some of the bot's matches.
fn stale_fit_text(e: &pb::LeaderboardEntry) -> String {
    let text = fit_text(e.fit.as_ref());
    if e.fit.is_some() && e.fit_matches < e.matches {
        text + "*"
    } else {
        text
    }
}

/// A leaderboard entry's bot as the table shows it: its name, marked
/// `(house)` and `(provisional)` where it is.
fn label(e: &pb::LeaderboardEntry) -> String {
    let bot = e.bot.clone().unwrap_or_default();
    format!(
        "{}{}{}",
        bot.name,
        if bot.house { " (house)" } else { "" },
        if e.provisional { " (provisional)" } else { "" }
    )
}

/// `druids leaderboard`: a table (or JSON lines) of a pool's rated bots.
pub async fn leaderboard(server: &ServerAddr, args: LeaderboardArgs) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let mut page_token = args.page_token.unwrap_or_default();
    let pool = args.pool;
    let mut first = true;
    loop {
        let page = client
            .get_leaderboard(pb::GetLeaderboardRequest {
                kind: pool.kind.number(),
                players: pool.min_players,
                page_size: args.page_size.unwrap_or(0),
                page_token: page_token.clone(),
            })
            .await
            .map_err(|s| arena_error(server, s))?
            .into_inner();
        // Wide enough for the page's longest name with its marks.
        let width = page
            .entries
            .iter()
            .map(|e| label(e).chars().count())
            .max()
            .unwrap_or(0)
            .max(24);
        if first && !args.json {
            let fitted = match (page.fitted_unix_ms, page.results_since_fit) {
                (0, 0) => "no fit yet".to_owned(),
                (0, n) => format!("no fit yet of its {n} rated result(s); soon"),
                (ms, 0) => format!("fit of {} UTC", utc_seconds(ms)),
                // Issue 29: a fit older than the ratings beside it says so.
                (ms, n) => format!(
                    "fit of {} UTC, older than the ratings: {n} rated result(s) since, \
                     refitted by {} UTC; * marks a fit without some of the bot's matches",
                    utc_seconds(ms),
                    utc_seconds(page.next_fit_unix_ms)
                ),
            };
            outln!(
                "{}, {} players: rated bots, established ones first, each part best first ({fitted})",
                pool.kind.name(),
                pool.min_players
            )?;
            outln!(
                "{:>4}  {:<width$}  {:<25}  {:<19}  {:>7}  bot id",
                "rank",
                "bot",
                "rating (mu ± sigma)",
                "fit (95% CI)",
                "matches"
            )?;
        }
        first = false;
        for e in &page.entries {
            if args.json {
                outln!("{}", druids_contract::json::to_json(e))?;
                continue;
            }
            let bot = e.bot.clone().unwrap_or_default();
            outln!(
                "{:>4}  {:<width$}  {:<25}  {:<19}  {:>7}  {}",
                e.rank,
                label(e),
                rating_text(e.rating.as_ref()),
                stale_fit_text(e),
                e.matches,
                bot.bot_id
            )?;
        }
        page_token = page.next_page_token;
        if page_token.is_empty() {
            return Ok(());
        }
        if !args.all {
            eprintln!("more bots: --page-token {page_token} (or --all)");
            return Ok(());
        }
    }
}

/// `druids bot-info`: a bot's profile, ratings and latest matches.
pub async fn bot_info(server: &ServerAddr, bot_id: String, json: bool) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let bot = client
        .get_bot(pb::GetBotRequest {
            bot_id: bot_id.clone(),
        })
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        return outln!("{}", druids_contract::json::to_json(&bot));
    }
    let me = bot.bot.clone().unwrap_or_default();
    outln!("bot {} ({})", me.name, me.bot_id)?;
    if !bot.description.is_empty() {
        outln!("  {}", bot.description)?;
    }
    outln!("registered {} UTC", utc_seconds(bot.registered_unix_ms))?;
    if bot.revoked {
        outln!("revoked: its key no longer works (the operator can issue a new one)")?;
    }
    if bot.ratings.is_empty() {
        outln!("no rated matches yet")?;
    } else {
        outln!(
            "{:<12}  {:<25}  {:<19}  {:>7}",
            "pool",
            "rating (mu ± sigma)",
            "fit (95% CI)",
            "matches"
        )?;
        for r in &bot.ratings {
            outln!(
                "{:<12}  {:<25}  {:<19}  {:>7}",
                format!("{}:{}", game_name(r.kind), r.players),
                rating_text(r.rating.as_ref()),
                fit_text(r.fit.as_ref()),
                r.matches
            )?;
        }
    }
    if !bot.recent_matches.is_empty() {
        outln!("latest matches, newest first:")?;
        for m in &bot.recent_matches {
            outln!("  {}", match_text(m, &me.bot_id))?;
        }
    }
    Ok(())
}

/// A match's placements, best first (the server lists them in seat order).
pub(crate) fn by_rank(m: &pb::MatchFinished) -> Vec<&pb::Placement> {
    let mut places: Vec<&pb::Placement> = m.placements.iter().collect();
    places.sort_by_key(|p| p.rank);
    places
}

/// A finished match in one line: "MATCH: 1. alpha 52, 2. beta 40", the bot
/// `me` marked with a star.
pub(crate) fn match_text(m: &pb::MatchFinished, me: &str) -> String {
    let places: Vec<String> = by_rank(m)
        .into_iter()
        .map(|p| {
            let bot = p.bot.clone().unwrap_or_default();
            let star = if bot.bot_id == me { "*" } else { "" };
            format!("{}. {}{star} {}", p.rank, bot.name, p.score)
        })
        .collect();
    format!("{}: {}", m.match_id, places.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_is_shown_with_its_marks() {
        let entry = pb::LeaderboardEntry {
            bot: Some(pb::BotRef {
                name: "house-mcts-400".into(),
                house: true,
                ..Default::default()
            }),
            provisional: true,
            ..Default::default()
        };
        assert_eq!(label(&entry), "house-mcts-400 (house) (provisional)");
    }

    #[test]
    fn a_leaderboard_is_of_one_player_count() {
        assert!(exact_pool("dolmen:2-4").is_err());
        assert_eq!(exact_pool("dolmen:3").unwrap().min_players, 3);
    }

    #[test]
    fn a_match_in_one_line_stars_the_bot() {
        let bot = |id: &str, name: &str| {
            Some(pb::BotRef {
                bot_id: id.into(),
                name: name.into(),
                ..Default::default()
            })
        };
        let m = pb::MatchFinished {
            match_id: "m1".into(),
            placements: vec![
                pb::Placement {
                    bot: bot("b2", "beta"),
                    rank: 2,
                    score: 40,
                },
                pb::Placement {
                    bot: bot("b1", "alpha"),
                    rank: 1,
                    score: 52,
                },
            ],
        };
        assert_eq!(match_text(&m, "b2"), "m1: 1. alpha 52, 2. beta* 40");
    }
}
