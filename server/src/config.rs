//! Server settings: every one has a default, so the server runs with none.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::store::Sync;

use clap::{Parser, ValueEnum};

/// Limits that protect the server from careless or hostile clients. Every
/// one is a flag with an environment variable; a rate of 0 turns it off.
#[derive(Clone, Debug, clap::Args)]
pub struct Limits {
    /// Most games in play (waiting for players or running) at once; finished
    /// and abandoned games do not count. CreateGame beyond it fails with
    /// RESOURCE_EXHAUSTED.
    #[arg(long, env = "DRUIDS_MAX_GAMES", default_value_t = 100_000)]
    pub max_games: usize,
    /// Most games in play that one client address has made (CreateGame,
    /// CreateTestGame, practice games; an IPv6 address counts by its /64).
    /// Beyond it, CreateGame fails with RESOURCE_EXHAUSTED until some end.
    /// 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_GAMES_PER_ADDRESS", default_value_t = 1_000)]
    pub max_games_per_address: usize,
    /// Most spectator (no token) StreamEvents open on one game at once. Seats'
    /// own streams never count against it.
    #[arg(
        long,
        env = "DRUIDS_MAX_SPECTATOR_STREAMS_PER_GAME",
        default_value_t = 256
    )]
    pub max_spectator_streams_per_game: usize,
    /// Most StreamEvents open with one seat's token at once.
    #[arg(long, env = "DRUIDS_MAX_STREAMS_PER_SEAT", default_value_t = 8)]
    pub max_streams_per_seat: usize,
    /// StreamEvents each seat of a game in play may always open, whatever
    /// the other budgets: they count only against --max-streams-per-seat.
    #[arg(long, env = "DRUIDS_RESERVED_STREAMS_PER_SEAT", default_value_t = 2)]
    pub reserved_streams_per_seat: usize,
    /// Most streams open from one client address: StreamEvents (all games:
    /// every spectator's, and seats' beyond their reserved ones),
    /// StreamBotEvents and StreamTournamentEvents.
    #[arg(long, env = "DRUIDS_MAX_STREAMS_PER_ADDRESS", default_value_t = 64)]
    pub max_streams_per_address: usize,
    /// Most streams (StreamEvents, StreamBotEvents, StreamTournamentEvents)
    /// open on the whole server, besides the seats' reserved ones.
    #[arg(long, env = "DRUIDS_MAX_OPEN_STREAMS", default_value_t = 20_000)]
    pub max_open_streams: usize,
    /// A StreamEvents, Seek, StreamBotEvents or StreamTournamentEvents
    /// stream on which nothing was sent for this many milliseconds sends a
    /// heartbeat (GameEvent.heartbeat and the like), so a client tells a
    /// quiet stream from a server that is gone. 50 ms to 1 hour.
    #[arg(long, env = "DRUIDS_STREAM_HEARTBEAT_MS", default_value_t = 15_000,
          value_parser = clap::value_parser!(u64).range(50..=3_600_000))]
    pub stream_heartbeat_ms: u64,
    /// Threads that take the decisions of the bots the server runs (practice
    /// games' bots, house bots), shared by all of them, off the async workers
    /// (see `bot_cpu.rs`): the most CPU cores those bots ever use.
    #[arg(long, env = "DRUIDS_BOT_THREADS", default_value_t = 1)]
    pub bot_threads: usize,
    /// Practice games (games with the server's bots, `POST /web/v1/practice`)
    /// one client address may have in play at once.
    #[arg(long, env = "DRUIDS_PRACTICE_GAMES_PER_ADDRESS", default_value_t = 2)]
    pub practice_games_per_address: usize,
    /// Practice games of all addresses in play at once.
    #[arg(long, env = "DRUIDS_MAX_PRACTICE_GAMES", default_value_t = 32)]
    pub max_practice_games: usize,
    /// Most concurrent calls (HTTP/2 streams) on one connection; more wait.
    #[arg(long, env = "DRUIDS_MAX_CALLS_PER_CONNECTION", default_value_t = 128)]
    pub max_calls_per_connection: u32,
    /// Most calls from one client address (an IPv6 address by its /64) whose
    /// request message was not whole when the server first read it, at once;
    /// more are refused with RESOURCE_EXHAUSTED. 0: no limit.
    #[arg(
        long,
        env = "DRUIDS_MAX_WAITING_CALLS_PER_ADDRESS",
        default_value_t = 1_024
    )]
    pub max_waiting_calls_per_address: usize,
    /// The same, for all addresses together. 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_WAITING_CALLS", default_value_t = 8_192)]
    pub max_waiting_calls: usize,
    /// Most client connections open at once; more are closed at once.
    #[arg(long, env = "DRUIDS_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,
    /// Most connections open at once from one client address (an IPv6
    /// address counts by its /64), on each listener; more are closed at
    /// once. 0: no limit.
    #[arg(
        long,
        env = "DRUIDS_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 500
    )]
    pub max_connections_per_address: usize,
    /// A new connection that sends nothing for this many seconds is closed
    /// (and one whose HTTP request head takes longer); an HTTP request body
    /// not whole within three times this is answered 408.
    #[arg(long, env = "DRUIDS_HANDSHAKE_TIMEOUT_SECS", default_value_t = 10)]
    pub handshake_timeout_secs: u64,
    /// A connection that sends nothing (not even a keep-alive answer) for this
    /// many seconds is closed. The server pings idle connections every third
    /// of it, so a live client never reaches it.
    #[arg(long, env = "DRUIDS_IDLE_CONNECTION_SECS", default_value_t = 300)]
    pub idle_connection_secs: u64,
    /// Origins besides the server's own whose web pages may POST to the HTTP
    /// face (a comma-separated list such as `https://play.example`): a POST
    /// carrying an `Origin` header of any other origin is refused.
    #[arg(
        long,
        env = "DRUIDS_HTTP_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_parser = parse_origin
    )]
    pub http_allowed_origins: Vec<String>,
    /// Host names besides IP addresses and `localhost` that the HTTP face
    /// answers to (a comma-separated list such as `play.example`; `*`: any
    /// name): a request naming another host is refused (421), so that a page
    /// of another site whose own name was pointed at this server (DNS
    /// rebinding) cannot call it as if it were its own.
    #[arg(
        long,
        env = "DRUIDS_HTTP_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_parser = parse_host
    )]
    pub http_allowed_hosts: Vec<String>,
    /// Largest request accepted, in bytes.
    #[arg(long, env = "DRUIDS_MAX_MESSAGE_BYTES", default_value_t = 64 * 1024)]
    pub max_message_bytes: usize,
    /// Most SubmitAction calls per second per seat token (a burst of as many is
    /// allowed); 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_SUBMITS_PER_SECOND", default_value_t = 1000)]
    pub max_submits_per_second: u32,
    /// Most CreateGame and JoinGame calls per second from one client address
    /// (a burst of as many); 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_SETUPS_PER_SECOND", default_value_t = 50)]
    pub max_setups_per_second: u32,
    /// Read budget per second of each seat token for its game (a burst of as
    /// much): GetState, GetLegalActions, ExportReplay and opening a stream
    /// cost 1. 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_READS_PER_SECOND", default_value_t = 200)]
    pub max_reads_per_second: u32,
    /// Read budget per second of each client address for calls without a
    /// token this server knows (spectators; a made-up token buys no budget),
    /// costed as above, for ListGames (10), ListGameTypes (1) and the
    /// arena's public reads (leaderboards, rating histories and tournament
    /// lists 10, the rest 1) whatever token they send, and 1 for each refused
    /// token or game read back from the store. 0: no limit.
    #[arg(
        long,
        env = "DRUIDS_MAX_ANONYMOUS_READS_PER_SECOND",
        default_value_t = 1000
    )]
    pub max_anonymous_reads_per_second: u32,
    /// Unfinished games with no action for this many seconds are abandoned
    /// (kept, marked ABANDONED, like finished games), so that games made and
    /// left never hold --max-games for good; 0: never.
    #[arg(long, env = "DRUIDS_IDLE_GAME_SECS", default_value_t = 86_400)]
    pub idle_game_secs: u64,
    /// A game that ended (finished or abandoned) stays in memory this many
    /// seconds, retries of its submissions still answered; then it lives in
    /// the store only and is read back when asked for.
    #[arg(long, env = "DRUIDS_EVICT_AFTER_SECS", default_value_t = 300)]
    pub evict_after_secs: u64,
    /// How many ended games read back from the store stay in memory (the most
    /// recently read).
    #[arg(long, env = "DRUIDS_RECENT_GAMES", default_value_t = 256)]
    pub recent_games: usize,
    /// Delete finished and abandoned games (with their logs and replays) once
    /// they ended more than this many days ago; unset: keep them forever.
    /// Games in play are never deleted. See `crate::retention`.
    #[arg(long, env = "DRUIDS_RETAIN_FINISHED_DAYS", value_parser = clap::value_parser!(u64).range(1..))]
    pub retain_finished_days: Option<u64>,
    /// Test mode: games made by TestingService.CreateTestGame carry fault
    /// plans (streams ended, calls refused or their answers lost, on cue) and
    /// ledgers of what their clients did (docs/testing-clients.md). Never on
    /// a server real players use. Off: every TestingService call is refused.
    #[arg(long, env = "DRUIDS_TEST_FAULTS", value_parser = clap::builder::BoolishValueParser::new())]
    pub test_faults: bool,
    /// The arena's settings.
    #[command(flatten)]
    pub arena: ArenaSettings,
    /// The games this server hosts: the contract's (tests may add the test
    /// tree's, [`crate::catalog::Catalog::with_test_games`]). Not a flag.
    #[arg(skip)]
    pub catalog: crate::catalog::Catalog,
}

/// Who may register bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Registration {
    /// Anyone (a quota per client address applies).
    Open,
    /// Only callers presenting the operator key (`--operator-key`).
    Closed,
}

/// The arena: registration, quotas per bot, the clock of its games, the
/// rating fit's period (README, "Run a ladder").
#[derive(Clone, Debug, clap::Args)]
pub struct ArenaSettings {
    /// Who may register bots.
    #[arg(long, env = "DRUIDS_REGISTRATION", value_enum, default_value = "open")]
    pub registration: Registration,
    /// The operator key: registers bots when registration is closed.
    #[arg(long, env = "DRUIDS_OPERATOR_KEY")]
    pub operator_key: Option<String>,
    /// Bots one client address may register per hour (open registration).
    #[arg(long, env = "DRUIDS_REGISTRATIONS_PER_HOUR", default_value_t = 20)]
    pub registrations_per_hour: u32,
    /// Matches one bot may play at once (a duplicate match counts once,
    /// though its games are played at once). Seeks and acceptances beyond it
    /// are refused.
    #[arg(long, env = "DRUIDS_BOT_MAX_GAMES", default_value_t = 8)]
    pub bot_max_games: u32,
    /// Challenges one bot may send per hour.
    #[arg(long, env = "DRUIDS_BOT_CHALLENGES_PER_HOUR", default_value_t = 60)]
    pub bot_challenges_per_hour: u32,
    /// House bots: the server's own built-in bots, one per level (`random`,
    /// `greedy`, `mcts-N` with N iterations per decision), that join a seek
    /// lacking opponents, comma-separated; `none` for none. Off on a node
    /// of several.
    #[arg(
        long,
        env = "DRUIDS_HOUSE_BOTS",
        default_value = "random,greedy,mcts-100,mcts-400"
    )]
    pub house_bots: crate::house_levels::Levels,
    /// How long a seek waits for want of bots before house bots join it, ms.
    #[arg(long, env = "DRUIDS_HOUSE_BOTS_AFTER_MS", default_value_t = 1_000)]
    pub house_bots_after_ms: u64,
    /// Seeks one bot may have open at once.
    #[arg(long, env = "DRUIDS_BOT_MAX_SEEKS", default_value_t = 8)]
    pub bot_max_seeks: u32,
    /// Pending challenges one bot may have received at once (and one from
    /// each challenger).
    #[arg(long, env = "DRUIDS_BOT_MAX_PENDING_CHALLENGES", default_value_t = 20)]
    pub bot_max_pending_challenges: u32,
    /// Tournaments one bot may create per hour (open registration; the
    /// operator has no quota).
    #[arg(long, env = "DRUIDS_BOT_TOURNAMENTS_PER_HOUR", default_value_t = 4)]
    pub bot_tournaments_per_hour: u32,
    /// A bot is established in a pool (ranked; may play rated challenges)
    /// after this many rated matches there...
    #[arg(
        long = "arena-established-matches",
        env = "DRUIDS_ARENA_ESTABLISHED_MATCHES",
        default_value_t = 10
    )]
    pub established_matches: u32,
    /// ...against at least this many distinct opponents (or every other bot
    /// rated in a pool that has fewer).
    #[arg(
        long = "arena-established-opponents",
        env = "DRUIDS_ARENA_ESTABLISHED_OPPONENTS",
        default_value_t = 5
    )]
    pub established_opponents: u32,
    /// Rated matches two bots may start together per pool and day before a
    /// rated challenge between them is played unrated (matchmaking and the
    /// operator's tournaments are not capped).
    #[arg(
        long = "arena-pair-matches-per-day",
        env = "DRUIDS_ARENA_PAIR_MATCHES_PER_DAY",
        default_value_t = 1
    )]
    pub pair_matches_per_day: u32,
    /// Arena games' turn clock: milliseconds per decision.
    #[arg(
        long = "arena-decision-ms",
        env = "DRUIDS_ARENA_DECISION_MS",
        default_value_t = 10_000
    )]
    pub decision_ms: u32,
    /// Arena games' turn clock: each seat's reserve, milliseconds.
    #[arg(
        long = "arena-time-bank-ms",
        env = "DRUIDS_ARENA_TIME_BANK_MS",
        default_value_t = 60_000
    )]
    pub time_bank_ms: u32,
    /// Arena games: consecutive timeouts that put a seat on autopilot.
    #[arg(
        long = "arena-autopilot-after",
        env = "DRUIDS_ARENA_AUTOPILOT_AFTER",
        default_value_t = 3
    )]
    pub autopilot_after: u32,
    /// Seconds between two maximum-likelihood fits of a pool with new results.
    #[arg(
        long = "arena-fit-secs",
        env = "DRUIDS_ARENA_FIT_SECS",
        default_value_t = 60
    )]
    pub fit_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        use clap::Parser;
        /// Parses no arguments, so the defaults live in one place: the flags.
        #[derive(Parser)]
        struct Defaults {
            #[command(flatten)]
            limits: Limits,
        }
        Defaults::parse_from(["druids-server"]).limits
    }
}

impl Limits {
    /// No rate limits: for benchmarks and tests that drive many games from
    /// one address on purpose.
    pub fn unthrottled() -> Limits {
        Limits {
            max_submits_per_second: 0,
            max_setups_per_second: 0,
            max_reads_per_second: 0,
            max_anonymous_reads_per_second: 0,
            max_games_per_address: 0,
            max_connections_per_address: 0,
            max_waiting_calls_per_address: 0,
            ..Limits::default()
        }
    }
}

/// How log lines look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// `druids-server` command line (each flag also reads an environment variable).
#[derive(Clone, Debug, Parser)]
#[command(
    name = "druids-server",
    version,
    about = "The druids game server (gRPC)",
    after_help = "Export: `druids-server export-all --db PATH [--after GAME_ID]` writes every \
                  ended game as NDJSON replays to stdout (see `druids-server export-all --help`)."
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "DRUIDS_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Serve Prometheus metrics (`GET /metrics`) on this address; `off` (or
    /// unset): don't.
    #[arg(long, env = "DRUIDS_METRICS_LISTEN", default_value = "off", value_parser = parse_listen)]
    pub metrics_listen: ListenOn,
    /// Serve the HTTP/JSON face and the web viewer on this address; `off`: don't.
    #[arg(long, env = "DRUIDS_HTTP_LISTEN", default_value = "127.0.0.1:8080", value_parser = parse_listen)]
    pub http_listen: ListenOn,
    /// TLS certificate chain (PEM). With --tls-key, the server speaks only TLS.
    #[arg(long, env = "DRUIDS_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, env = "DRUIDS_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Log filter, e.g. `info` or `druids_server=debug` (RUST_LOG syntax).
    #[arg(
        long,
        env = "DRUIDS_LOG",
        default_value = "info,h2=error,refinery_core=warn,tokio_postgres=warn"
    )]
    pub log: String,
    /// Log format.
    #[arg(long, env = "DRUIDS_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Where every game is kept: a SQLite file (created if missing), or a
    /// PostgreSQL database as `postgres://user:password@host:port/database`.
    #[arg(long, env = "DRUIDS_DB", default_value = "druids-data/druids.db", value_parser = parse_db)]
    pub db: PathBuf,
    /// Keep games in memory only: nothing survives a restart.
    #[arg(long, env = "DRUIDS_IN_MEMORY", conflicts_with = "db", value_parser = clap::builder::BoolishValueParser::new())]
    pub in_memory: bool,
    /// How each committed action reaches the disk.
    #[arg(long, env = "DRUIDS_SYNC", value_enum, default_value = "full")]
    pub sync: Sync,
    /// Run as one node of several sharing a PostgreSQL `--db`, under this
    /// name (stable and unique per node, e.g. the pod name).
    #[arg(long, env = "DRUIDS_NODE_ID", value_parser = parse_node_id)]
    pub node_id: Option<String>,
    /// Where the other nodes reach this node's gRPC port, as a URL
    /// (`http://10.0.0.7:50051`); default: `http://` and the address listened on.
    #[arg(long, env = "DRUIDS_ADVERTISE_ADDR", requires = "node_id")]
    pub advertise_addr: Option<String>,
    /// How long a node's leases on its games last without renewal: a dead
    /// node's games move to other nodes after this.
    #[arg(long, env = "DRUIDS_LEASE_SECS", default_value_t = crate::cluster::DEFAULT_LEASE_SECS,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub lease_secs: u64,
    /// Limits.
    #[command(flatten)]
    pub limits: Limits,
}

/// An origin as browsers send it: `scheme://host[:port]`, no path.
fn parse_origin(s: &str) -> Result<String, String> {
    let origin = s.trim().trim_end_matches('/');
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', ' ']) => {
            Ok(origin.to_ascii_lowercase())
        }
        _ => Err(format!(
            "{s:?} is not an origin: give scheme://host[:port], e.g. https://play.example"
        )),
    }
}

fn parse_host(s: &str) -> Result<String, String> {
    let host = s.trim().trim_end_matches('.').to_ascii_lowercase();
    let name = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    if host == "*" || name {
        return Ok(host);
    }
    Err(format!(
        "{s:?} is not a host name: give a name such as play.example (no scheme, no port), or *"
    ))
}

/// A SQLite path or a PostgreSQL URL. Anything else that starts like a URL
/// (`sqlite:…`, `mysql://…`) is refused rather than taken for a file named
/// so in the working directory.
fn parse_db(s: &str) -> Result<PathBuf, String> {
    if druids_store::postgres::is_url(s) {
        return Ok(PathBuf::from(s));
    }
    let scheme = s.split_once(':').map(|(scheme, _)| scheme);
    let looks_like_url = scheme.is_some_and(|scheme| {
        scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if looks_like_url {
        return Err(
            "--db takes the path of a SQLite file (e.g. druids-data/druids.db) or a postgres:// URL; \
             a SQLite file is named by its path alone, without a scheme"
                .into(),
        );
    }
    Ok(PathBuf::from(s))
}

fn parse_node_id(s: &str) -> Result<String, String> {
    if s.is_empty() || s.len() > 128 || !s.chars().all(|c| c.is_ascii_graphic()) {
        return Err("a node id is 1 to 128 printable ASCII characters, no spaces".into());
    }
    Ok(s.to_owned())
}

/// Where a face of the server (HTTP, metrics) listens, if anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListenOn(pub Option<SocketAddr>);

fn parse_listen(s: &str) -> Result<ListenOn, String> {
    match s {
        "off" => Ok(ListenOn(None)),
        addr => addr
            .parse()
            .map(|a| ListenOn(Some(a)))
            .map_err(|e| format!("{e} (an address such as 127.0.0.1:8080, or off)")),
    }
}

impl Config {
    /// Parses the command line and the environment, as `Config::parse` does,
    /// but a refused value that came from an environment variable is said to
    /// have come from it: clap names only the flag (`--test-faults`), which
    /// an operator who set `DRUIDS_TEST_FAULTS` never typed.
    pub fn parse_or_exit() -> Config {
        use clap::CommandFactory;
        let err = match Config::try_parse() {
            Ok(config) => return config,
            Err(err) => err,
        };
        let argv: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        match env_source(&Config::command(), &err, &argv) {
            Some(var) => {
                eprint!("{}", err.render());
                eprintln!("note: that value came from the environment variable {var}");
                std::process::exit(err.exit_code());
            }
            None => err.exit(),
        }
    }
}

/// The environment variable a refused value came from: the refused flag's
/// variable, when it is set and the flag is not on the command line.
fn env_source(command: &clap::Command, err: &clap::Error, argv: &[String]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(flag)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    // "--max-games <MAX_GAMES>" or "--test-faults".
    let long = flag.split_whitespace().next()?.strip_prefix("--")?;
    let arg = command
        .get_arguments()
        .find(|a| a.get_long() == Some(long))?;
    let var = arg.get_env()?.to_str()?;
    let typed = argv.iter().skip(1).any(|a| {
        a.strip_prefix("--")
            .and_then(|a| a.strip_prefix(long))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    });
    (!typed && std::env::var_os(var).is_some()).then(|| var.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn db_is_a_path_or_a_postgres_url() {
        for ok in [
            "druids-data/druids.db",
            "/var/lib/druids/druids.db",
            "./sqlite:odd.db",
            "C:/druids.db",
            "postgres://u:p@h:5432/d",
            "postgresql://h/d",
        ] {
            assert_eq!(parse_db(ok), Ok(PathBuf::from(ok)), "{ok}");
        }
        for bad in [
            "sqlite:/tmp/a.db",
            "sqlite:///tmp/a.db",
            "mysql://h/d",
            "file:a.db",
        ] {
            let refused = parse_db(bad).unwrap_err();
            assert!(refused.contains("path alone"), "{bad}: {refused}");
            assert!(!refused.contains(bad), "no echo of the value: {refused}");
        }
    }
}
