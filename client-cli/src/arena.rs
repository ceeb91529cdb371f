//! The arena from the command line (`proto/druids/v1/arena.proto`):
//! `druids register`, `druids rotate-key`, `druids leaderboard` and
//! `druids bot-info`; the ladder of `druids bot --seek` is [`crate::ladder`].

use druids::pb;
use druids::pb::arena_service_client::ArenaServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::cli::{LeaderboardArgs, RegisterArgs};
use crate::commands::utc_minute;
use crate::connect::{self, CliError, ServerAddr, authed};
use crate::outln;

/// A client of the arena service.
pub type Arena = ArenaServiceClient<Channel>;

/// A status of the arena service as the CLI's error: UNIMPLEMENTED means the
/// server has no arena at all.
pub fn arena_error(server: &ServerAddr, s: Status) -> CliError {
    if s.code() == Code::Unimplemented {
        CliError::NoArena {
            url: server.url.clone(),
            message: s.message().to_owned(),
        }
    } else {
        CliError::Status(s)
    }
}

/// Connects to the arena service at `server`.
pub(crate) async fn arena(server: &ServerAddr) -> Result<Arena, CliError> {
    Ok(ArenaServiceClient::new(connect::channel(server).await?))
}

/// The name of a pool's game.
fn game_name(kind: i32) -> &'static str {
    pb::GameKind::try_from(kind)
        .ok()
        .and_then(druids::registry::name)
        .unwrap_or("?")
}

/// `druids register`: prints the new bot's id and its API key.
pub async fn register(server: &ServerAddr, args: RegisterArgs) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let req = authed(
        args.operator_key.as_deref(),
        pb::RegisterBotRequest {
            name: args.name.clone(),
            description: args.description,
            owner_contact: args.contact,
        },
    )?;
    let reply = client
        .register_bot(req)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"bot_id": reply.bot_id, "name": args.name, "api_key": reply.api_key})
        )?;
    } else {
        outln!("bot {} ({})", reply.bot_id, args.name)?;
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!(
        "warning: the API key is shown only this once (the server keeps its hash): keep it secret; \
         `druids bot --key KEY --seek GAME:N` or DRUIDS_BOT_KEY plays with it"
    );
    Ok(())
}

/// `druids rotate-key`: prints the bot's new API key.
pub async fn rotate_key(server: &ServerAddr, key: String, json: bool) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let reply = client
        .rotate_bot_key(authed(Some(&key), pb::RotateBotKeyRequest::default())?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        outln!("{}", serde_json::json!({"api_key": reply.api_key}))?;
    } else {
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!("warning: the new API key is shown only this once; the old one no longer works");
    Ok(())
}

/// A rating as "display (mu ± sigma)".
fn rating_text(r: Option<&pb::Rating>) -> String {
    match r {
        Some(r) => format!("{:.2} ({:.2} ± {:.2})", r.display, r.mu, r.sigma),
        None => "-".into(),
    }
}

/// A fitted strength as "strength (low–high)".
fn fit_text(f: Option<&pb::FittedStrength>) -> String {
    match f {
        Some(f) => format!("{:.0} ({:.0}–{:.0})", f.strength, f.low, f.high),
        None => "-".into(),
    }
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
                kind: pool.kind as i32,
                players: pool.min_players,
                page_size: args.page_size.unwrap_or(0),
                page_token: page_token.clone(),
            })
            .await
            .map_err(|s| arena_error(server, s))?
            .into_inner();
        if first && !args.json {
            let fitted = match page.fitted_unix_ms {
                0 => "no fit yet".to_owned(),
                ms => format!("fit of {} UTC", utc_seconds(ms)),
            };
            outln!(
                "{}, {} players: rated bots, best first ({fitted})",
                game_name(pool.kind as i32),
                pool.min_players
            )?;
            outln!(
                "{:>4}  {:<24}  {:<25}  {:<19}  {:>7}  bot id",
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
                outln!("{}", druids::json::to_json(e))?;
                continue;
            }
            let bot = e.bot.clone().unwrap_or_default();
            outln!(
                "{:>4}  {:<24}  {:<25}  {:<19}  {:>7}  {}",
                e.rank,
                bot.name,
                rating_text(e.rating.as_ref()),
                fit_text(e.fit.as_ref()),
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

/// `ms` since the Unix epoch as "YYYY-MM-DD HH:MM:SS" (UTC).
fn utc_seconds(ms: u64) -> String {
    format!("{}:{:02}", utc_minute(ms), ms / 1000 % 60)
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
        return outln!("{}", druids::json::to_json(&bot));
    }
    let me = bot.bot.clone().unwrap_or_default();
    outln!("bot {} ({})", me.name, me.bot_id)?;
    if !bot.description.is_empty() {
        outln!("  {}", bot.description)?;
    }
    outln!("registered {} UTC", utc_seconds(bot.registered_unix_ms))?;
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
    use crate::ladder::{game_line, match_line};

    #[test]
    fn lines_of_games_and_matches() {
        let m = pb::MatchFinished {
            match_id: "m1".into(),
            placements: vec![
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b1".into(),
                        name: "alpha".into(),
                    }),
                    rank: 1,
                    score: 52,
                },
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b2".into(),
                        name: "beta".into(),
                    }),
                    rank: 2,
                    score: 40,
                },
            ],
        };
        assert_eq!(
            match_line(&m),
            r#"{"match_id": "m1", "placements": [{"bot_id": "b1", "name": "alpha", "rank": 1, "score": 52}, {"bot_id": "b2", "name": "beta", "rank": 2, "score": 40}]}"#
        );
        assert_eq!(match_text(&m, "b2"), "m1: 1. alpha 52, 2. beta* 40");
        let g = pb::MatchGame {
            match_id: "m1".into(),
            game_id: "g1".into(),
            seat: 1,
            index: 0,
            options: None,
        };
        assert_eq!(
            game_line(&g, &Err("lost".into())),
            r#"{"match_id": "m1", "index": 0, "game_id": "g1", "seat": 1, "error": "lost"}"#
        );
        assert_eq!(utc_seconds(1_795_000_000_123), "2026-11-18 11:06:40");
    }
}
