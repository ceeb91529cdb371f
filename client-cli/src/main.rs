//! `druids`: the command-line client of the druids game server.
//!
//! Subcommands map one-to-one onto what a user does: create or join a game, list
//! games, look at one, watch it, play it by hand, let a bot play a seat, run
//! many self-play games, export and check replays. Everything that talks to a
//! server goes through the gRPC contract in `proto/`, exactly as a bot in
//! another language would. `main` only parses and dispatches: each subcommand
//! is one function of the module that owns it.
//!
//! The modules, by what they serve: [`games`] (one game on a server),
//! [`seat`] (playing a seat over the network), [`arena`] (bots and the
//! ladder), [`bridge`] (programs behind the line protocol), [`offline`] and
//! [`selfplay`] (games in this process), [`render`] (text for people); and
//! beneath them all [`args`], [`connect`], [`retry`], [`output`] and
//! [`lines`].

// stdout is written through `output` only, whose writes return the error
// of a closed pipe (`druids … | head`) that `main` ends quietly on:
// `print!` would panic there.
#![deny(clippy::print_stdout)]

mod arena;
mod args;
mod bridge;
mod cli;
mod conformance;
mod connect;
mod failover;
mod games;
mod lines;
mod offline;
mod output;
mod render;
mod retry;
mod seat;
mod selfplay;

use std::process::ExitCode;

use clap::FromArgMatches;
use clap::parser::ValueSource;
use cli::{Cli, Command};
use connect::{CliError, ServerAddr};

fn main() -> ExitCode {
    let matches = cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // Only a `--server` typed on the command line is an error for the
    // commands that use none: DRUIDS_SERVER set for a whole shell is not.
    let server_typed = matches.value_source("server") == Some(ValueSource::CommandLine);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Named in the message of a connection lost on the way.
    let named = cli.server.server.clone();
    match runtime.block_on(run(cli, server_typed)) {
        Ok(code) => code,
        // Whoever reads our stdout has seen enough (`druids watch | head`).
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            match e.lost_connection() {
                // tonic says only "tcp connect error": say where, and why.
                Some(why) => eprintln!(
                    "error: lost the druids server at {}: {why} ({})",
                    named.as_deref().unwrap_or(connect::DEFAULT_SERVER),
                    e
                ),
                None => eprintln!("error: {e}"),
            }
            match e {
                // A set-up that cannot work, as a usage error: nothing ran.
                CliError::Usage(_)
                | CliError::BadAddress { .. }
                | CliError::NoTestFaults { .. } => ExitCode::from(2),
                CliError::Interrupted => ExitCode::from(130),
                _ => ExitCode::FAILURE,
            }
        }
    }
}

/// The server to talk to: `--server`, `DRUIDS_SERVER` or the default.
fn server(cli: &cli::ServerArgs) -> Result<ServerAddr, CliError> {
    let given = cli.server.as_deref().unwrap_or(connect::DEFAULT_SERVER);
    ServerAddr::parse(given, cli.ca_cert.clone())
}

/// Refuses `--server` for a command that talks to no server.
fn no_server(typed: bool, command: &str) -> Result<(), CliError> {
    if typed {
        return Err(CliError::Usage(format!(
            "--server is not used by `druids {command}` (it runs without a server)"
        )));
    }
    Ok(())
}

async fn run(cli: Cli, server_typed: bool) -> Result<ExitCode, CliError> {
    use arena::{accounts, challenge, ladder, pools, ratings, tournament as arena_tournament};
    use games::{create, health, list, replays, view};
    let ok = Ok(ExitCode::SUCCESS);
    match cli.command {
        Command::Create(args) => create::create(&server(&cli.server)?, args).await?,
        Command::Join {
            game_id,
            seat,
            name,
        } => create::join(&server(&cli.server)?, game_id, seat, name).await?,
        Command::List(args) => list::list(&server(&cli.server)?, args).await?,
        Command::State { game } => view::state(&server(&cli.server)?, game).await?,
        Command::Watch { game, from_seq } => {
            view::watch(&server(&cli.server)?, game, from_seq).await?
        }
        Command::Resign { game } => seat::commands::resign(&server(&cli.server)?, game).await?,
        Command::Play { game, compact } => {
            seat::commands::play(&server(&cli.server)?, game, compact).await?
        }
        Command::Bot(args) if args.plays_the_arena() => {
            ladder::run::run(&server(&cli.server)?, &args).await?
        }
        Command::Bot(args) => seat::commands::bot(&server(&cli.server)?, args).await?,
        Command::Register(args) => accounts::register(&server(&cli.server)?, args).await?,
        Command::RotateKey(args) => accounts::rotate_key(&server(&cli.server)?, args).await?,
        Command::RevokeBot(args) => accounts::revoke_bot(&server(&cli.server)?, args).await?,
        Command::Challenge(args) => challenge::challenge(&server(&cli.server)?, args).await?,
        Command::AnswerChallenge(args) => challenge::answer(&server(&cli.server)?, args).await?,
        Command::CancelChallenge(args) => challenge::cancel(&server(&cli.server)?, args).await?,
        Command::ArenaTournament(args) => {
            arena_tournament::run(&server(&cli.server)?, args.command).await?
        }
        Command::Leaderboard(args) => ratings::leaderboard(&server(&cli.server)?, args).await?,
        Command::Pools(args) => pools::pools(&server(&cli.server)?, args).await?,
        Command::BotInfo { bot_id, json } => {
            ratings::bot_info(&server(&cli.server)?, bot_id, json).await?
        }
        Command::Export { game_id, out } => {
            replays::export(&server(&cli.server)?, game_id, &out).await?
        }
        Command::ExportGames { bot_id, max } => {
            replays::export_games(&server(&cli.server)?, bot_id, max).await?
        }
        Command::Health => health::health(&server(&cli.server)?).await?,
        Command::Replay { file } => {
            no_server(server_typed, "replay")?;
            replays::replay(&file)?
        }
        Command::Tournament(args) => {
            no_server(server_typed, "tournament")?;
            offline::tournament::tournament(args)?
        }
        Command::Match(args) => {
            no_server(server_typed, "match")?;
            // Games run on threads of their own, off the async runtime.
            return tokio::task::spawn_blocking(move || offline::matches::run(args)).await?;
        }
        Command::Conformance(args) => {
            // Only a --server typed here: DRUIDS_SERVER in the shell is for clients.
            let given = if server_typed {
                Some(server(&cli.server)?)
            } else {
                None
            };
            return conformance::conformance(given, args).await;
        }
        Command::Selfplay(args) => {
            // Without a server, self-play runs the engines in-process.
            let addr = match &cli.server.server {
                Some(_) => Some(server(&cli.server)?),
                None => None,
            };
            return selfplay::selfplay(addr, args).await;
        }
    }
    ok
}
