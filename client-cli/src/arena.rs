//! The arena from the command line (`proto/druids/v1/arena.proto`):
//! `druids register`, `druids rotate-key`, `druids revoke-bot`,
//! `druids leaderboard` and `druids bot-info`; the ladder of `druids bot
//! --seek` is [`crate::ladder`], challenges [`crate::challenge`], the
//! server's tournaments [`crate::arena_tournament`].

use clap::Args;
use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::cli::{LeaderboardArgs, RegisterArgs};
use crate::commands::utc_minute;
use crate::connect::{self, CliError, ServerAddr, authed};
use crate::outln;

/// A client of the arena service.
pub type Arena = ArenaServiceClient<Channel>;

/// A status of the arena service as the CLI's error: UNIMPLEMENTED means the
/// server has no arena at all, or an older one without this call.
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
pub(crate) fn game_name(kind: i32) -> &'static str {
    druids_contract::Kind::from_number(kind).map_or("?", druids_contract::Kind::name)
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

/// `druids rotate-key`: the calling bot's key, or with `--bot-id` any bot's
/// with the operator key.
#[derive(Args)]
pub struct RotateKeyArgs {
    /// The bot's current API key (without --bot-id).
    #[arg(
        long,
        env = "DRUIDS_BOT_KEY",
        hide_env_values = true,
        required_unless_present = "bot_id"
    )]
    pub key: Option<String>,
    /// Another bot's id: re-issue its key (also after `druids revoke-bot`);
    /// needs the operator key.
    #[arg(long, requires = "operator_key")]
    pub bot_id: Option<String>,
    /// The operator's key (with --bot-id).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `druids revoke-bot`: the calling bot itself, or any bot with the operator
/// key.
#[derive(Args)]
pub struct RevokeBotArgs {
    /// The bot to revoke [default: the bot of --key].
    pub bot_id: Option<String>,
    /// The bot's own API key.
    #[arg(
        long,
        env = "DRUIDS_BOT_KEY",
        hide_env_values = true,
        required_unless_present = "operator_key"
    )]
    pub key: Option<String>,
    /// The operator's key: revoke any bot (a ban; needs BOT_ID).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The bearer token and request of `druids rotate-key`: the operator key for
/// another bot, else the bot's own key.
pub(crate) fn rotate_request(
    args: &RotateKeyArgs,
) -> Result<(String, pb::RotateBotKeyRequest), CliError> {
    let token = match &args.bot_id {
        Some(_) => args.operator_key.clone().ok_or_else(|| {
            CliError::Usage(
                "--bot-id needs the operator key: --operator-key or DRUIDS_OPERATOR_KEY".into(),
            )
        })?,
        None => args.key.clone().ok_or_else(|| {
            CliError::Usage("the bot's key is needed: --key or DRUIDS_BOT_KEY".into())
        })?,
    };
    let bot_id = args.bot_id.clone().unwrap_or_default();
    Ok((token, pb::RotateBotKeyRequest { bot_id }))
}

/// The bearer token and request of `druids revoke-bot`: a named bot with
/// the operator key when there is one (else its own key); no bot named, the
/// bot of the key.
pub(crate) fn revoke_request(
    args: &RevokeBotArgs,
) -> Result<(String, pb::RevokeBotRequest), CliError> {
    let token = match (&args.bot_id, &args.operator_key, &args.key) {
        (Some(_), Some(op), _) => op.clone(),
        (_, _, Some(key)) => key.clone(),
        (None, Some(_), None) => {
            return Err(CliError::Usage(
                "with the operator key, name the bot to revoke: druids revoke-bot BOT_ID".into(),
            ));
        }
        _ => {
            return Err(CliError::Usage(
                "a key is needed: --key (the bot's own) or --operator-key".into(),
            ));
        }
    };
    let bot_id = args.bot_id.clone().unwrap_or_default();
    Ok((token, pb::RevokeBotRequest { bot_id }))
}

/// `druids rotate-key`: prints the bot's new API key.
pub async fn rotate_key(server: &ServerAddr, args: RotateKeyArgs) -> Result<(), CliError> {
    let (token, request) = rotate_request(&args)?;
    let mut client = arena(server).await?;
    let reply = client
        .rotate_bot_key(authed(Some(&token), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!("{}", serde_json::json!({"api_key": reply.api_key}))?;
    } else {
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!("warning: the new API key is shown only this once; the old one no longer works");
    Ok(())
}

/// `druids revoke-bot`: prints when the key stopped working.
pub async fn revoke_bot(server: &ServerAddr, args: RevokeBotArgs) -> Result<(), CliError> {
    let (token, request) = revoke_request(&args)?;
    let bot_id = request.bot_id.clone();
    let mut client = arena(server).await?;
    let reply = client
        .revoke_bot(authed(Some(&token), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"bot_id": bot_id, "revoked_unix_ms": reply.revoked_unix_ms})
        )?;
    } else {
        let who = if bot_id.is_empty() {
            "the bot of this key".to_owned()
        } else {
            format!("bot {bot_id}")
        };
        outln!(
            "{who} revoked at {} UTC",
            utc_seconds(reply.revoked_unix_ms)
        )?;
    }
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
pub(crate) fn fit_text(f: Option<&pb::FittedStrength>) -> String {
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
                kind: pool.kind.number(),
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
                pool.kind.name(),
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
                outln!("{}", druids_contract::json::to_json(e))?;
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
pub(crate) fn utc_seconds(ms: u64) -> String {
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

    fn parsed(args: &[&str]) -> crate::cli::Command {
        use clap::Parser;
        crate::cli::Cli::try_parse_from(args.iter().copied())
            .unwrap()
            .command
    }

    #[test]
    fn rotate_and_revoke_pick_their_key() {
        use crate::cli::Command;
        let Command::RotateKey(r) = parsed(&["druids", "rotate-key", "--key", "k"]) else {
            panic!("rotate-key")
        };
        let (token, req) = rotate_request(&r).unwrap();
        assert_eq!((token.as_str(), req.bot_id.as_str()), ("k", ""));
        let Command::RotateKey(r) = parsed(&[
            "druids",
            "rotate-key",
            "--bot-id",
            "b1",
            "--operator-key",
            "op",
        ]) else {
            panic!("rotate-key")
        };
        let (token, req) = rotate_request(&r).unwrap();
        assert_eq!((token.as_str(), req.bot_id.as_str()), ("op", "b1"));
        let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "--key", "k"]) else {
            panic!("revoke-bot")
        };
        let (token, req) = revoke_request(&r).unwrap();
        assert_eq!((token.as_str(), req.bot_id.as_str()), ("k", ""));
        let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "b1", "--operator-key", "op"])
        else {
            panic!("revoke-bot")
        };
        let (token, req) = revoke_request(&r).unwrap();
        assert_eq!((token.as_str(), req.bot_id.as_str()), ("op", "b1"));
        let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "b1", "--key", "k"]) else {
            panic!("revoke-bot")
        };
        assert_eq!(revoke_request(&r).unwrap().0, "k");
        let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "--operator-key", "op"])
        else {
            panic!("revoke-bot")
        };
        assert!(matches!(revoke_request(&r), Err(CliError::Usage(_))));
        // --bot-id needs the operator key; no key at all is an error (unless
        // the environment gives one).
        use clap::Parser;
        let parse = |args: &[&str]| crate::cli::Cli::try_parse_from(args.iter().copied());
        if std::env::var_os("DRUIDS_OPERATOR_KEY").is_none() {
            assert!(parse(&["druids", "rotate-key", "--key", "k", "--bot-id", "b1"]).is_err());
        }
        if std::env::var_os("DRUIDS_OPERATOR_KEY").is_none()
            && std::env::var_os("DRUIDS_BOT_KEY").is_none()
        {
            assert!(parse(&["druids", "rotate-key"]).is_err());
            assert!(parse(&["druids", "revoke-bot", "b1"]).is_err());
        }
    }
}
