//! Server settings: every one has a default, so the server runs with none.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::sqlite::Sync;

use clap::{Parser, ValueEnum};

/// Limits that protect the server from careless or hostile clients.
#[derive(Clone, Debug, clap::Args)]
pub struct Limits {
    /// Most games held at once; CreateGame beyond it fails with RESOURCE_EXHAUSTED.
    #[arg(long, env = "DRUIDS_MAX_GAMES", default_value_t = 100_000)]
    pub max_games: usize,
    /// Most StreamEvents open on one game at once.
    #[arg(long, env = "DRUIDS_MAX_STREAMS_PER_GAME", default_value_t = 64)]
    pub max_streams_per_game: usize,
    /// Most StreamEvents open with one seat's token at once.
    #[arg(long, env = "DRUIDS_MAX_STREAMS_PER_SEAT", default_value_t = 8)]
    pub max_streams_per_seat: usize,
    /// Largest request accepted, in bytes.
    #[arg(long, env = "DRUIDS_MAX_MESSAGE_BYTES", default_value_t = 64 * 1024)]
    pub max_message_bytes: usize,
    /// Most SubmitAction calls per second per seat token (a burst of as many is
    /// allowed); 0: no limit.
    #[arg(long, env = "DRUIDS_MAX_SUBMITS_PER_SECOND", default_value_t = 1000)]
    pub max_submits_per_second: u32,
    /// Unfinished games with no action for this many seconds are abandoned
    /// (kept, marked ABANDONED, never deleted); 0: never.
    #[arg(long, env = "DRUIDS_IDLE_GAME_SECS", default_value_t = 0)]
    pub idle_game_secs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_games: 100_000,
            max_streams_per_game: 64,
            max_streams_per_seat: 8,
            max_message_bytes: 64 * 1024,
            max_submits_per_second: 1000,
            idle_game_secs: 0,
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
    about = "The druids game server (gRPC)"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "DRUIDS_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,
    /// Serve Prometheus metrics (`GET /metrics`) on this address; off when unset.
    #[arg(long, env = "DRUIDS_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// TLS certificate chain (PEM). With --tls-key, the server speaks only TLS.
    #[arg(long, env = "DRUIDS_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, env = "DRUIDS_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Log filter, e.g. `info` or `druids_server=debug` (RUST_LOG syntax).
    #[arg(long, env = "DRUIDS_LOG", default_value = "info")]
    pub log: String,
    /// Log format.
    #[arg(long, env = "DRUIDS_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// The database file holding every game (created if missing).
    #[arg(long, env = "DRUIDS_DB", default_value = "druids-data/druids.db")]
    pub db: PathBuf,
    /// Keep games in memory only: nothing survives a restart.
    #[arg(long, env = "DRUIDS_IN_MEMORY", conflicts_with = "db")]
    pub in_memory: bool,
    /// How each committed action reaches the disk.
    #[arg(long, env = "DRUIDS_SYNC", value_enum, default_value = "full")]
    pub sync: Sync,
    /// Limits.
    #[command(flatten)]
    pub limits: Limits,
}
