//! The command line: every subcommand of `druids` and the global flags, as
//! clap types. Parsing only; `main` dispatches each subcommand to the module
//! that owns it, and each command's own flags live in its module (shared
//! values such as `--game` or a pool in [`crate::args`]).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::arena::accounts::{RegisterArgs, RevokeBotArgs, RotateKeyArgs};
use crate::arena::challenge::{AnswerArgs, CancelArgs, ChallengeArgs};
use crate::arena::pools::PoolsArgs;
use crate::arena::ratings::LeaderboardArgs;
use crate::arena::tournament::ArenaTournamentArgs;
use crate::args::{BotArgs, GameArgs};
use crate::conformance::ConformanceArgs;
use crate::games::create::CreateArgs;
use crate::games::list::ListArgs;
use crate::offline::matches::MatchArgs;
use crate::offline::tournament::TournamentArgs;
use crate::selfplay::SelfplayArgs;

#[derive(Parser)]
#[command(name = "druids", version, about = "Client for the druids game server")]
pub struct Cli {
    /// Where the server is.
    #[command(flatten)]
    pub server: ServerArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How to reach the server; global, so it may come before or after the
/// subcommand.
#[derive(Args, Clone, Debug)]
pub struct ServerArgs {
    /// Server address: host:port, http://host:port or https://host:port;
    /// nodes of one cluster as a list, a:50051,b:50051 (the next is used
    /// when one stops answering) [default: 127.0.0.1:50051; `selfplay`
    /// without it plays in-process].
    #[arg(long, global = true, env = "DRUIDS_SERVER")]
    pub server: Option<String>,
    /// PEM certificate (or CA) to trust for an https:// server [default: the
    /// system's CA bundle].
    #[arg(long, global = true, env = "DRUIDS_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Create a game; prints its id and one secret token per claimed seat.
    Create(CreateArgs),
    /// Claim an open seat of a game.
    Join {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// Seat to claim (default: the lowest open one).
        #[arg(long)]
        seat: Option<u32>,
        /// Your name.
        #[arg(long, default_value = "")]
        name: String,
    },
    /// List the games on the server, newest first.
    List(ListArgs),
    /// Show a game's state (as your seat with --token, else as a spectator).
    State {
        #[command(flatten)]
        game: GameArgs,
    },
    /// Print a game's events as they happen, one line each.
    Watch {
        #[command(flatten)]
        game: GameArgs,
        /// First event to show (0: a snapshot of now, then live).
        #[arg(long, default_value_t = 0)]
        from_seq: u64,
    },
    /// Play a seat yourself in the terminal (type a choice's letter; `quit`
    /// or Ctrl-D leaves, and the game's turn clock plays on for you).
    Play {
        #[command(flatten)]
        game: GameArgs,
        /// Boards that fit an 80 × 24 terminal.
        #[arg(long)]
        compact: bool,
    },
    /// Give up your seat (--token): the game ends at once and your seat is
    /// ranked last. Prints the events and the final ranking.
    Resign {
        #[command(flatten)]
        game: GameArgs,
    },
    /// Let a built-in bot play a seat until the game ends (any game; the
    /// server says which). Prints one JSON line with the outcome. With
    /// `--seek` and an API key: play the arena's ladder, match after match;
    /// with `--events`, also (or only) its tournament and challenge games.
    Bot(BotArgs),
    /// Arena: register a bot; prints its id and its API key (shown once).
    Register(RegisterArgs),
    /// Arena: replace a bot's API key (the old one stops working at once);
    /// with --bot-id and the operator key, any bot's, also a revoked one's.
    RotateKey(RotateKeyArgs),
    /// Arena: take a bot's key away (its own, or any with the operator key).
    RevokeBot(RevokeBotArgs),
    /// Arena: challenge bots to a match; prints the challenge's id.
    Challenge(ChallengeArgs),
    /// Arena: accept or decline a challenge addressed to the bot.
    AnswerChallenge(AnswerArgs),
    /// Arena: withdraw a pending challenge the bot sent.
    CancelChallenge(CancelArgs),
    /// Arena: tournaments run by the server (create, show, join, follow).
    ArenaTournament(ArenaTournamentArgs),
    /// Arena: the rated bots of a pool (e.g. meduris:4), best first.
    Leaderboard(LeaderboardArgs),
    /// Arena: every pool's turn clock, rated matches and open seeks, and
    /// how matchmaking works: what a bot reads before it seeks.
    Pools(PoolsArgs),
    /// Arena: a bot's profile, its ratings per pool and its latest matches.
    BotInfo {
        /// The bot's id (from `druids register` or the leaderboard).
        bot_id: String,
        /// Print the GetBotResponse as one proto3 JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the replay of a finished game to a file.
    Export {
        /// Game id.
        #[arg(long)]
        game_id: String,
        /// File to write: the binary `Replay` message, or proto3 JSON when
        /// its name ends in `.json` (`druids replay` reads both).
        #[arg(long)]
        out: PathBuf,
    },
    /// A bot's finished games, newest first, one replay in JSON per line
    /// (NDJSON; each line is a file `druids replay` reads).
    ExportGames {
        /// The bot's id (from `druids register` or the leaderboard).
        #[arg(long)]
        bot_id: String,
        /// Most games to write.
        #[arg(long, default_value_t = 100)]
        max: usize,
    },
    /// Ask the server's gRPC health service; exits 0 when it is serving.
    Health,
    /// Re-run a replay file through the engine and check its recorded result
    /// (no server needed).
    Replay {
        /// Replay file (from `druids export`).
        file: PathBuf,
    },
    /// Built-in bots against each other (in-process, no server), seats
    /// rotated every game; `arena-tournament` is the one the server runs.
    Tournament(TournamentArgs),
    /// Play many complete games between random bots and report totals as JSON.
    Selfplay(SelfplayArgs),
    /// Your program (--exec) or a built-in strategy against a line-up of
    /// built-in bots, in-process (no server): N games, seats rotated, one
    /// JSON line per game, win rates and mean scores with 95 % intervals.
    Match(MatchArgs),
    /// Grade a client against a server in test-faults mode: scenarios with
    /// faults on cue, the client started once per scenario with its seat
    /// (`-- CMD ARGS…`, or `--exec CMD` for a line-protocol bot), judged from
    /// the server's ledger: OK, NON-STRICT or FAILED with evidence. It starts
    /// a test-faults server of its own unless `--server` is typed (here
    /// `DRUIDS_SERVER` is not read: it is what the client is given).
    Conformance(ConformanceArgs),
}

/// The command line as `main` parses it: [`Cli`], with `conformance`'s own
/// `--server`. That one reads no `DRUIDS_SERVER` (it is what the client
/// under test is given), so its help must not show the variable as the
/// global flag's does; the value still reaches [`ServerArgs::server`], and
/// `main` uses it only when typed.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let global = Cli::command();
    let server = global
        .get_arguments()
        .find(|a| a.get_id() == "server")
        .expect("the global --server")
        .clone()
        .env(None)
        .help(
            "A server in test-faults mode to grade the client against, instead of one \
             started for the run: host:port, http://host:port or https://host:port \
             (DRUIDS_SERVER is not read here)",
        );
    global.mut_subcommand("conformance", |c| c.arg(server))
}

/// Parses `args` as on a machine where no `DRUIDS_*` variable is set: every
/// flag's `env` fallback is dropped, so that a test's outcome does not depend
/// on the environment it runs in.
#[cfg(test)]
pub fn parse_without_env<'a>(args: impl IntoIterator<Item = &'a str>) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    fn no_env(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| a.env(None)).mut_subcommands(no_env)
    }
    Cli::from_arg_matches(&no_env(command()).try_get_matches_from(args)?)
}

#[cfg(test)]
mod tests;
