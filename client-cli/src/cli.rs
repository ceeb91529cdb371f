//! The command line: every subcommand, flag and environment variable of
//! `druids`, as clap types. Parsing only; `main` dispatches each subcommand to
//! its function.
//!
//! Games are named by the registry (`druids_contract::registry`), so a new game shows up
//! in `--game` without an edit here.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use druids_contract::{Kind, pb};

/// Turn clock of self-play games with silent seats, unless --decision-ms says otherwise.
pub const SILENT_DECISION_MS: u32 = 200;

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
    /// Server address: host:port, http://host:port or https://host:port
    /// [default: 127.0.0.1:50051; `selfplay` without it plays in-process].
    #[arg(long, global = true, env = "DRUIDS_SERVER")]
    pub server: Option<String>,
    /// PEM certificate (or CA) to trust for an https:// server [default: the
    /// system's CA bundle].
    #[arg(long, global = true, env = "DRUIDS_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
}

/// Which game, and as whom.
#[derive(Args, Clone, Debug)]
pub struct GameArgs {
    /// Game id.
    #[arg(long)]
    pub game_id: String,
    /// Seat token (without it: a spectator; `play` and `bot` need one).
    #[arg(long, env = "DRUIDS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

/// The built-in bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Uniformly random legal actions.
    Random,
    /// One-ply search on the game's evaluation.
    Greedy,
    /// Information-set Monte Carlo tree search (--think-ms / --iterations).
    Mcts,
}

impl From<StrategyArg> for druids_bots::Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Random => druids_bots::Strategy::Random,
            StrategyArg::Greedy => druids_bots::Strategy::Greedy,
            StrategyArg::Mcts => druids_bots::Strategy::Mcts,
        }
    }
}

impl StrategyArg {
    /// Its name on the command line.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }
}

/// `--game`: one of the registry's names ("meduris", "dolmen", ...).
pub(crate) fn game_kind() -> impl TypedValueParser<Value = Kind> {
    let names: Vec<&'static str> = Kind::all().map(Kind::name).collect();
    PossibleValuesParser::new(names)
        .map(|name| Kind::from_name(&name).expect("the parser lists only registered names"))
}

/// An arena pool to seek in: a game and how many players it may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Which game.
    pub kind: Kind,
    /// Fewest players accepted.
    pub min_players: u32,
    /// Most players accepted.
    pub max_players: u32,
}

impl std::fmt::Display for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let game = self.kind.name();
        if self.min_players == self.max_players {
            write!(f, "{game}:{}", self.min_players)
        } else {
            write!(f, "{game}:{}-{}", self.min_players, self.max_players)
        }
    }
}

/// Parses `meduris:4` or `dolmen:2-4` (a game of the registry, then a player
/// count or range).
pub fn pool(given: &str) -> Result<Pool, String> {
    let names: Vec<&str> = Kind::all().map(Kind::name).collect();
    let (game, players) = given.split_once(':').ok_or_else(|| {
        format!(
            "expected GAME:PLAYERS or GAME:MIN-MAX (e.g. meduris:4, dolmen:2-4), games: {}",
            names.join(", ")
        )
    })?;
    let kind = Kind::from_name(game.trim())
        .ok_or_else(|| format!("unknown game {game:?} (one of {})", names.join(", ")))?;
    let count = |n: &str| {
        n.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 2)
            .ok_or_else(|| format!("{n:?} is not a player count (2 or more)"))
    };
    let (min_players, max_players) = match players.split_once('-') {
        Some((lo, hi)) => (count(lo)?, count(hi)?),
        None => {
            let n = count(players)?;
            (n, n)
        }
    };
    if min_players > max_players {
        return Err(format!("{min_players}-{max_players} is an empty range"));
    }
    Ok(Pool {
        kind,
        min_players,
        max_players,
    })
}

/// A leaderboard's pool: one game and one player count (`meduris:4`).
fn exact_pool(given: &str) -> Result<Pool, String> {
    let p = pool(given)?;
    if p.min_players != p.max_players {
        return Err("a leaderboard is of one player count (e.g. meduris:4)".into());
    }
    Ok(p)
}

/// The name of a `GameStatus` on the command line: "waiting-for-players",
/// "running", ...
pub fn status_name(status: pb::GameStatus) -> String {
    status
        .as_str_name()
        .trim_start_matches("GAME_STATUS_")
        .to_lowercase()
        .replace('_', "-")
}

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
    /// Play a seat yourself in the terminal.
    Play {
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
    RotateKey(crate::arena::RotateKeyArgs),
    /// Arena: take a bot's key away (its own, or any with the operator key).
    RevokeBot(crate::arena::RevokeBotArgs),
    /// Arena: challenge bots to a match; prints the challenge's id.
    Challenge(crate::challenge::ChallengeArgs),
    /// Arena: accept or decline a challenge addressed to the bot.
    AnswerChallenge(crate::challenge::AnswerArgs),
    /// Arena: tournaments run by the server (create, show, join, follow).
    ArenaTournament(crate::arena_tournament::ArenaTournamentArgs),
    /// Arena: the rated bots of a pool (e.g. meduris:4), best first.
    Leaderboard(LeaderboardArgs),
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
        /// File to write.
        #[arg(long)]
        out: PathBuf,
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
}

#[derive(Args)]
pub struct CreateArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: Kind,
    /// Number of seats.
    #[arg(long)]
    pub players: u32,
    /// RNG seed (the server picks a secret one if not given).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Leave this seat open for `druids join` (repeatable).
    #[arg(long = "open-seat")]
    pub open_seats: Vec<u32>,
    /// Seat names: once per claimed seat, or once per seat (repeatable).
    #[arg(long = "name")]
    pub names: Vec<String>,
    /// Seat that starts.
    #[arg(long)]
    pub start_seat: Option<u32>,
    /// Safeguard: regular play ends after this many turns.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Turn clock: milliseconds per decision.
    #[arg(long)]
    pub decision_ms: Option<u32>,
    /// Turn clock: reserve per seat, in milliseconds.
    #[arg(long)]
    pub time_bank_ms: Option<u32>,
    /// Turn clock: consecutive timeouts before autopilot.
    #[arg(long)]
    pub autopilot_after: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ListArgs {
    /// Only games of this kind.
    #[arg(long, value_parser = game_kind())]
    pub game: Option<Kind>,
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

/// A bot's seat: one game (`--game-id` and a seat token), or the arena's
/// ladder (`--seek` and/or `--events` with the bot's API key).
#[derive(Args)]
pub struct BotArgs {
    /// Game id: play this game's seat of --token.
    #[arg(long, required_unless_present_any = ["seek", "events"])]
    pub game_id: Option<String>,
    /// Seat token (with --game-id).
    #[arg(long, env = "DRUIDS_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Arena: play on the ladder in this pool, game and player count or range
    /// (meduris:4, dolmen:2-4), seeking again after every match.
    #[arg(long, value_name = "GAME:PLAYERS", value_parser = pool, conflicts_with = "game_id")]
    pub seek: Option<Pool>,
    /// Arena: the bot's API key (from `druids register`).
    #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
    pub key: Option<String>,
    /// Arena: rated matches (they count for the leaderboard; rated Meduris
    /// matches are duplicate matches, one game per seat rotation).
    #[arg(long, requires = "seek", conflicts_with = "game_id")]
    pub rated: bool,
    /// Arena: stop after this many matches [default: play until Ctrl-C].
    #[arg(long, alias = "matches", requires = "seek", conflicts_with = "game_id")]
    pub games: Option<u32>,
    /// Arena: seeks (and so matches) kept going at the same time.
    #[arg(long, default_value_t = 1, requires = "seek", conflicts_with = "game_id", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub concurrent: u32,
    /// Arena: also follow the bot's events and play the games of the matches
    /// it did not seek (tournaments, challenges) until Ctrl-C.
    #[arg(long, conflicts_with = "game_id")]
    pub events: bool,
    /// Arena: accept every challenge the bot receives (with --events).
    #[arg(long, requires = "events")]
    pub accept_challenges: bool,
    /// Strategy.
    #[arg(long, value_enum, default_value = "random")]
    pub strategy: StrategyArg,
    /// Seed of the bot's choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// MCTS thinking time per decision, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// MCTS iterations per decision instead of a time limit.
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Play with this program instead of a built-in strategy: it reads JSON
    /// lines on stdin and prints its moves (docs/bot-protocol.md).
    #[arg(long, conflicts_with_all = ["strategy", "seed", "think_ms", "iterations"])]
    pub exec: Option<String>,
}

#[derive(Args)]
pub struct RegisterArgs {
    /// The bot's name on leaderboards (unique on the server, 1 to 40 bytes).
    #[arg(long)]
    pub name: String,
    /// What the bot is and how it plays.
    #[arg(long, default_value = "")]
    pub description: String,
    /// How to reach its owner (shown only to the operator).
    #[arg(long, default_value = "")]
    pub contact: String,
    /// Registration key, for a server with closed registration (the
    /// operator's key).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object {"bot_id", "api_key"} instead of text.
    #[arg(long)]
    pub json: bool,
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

#[derive(Args)]
pub struct TournamentArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: Kind,
    /// Number of seats (must match the line-up).
    #[arg(long)]
    pub players: Option<usize>,
    /// Line-up, one strategy per seat, comma-separated (e.g. random,greedy,mcts).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "greedy,random"
    )]
    pub bots: Vec<StrategyArg>,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Seed of the first game.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// MCTS thinking time per decision, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// MCTS iterations per decision instead of a time limit (reproducible).
    #[arg(long)]
    pub iterations: Option<u32>,
}

#[derive(Args)]
pub struct SelfplayArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: Kind,
    /// Seats per game.
    #[arg(long, default_value_t = 4)]
    pub players: usize,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Seed of the first game (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// With --server: this fraction of the seats never answers (their
    /// clocks run out; the games get a clock of --decision-ms).
    #[arg(long, default_value_t = 0.0)]
    pub silent_fraction: f64,
    /// With --server: turn clock per decision, in milliseconds (default:
    /// none, or 200 when some seats are silent).
    #[arg(long)]
    pub decision_ms: Option<u32>,
    /// With --server: consecutive timeouts before the autopilot takes over.
    #[arg(long, default_value_t = 0)]
    pub autopilot_after: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn games_come_from_the_registry_and_bots_are_a_list() {
        let cli = Cli::try_parse_from([
            "druids",
            "tournament",
            "--game",
            "dolmen",
            "--bots",
            "random,greedy,mcts",
        ])
        .unwrap();
        let Command::Tournament(t) = cli.command else {
            panic!("tournament")
        };
        assert_eq!(t.game, Kind::Dolmen);
        assert_eq!(
            t.bots,
            [StrategyArg::Random, StrategyArg::Greedy, StrategyArg::Mcts]
        );
        assert!(
            Cli::try_parse_from(["druids", "create", "--game", "chess", "--players", "2"]).is_err()
        );
        let cli =
            Cli::try_parse_from(["druids", "list", "--status", "waiting-for-players"]).unwrap();
        let Command::List(l) = cli.command else {
            panic!("list")
        };
        assert_eq!(l.status, Some(pb::GameStatus::WaitingForPlayers));
    }

    #[test]
    fn pools_name_a_game_and_a_player_count_or_range() {
        assert_eq!(
            pool("meduris:4").unwrap(),
            Pool {
                kind: Kind::Meduris,
                min_players: 4,
                max_players: 4
            }
        );
        let range = pool("dolmen:2-4").unwrap();
        assert_eq!(
            (range.kind, range.min_players, range.max_players),
            (Kind::Dolmen, 2, 4)
        );
        assert_eq!(range.to_string(), "dolmen:2-4");
        for bad in [
            "meduris",
            "chess:2",
            "meduris:1",
            "meduris:4-2",
            "meduris:x",
            "dolmen:2-",
        ] {
            assert!(pool(bad).is_err(), "{bad}");
        }
        assert!(exact_pool("dolmen:2-4").is_err());
    }

    #[test]
    fn bot_plays_one_seat_or_the_ladder() {
        let one = ["druids", "bot", "--game-id", "g", "--token", "t"];
        let Command::Bot(b) = Cli::try_parse_from(one).unwrap().command else {
            panic!("bot")
        };
        assert_eq!((b.game_id.as_deref(), b.seek), (Some("g"), None));
        let ladder = [
            "druids",
            "bot",
            "--key",
            "k",
            "--seek",
            "meduris:4",
            "--rated",
            "--games",
            "3",
            "--concurrent",
            "2",
            "--strategy",
            "greedy",
        ];
        let Command::Bot(b) = Cli::try_parse_from(ladder).unwrap().command else {
            panic!("bot")
        };
        assert_eq!(b.seek.map(|p| p.max_players), Some(4));
        assert!(b.rated);
        assert_eq!(
            (b.games, b.concurrent, b.key.as_deref()),
            (Some(3), 2, Some("k"))
        );
        // Neither a game nor a pool; both; ladder flags without --seek.
        assert!(Cli::try_parse_from(["druids", "bot", "--token", "t"]).is_err());
        assert!(
            Cli::try_parse_from(["druids", "bot", "--game-id", "g", "--seek", "meduris:2"])
                .is_err()
        );
        assert!(
            Cli::try_parse_from(["druids", "bot", "--game-id", "g", "--token", "t", "--rated"])
                .is_err()
        );
        let Command::Leaderboard(l) = Cli::try_parse_from(["druids", "leaderboard", "dolmen:3"])
            .unwrap()
            .command
        else {
            panic!("leaderboard")
        };
        assert_eq!((l.pool.kind, l.pool.min_players), (Kind::Dolmen, 3));
    }
}
