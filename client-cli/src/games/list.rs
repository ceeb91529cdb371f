//! `druids list`: the server's games, a page or all of them, as a table or
//! JSON lines.

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use druids_contract::pb;

use crate::args::{game_kind, game_name, status_name};
use crate::connect::{self, CliError, ServerAddr};
use crate::output::outln;
use crate::render::time::utc_minute;

/// `--status`: every status the contract knows.
fn game_status() -> impl TypedValueParser<Value = pb::GameStatus> {
    let statuses: Vec<pb::GameStatus> = (1..)
        .map_while(|n| pb::GameStatus::try_from(n).ok())
        .collect();
    // clap keeps possible values as `&'static str` (without its "string"
    // feature): the handful of names is leaked once, when the parser is built.
    let names: Vec<&'static str> = statuses
        .iter()
        .map(|&s| &*Box::leak(status_name(s).into_boxed_str()))
        .collect();
    PossibleValuesParser::new(names).map(move |name| {
        *statuses
            .iter()
            .find(|&&s| status_name(s) == name)
            .expect("the parser lists only known statuses")
    })
}

#[derive(Args)]
pub struct ListArgs {
    /// Only games of this kind.
    #[arg(long, value_parser = game_kind())]
    pub game: Option<druids_contract::Kind>,
    /// Only games in this status.
    #[arg(long, value_parser = game_status())]
    pub status: Option<pb::GameStatus>,
    /// Games per page (server default 100, at most 1000).
    #[arg(long)]
    pub page_size: Option<u32>,
    /// Start at this page (the token printed after the previous page).
    #[arg(long)]
    pub page_token: Option<String>,
    /// Follow every page to the end (from --page-token, if given).
    #[arg(long)]
    pub all: bool,
    /// One proto3 JSON object (GameSummary) per game per line.
    #[arg(long)]
    pub json: bool,
}

/// `druids list`: a table (or JSON lines) of the server's games, one page or
/// all of them.
pub async fn list(server: &ServerAddr, args: ListArgs) -> Result<(), CliError> {
    let mut client = connect::connect(server).await?;
    let mut page_token = args.page_token.unwrap_or_default();
    if !args.json {
        outln!(
            "{:<16}  {:<8}  {:<19}  {:<16}  {:>7}  {:>7}  seats",
            "game id",
            "game",
            "status",
            "created (UTC)",
            "players",
            "version"
        )?;
    }
    loop {
        let page = client
            .list_games(pb::ListGamesRequest {
                kind: args.game.map_or(0, druids_contract::Kind::number),
                status: args.status.map_or(0, |s| s as i32),
                page_size: args.page_size.unwrap_or(0),
                page_token: page_token.clone(),
                ..Default::default()
            })
            .await?
            .into_inner();
        for g in &page.games {
            if args.json {
                outln!("{}", druids_contract::json::to_json(g))?;
            } else {
                outln!("{}", summary_line(g))?;
            }
        }
        page_token = page.next_page_token;
        if page_token.is_empty() {
            return Ok(());
        }
        if !args.all {
            // On stderr, so that --json output stays one object per line.
            eprintln!("more games: --page-token {page_token} (or --all)");
            return Ok(());
        }
    }
}

/// One row of `druids list`.
fn summary_line(g: &pb::GameSummary) -> String {
    let game = game_name(g.kind);
    let status = pb::GameStatus::try_from(g.status)
        .map(status_name)
        .unwrap_or_else(|_| "?".into());
    let seats: Vec<String> = g
        .seats
        .iter()
        .map(|s| {
            // The server names unnamed seats "seat N": shown as unnamed.
            let unnamed = s.name.is_empty() || s.name == format!("seat {}", s.seat);
            match (s.claimed, unnamed) {
                (false, _) => format!("{}: open", s.seat),
                (true, true) => format!("{}: -", s.seat),
                (true, false) => format!("{}: {}", s.seat, crate::output::plain(&s.name)),
            }
        })
        .collect();
    format!(
        "{:<16}  {game:<8}  {status:<19}  {:<16}  {:>7}  {:>7}  {}",
        g.game_id,
        utc_minute(g.created_unix_ms),
        g.players,
        g.version,
        seats.join(", ")
    )
}
