//! `druids arena-tournament`: the tournaments the server runs
//! (`proto/druids/v1/arena.proto`), as opposed to `druids tournament`, which
//! plays built-in bots against each other in-process. `create` sets one up,
//! `show` prints its standings (with `--json`, the whole GetTournamentResponse:
//! the exportable results), `join` enters a bot while entry is open, and
//! `follow` prints its events as they happen, resuming after a dropped
//! stream. The entrants play their games with `druids bot --events`.

use clap::{ArgGroup, Args, Subcommand};
use druids_contract::pb;
use druids_contract::pb::create_tournament_request::Format;
use druids_contract::pb::tournament_event::Event;
use tokio_stream::StreamExt;

use crate::arena::challenge::TimeControlArgs;
use crate::arena::client::{arena, arena_error};
use crate::arena::ratings::{fit_text, match_text};
use crate::arena::resume::Resume;
use crate::args::{game_kind, game_name};
use crate::connect::{CliError, ServerAddr, authed};
use crate::output::outln;
use crate::render::time::utc_seconds;
use crate::retry::code_name;

/// `druids arena-tournament`.
#[derive(Args)]
pub struct ArenaTournamentArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: TournamentCommand,
}

/// The subcommands of `druids arena-tournament`.
#[derive(Subcommand)]
pub enum TournamentCommand {
    /// Create a tournament; prints its id.
    Create(CreateArgs),
    /// A tournament's status and standings.
    Show {
        /// The tournament's id.
        tournament_id: String,
        /// Print the GetTournamentResponse as one proto3 JSON object (every
        /// setting, standing and finished match).
        #[arg(long)]
        json: bool,
    },
    /// Enter a bot in a tournament with open entry.
    Join {
        /// The tournament's id.
        tournament_id: String,
        /// The bot's API key.
        #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
        key: String,
        /// Print the JoinTournamentResponse as one proto3 JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print a tournament's events, one line each, until it is over.
    Follow {
        /// The tournament's id.
        tournament_id: String,
        /// First event to show (0 or 1: from its first).
        #[arg(long, default_value_t = 0)]
        from_seq: u64,
        /// One proto3 JSON object (TournamentEvent) per line.
        #[arg(long)]
        json: bool,
    },
}

/// `druids arena-tournament create`.
#[derive(Args)]
#[command(group(ArgGroup::new("format").required(true).args(["round_robin", "swiss", "gauntlet"])))]
pub struct CreateArgs {
    /// Shown in standings (1 to 80 bytes).
    #[arg(long)]
    pub name: String,
    /// Which game.
    #[arg(long, value_parser = game_kind())]
    pub game: druids_contract::Kind,
    /// Players per game (2 or more; the server holds each game to its own
    /// bounds, as `GET /api/v1/games` lists them).
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    pub players: u32,
    /// An entrant's bot id (repeatable; at least --players of them unless
    /// entry is open).
    #[arg(long = "entrant", value_name = "BOT_ID")]
    pub entrants: Vec<String>,
    /// Format: every group of --players entrants plays.
    #[arg(long)]
    pub round_robin: bool,
    /// Round robin: matches per group [default: 1].
    #[arg(long, conflicts_with_all = ["swiss", "gauntlet"], value_parser = clap::value_parser!(u32).range(1..))]
    pub games_per_group: Option<u32>,
    /// Format: this many Swiss rounds.
    #[arg(long, value_name = "ROUNDS", value_parser = clap::value_parser!(u32).range(1..))]
    pub swiss: Option<u32>,
    /// Format: every entrant plays this fixed opponent (a bot id, not an
    /// entrant).
    #[arg(long, value_name = "OPPONENT_ID")]
    pub gauntlet: Option<String>,
    /// Gauntlet: matches per entrant [default: 1].
    #[arg(long, conflicts_with_all = ["round_robin", "swiss"], value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,
    /// The matches count for the ratings too.
    #[arg(long)]
    pub rated: bool,
    /// The games' turn clock.
    #[command(flatten)]
    pub clock: TimeControlArgs,
    /// Open entry: bots join with `arena-tournament join` for this many
    /// seconds (1 to 86400), then the first round starts.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub open_for: Option<u32>,
    /// Open entry: most entrants, named ones included (1 to 256) [default: 64].
    #[arg(long, requires = "open_for", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub max_entrants: Option<u32>,
    /// The operator's key (or --key: the server decides who may create).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// A bot's API key (enough on a server with open registration).
    #[arg(
        long,
        env = "DRUIDS_BOT_KEY",
        hide_env_values = true,
        required_unless_present = "operator_key"
    )]
    pub key: Option<String>,
    /// Print the Tournament as one proto3 JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The CreateTournamentRequest of `create`.
pub fn create_request(args: &CreateArgs) -> pb::CreateTournamentRequest {
    let format = if let Some(rounds) = args.swiss {
        Format::Swiss(pb::Swiss { rounds })
    } else if let Some(opponent) = &args.gauntlet {
        Format::Gauntlet(pb::Gauntlet {
            opponent: opponent.clone(),
            games: args.games.unwrap_or(0),
        })
    } else {
        Format::RoundRobin(pb::RoundRobin {
            games_per_group: args.games_per_group.unwrap_or(0),
        })
    };
    pb::CreateTournamentRequest {
        name: args.name.clone(),
        kind: args.game.number(),
        players: args.players,
        entrants: args.entrants.clone(),
        format: Some(format),
        rated: args.rated,
        time_control: args.clock.to_proto(),
        open_entry: args.open_for.map(|secs| pb::OpenEntry {
            closes_in_secs: secs,
            max_entrants: args.max_entrants.unwrap_or(0),
        }),
    }
}

/// A tournament status's name: "open", "running", "finished", "cancelled".
pub fn status_name(status: i32) -> String {
    pb::TournamentStatus::try_from(status)
        .map(|s| {
            s.as_str_name()
                .trim_start_matches("TOURNAMENT_STATUS_")
                .to_lowercase()
        })
        .unwrap_or_else(|_| "?".into())
}

/// A format in words: "round robin, 2 matches per group", "swiss, 5 rounds",
/// "gauntlet against B, 3 matches each".
fn format_text(format: Option<&Format>) -> String {
    let n = |n: u32| n.max(1);
    match format {
        Some(Format::RoundRobin(r)) => {
            format!("round robin, {} match(es) per group", n(r.games_per_group))
        }
        Some(Format::Swiss(s)) => format!("swiss, {} round(s)", s.rounds),
        Some(Format::Gauntlet(g)) => {
            format!(
                "gauntlet against {}, {} match(es) each",
                g.opponent,
                n(g.games)
            )
        }
        None => "no format".into(),
    }
}

/// A tournament as text: a heading, its progress, and the standings table.
pub fn tournament_text(t: &pb::Tournament) -> String {
    let settings = t.settings.clone().unwrap_or_default();
    let mut out = format!(
        "tournament {} ({}): {}, {} players, {}{}\n",
        t.tournament_id,
        t.name,
        game_name(t.kind),
        t.players,
        format_text(settings.format.as_ref()),
        if settings.rated { ", rated" } else { "" }
    );
    out += &format!(
        "status {}, round {}/{}, {} entrant(s), {} match(es) finished, created {} UTC\n",
        status_name(t.status),
        t.rounds_started,
        t.rounds_total,
        t.entrants.len(),
        t.results.len(),
        utc_seconds(t.created_unix_ms)
    );
    if t.entry_closes_unix_ms != 0 && t.status == pb::TournamentStatus::Open as i32 {
        out += &format!("entry closes {} UTC\n", utc_seconds(t.entry_closes_unix_ms));
    }
    out += &standings_text(&t.standings);
    out
}

/// A standings table, best first.
pub fn standings_text(standings: &[pb::Standing]) -> String {
    let mut out = format!(
        "{:>4}  {:<24}  {:>7}  {:>7}  {:<19}  bot id\n",
        "rank", "bot", "points", "matches", "strength (95% CI)"
    );
    for s in standings {
        let bot = s.bot.clone().unwrap_or_default();
        out += &format!(
            "{:>4}  {:<24}  {:>7.2}  {:>7}  {:<19}  {}\n",
            s.rank,
            bot.name,
            s.points,
            s.matches,
            fit_text(s.strength.as_ref()),
            bot.bot_id
        );
    }
    out
}

/// Names of bots, comma-separated.
fn names(bots: &[pb::BotRef]) -> String {
    let names: Vec<&str> = bots.iter().map(|b| b.name.as_str()).collect();
    names.join(", ")
}

/// A tournament event in one line.
pub fn event_line(e: &pb::TournamentEvent) -> String {
    let what = match &e.event {
        Some(Event::EntrantJoined(b)) => format!("{} ({}) joined", b.name, b.bot_id),
        Some(Event::Started(s)) => format!(
            "started: {} entrants, {} round(s): {}",
            s.entrants.len(),
            s.rounds_total,
            names(&s.entrants)
        ),
        Some(Event::RoundStarted(r)) => {
            let matches: Vec<String> = r
                .matches
                .iter()
                .map(|m| format!("{} ({})", m.match_id, names(&m.bots).replace(", ", " vs ")))
                .collect();
            let byes = if r.byes.is_empty() {
                String::new()
            } else {
                format!("; byes: {}", names(&r.byes))
            };
            format!("round {}: {}{byes}", r.round, matches.join(", "))
        }
        Some(Event::MatchFinished(m)) => {
            let result = m.result.clone().unwrap_or_default();
            let top: Vec<String> = m
                .standings
                .iter()
                .take(3)
                .map(|s| {
                    let bot = s.bot.clone().unwrap_or_default();
                    format!("{}. {} {:.2}", s.rank, bot.name, s.points)
                })
                .collect();
            format!(
                "round {}: match {}; standings {}",
                m.round,
                match_text(&result, ""),
                top.join(", ")
            )
        }
        Some(Event::Finished(f)) => {
            let all: Vec<String> = f
                .standings
                .iter()
                .map(|s| {
                    let bot = s.bot.clone().unwrap_or_default();
                    format!("{}. {} {:.2}", s.rank, bot.name, s.points)
                })
                .collect();
            format!("finished: {}", all.join(", "))
        }
        Some(Event::Cancelled(c)) => format!("cancelled: {}", c.reason),
        Some(Event::Heartbeat(_)) => "heartbeat (the tournament is quiet)".into(),
        None => "(an event this client does not know)".into(),
    };
    format!("#{} {} {what}", e.seq, utc_seconds(e.at_unix_ms))
}

/// Whether a tournament event is its last.
pub fn is_last(e: &pb::TournamentEvent) -> bool {
    matches!(e.event, Some(Event::Finished(_) | Event::Cancelled(_)))
}

/// Runs one `druids arena-tournament` subcommand.
pub async fn run(server: &ServerAddr, command: TournamentCommand) -> Result<(), CliError> {
    match command {
        TournamentCommand::Create(args) => create(server, args).await,
        TournamentCommand::Show {
            tournament_id,
            json,
        } => show(server, tournament_id, json).await,
        TournamentCommand::Join {
            tournament_id,
            key,
            json,
        } => join(server, tournament_id, key, json).await,
        TournamentCommand::Follow {
            tournament_id,
            from_seq,
            json,
        } => follow(server, tournament_id, from_seq, json).await,
    }
}

/// `create`: prints the tournament's id (or the Tournament as JSON).
async fn create(server: &ServerAddr, args: CreateArgs) -> Result<(), CliError> {
    let token = args.operator_key.as_deref().or(args.key.as_deref());
    let request = authed(token, create_request(&args))?;
    let reply = arena(server)
        .await?
        .create_tournament(request)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    let t = reply.tournament.unwrap_or_default();
    if args.json {
        return outln!("{}", druids_contract::json::to_json(&t));
    }
    outln!("tournament {}", t.tournament_id)?;
    if t.entry_closes_unix_ms != 0 {
        eprintln!(
            "entry open until {} UTC: `druids arena-tournament join {} --key KEY`",
            utc_seconds(t.entry_closes_unix_ms),
            t.tournament_id
        );
    }
    Ok(())
}

/// `show`: the standings table, or the whole response as JSON.
async fn show(server: &ServerAddr, tournament_id: String, json: bool) -> Result<(), CliError> {
    let reply = arena(server)
        .await?
        .get_tournament(pb::GetTournamentRequest { tournament_id })
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        return outln!("{}", druids_contract::json::to_json(&reply));
    }
    crate::output::text(tournament_text(&reply.tournament.unwrap_or_default()))
}

/// `join`: enters the bot of `key`.
async fn join(
    server: &ServerAddr,
    tournament_id: String,
    key: String,
    json: bool,
) -> Result<(), CliError> {
    let request = authed(Some(&key), pb::JoinTournamentRequest { tournament_id })?;
    let reply = arena(server)
        .await?
        .join_tournament(request)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if json {
        return outln!("{}", druids_contract::json::to_json(&reply));
    }
    let t = reply.tournament.unwrap_or_default();
    outln!(
        "joined tournament {} ({} entrant(s); entry closes {} UTC)",
        t.tournament_id,
        t.entrants.len(),
        utc_seconds(t.entry_closes_unix_ms)
    )
}

/// `follow`: one line per event until `finished` or `cancelled`.
async fn follow(
    server: &ServerAddr,
    tournament_id: String,
    from_seq: u64,
    json: bool,
) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let mut resume = Resume::from(from_seq);
    loop {
        let request = pb::StreamTournamentEventsRequest {
            tournament_id: tournament_id.clone(),
            from_seq: resume.next,
        };
        let cut = match client.stream_tournament_events(request).await {
            Ok(reply) => {
                let mut stream = reply.into_inner();
                loop {
                    match stream.next().await {
                        // The stream is alive but quiet: nothing to show.
                        Some(Ok(e)) if matches!(e.event, Some(Event::Heartbeat(_))) => {}
                        Some(Ok(e)) => {
                            resume.seen(e.seq);
                            if json {
                                outln!("{}", druids_contract::json::to_json(&e))?;
                            } else {
                                outln!("{}", event_line(&e))?;
                            }
                            if is_last(&e) {
                                return Ok(());
                            }
                        }
                        Some(Err(s)) => break s,
                        // A clean end: the tournament is over and its log
                        // read (a cut stream ends with an error instead).
                        None => return Ok(()),
                    }
                }
            }
            Err(s) => s,
        };
        let Some(pause) = resume.retry(Some(&cut)) else {
            return Err(arena_error(server, cut));
        };
        eprintln!(
            "tournament stream dropped ({}: {}); resuming from #{} in {pause:.1?}",
            code_name(cut.code()),
            cut.message(),
            resume.next
        );
        tokio::time::sleep(pause).await;
    }
}

#[cfg(test)]
mod tests;
