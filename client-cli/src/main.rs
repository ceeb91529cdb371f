//! `druids`: the command-line client of the druids game server.
//!
//! Subcommands map one-to-one onto what a user does: create or join a game, list
//! games, look at one, watch it, play it by hand, let a bot play a seat, run
//! many self-play games, export and check replays. Everything that talks to a
//! server goes through the gRPC contract in `proto/`, exactly as a bot in
//! another language would. `main` only parses and dispatches: each subcommand
//! is one function of its module.

mod arena;
mod arena_tournament;
mod bot_events;
mod bridge;
mod challenge;
mod choice;
mod cli;
mod commands;
mod connect;
mod follow;
mod human;
mod ladder;
mod output;
mod play;
mod render;
mod selfplay;
mod selfplay_local;
mod selfplay_remote;
mod tournament;

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};
use cli::{Cli, Command};
use connect::{CliError, ServerAddr};

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
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
    match runtime.block_on(run(cli, server_typed)) {
        Ok(code) => code,
        // Whoever reads our stdout has seen enough (`druids watch | head`).
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                CliError::Usage(_) | CliError::BadAddress { .. } => ExitCode::from(2),
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
    let ok = Ok(ExitCode::SUCCESS);
    match cli.command {
        Command::Create(args) => commands::create(&server(&cli.server)?, args).await?,
        Command::Join {
            game_id,
            seat,
            name,
        } => commands::join(&server(&cli.server)?, game_id, seat, name).await?,
        Command::List(args) => commands::list(&server(&cli.server)?, args).await?,
        Command::State { game } => commands::state(&server(&cli.server)?, game).await?,
        Command::Watch { game, from_seq } => {
            commands::watch(&server(&cli.server)?, game, from_seq).await?
        }
        Command::Play { game } => play::play(&server(&cli.server)?, game).await?,
        Command::Bot(args) => play::bot(&server(&cli.server)?, args).await?,
        Command::Register(args) => arena::register(&server(&cli.server)?, args).await?,
        Command::RotateKey(args) => arena::rotate_key(&server(&cli.server)?, args).await?,
        Command::RevokeBot(args) => arena::revoke_bot(&server(&cli.server)?, args).await?,
        Command::Challenge(args) => challenge::challenge(&server(&cli.server)?, args).await?,
        Command::AnswerChallenge(args) => challenge::answer(&server(&cli.server)?, args).await?,
        Command::ArenaTournament(args) => {
            arena_tournament::run(&server(&cli.server)?, args.command).await?
        }
        Command::Leaderboard(args) => arena::leaderboard(&server(&cli.server)?, args).await?,
        Command::BotInfo { bot_id, json } => {
            arena::bot_info(&server(&cli.server)?, bot_id, json).await?
        }
        Command::Export { game_id, out } => {
            commands::export(&server(&cli.server)?, game_id, &out).await?
        }
        Command::Health => commands::health(&server(&cli.server)?).await?,
        Command::Replay { file } => {
            no_server(server_typed, "replay")?;
            commands::replay(&file)?
        }
        Command::Tournament(args) => {
            no_server(server_typed, "tournament")?;
            tournament::tournament(args)?
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
