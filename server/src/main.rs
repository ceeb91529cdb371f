//! `druids-server`: parses flags, sets up logging, binds, serves until SIGINT or
//! SIGTERM. `druids-server export-all` instead writes the ended games of a
//! database as JSON lines and exits (see `druids_server::export`).

use std::sync::Arc;

use clap::Parser;
use druids_server::config::{Config, LogFormat};
use druids_server::{MemoryStore, Store, Tls};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than the system allocator: a busy server allocates and frees
/// many small buffers per request across threads, where glibc's malloc spent
/// about a quarter of the time at 1,000 concurrent games (see BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `druids-server export-all`: its own command line, so that the server's
/// flags (and their environment variables) play no part in it.
#[derive(Debug, Parser)]
#[command(
    name = "druids-server export-all",
    bin_name = "druids-server export-all",
    version,
    about = "Writes every ended game of a druids database to stdout as \
             newline-delimited JSON, one druids.v1.Replay per line, in game-id order"
)]
struct ExportArgs {
    /// The database, as the server's --db: a SQLite file (it must exist) or a
    /// `postgres://` URL.
    #[arg(long)]
    db: std::path::PathBuf,
    /// Start after this game id: the last id a stopped export wrote.
    #[arg(long, default_value = "")]
    after: String,
}

/// Runs `export-all`: replays on stdout, a summary or the error on stderr.
/// Blocks on the store: run it off the async workers.
fn export_all(args: ExportArgs) -> std::process::ExitCode {
    use std::io::Write;
    let is_url = args.db.to_str().is_some_and(druids_store::postgres::is_url);
    // Opening creates a missing file: an export of a mistyped path must fail.
    if !is_url && !args.db.is_file() {
        eprintln!(
            "druids-server export-all: no database at {}",
            args.db.display()
        );
        return std::process::ExitCode::FAILURE;
    }
    // Nothing is written but the schema's migrations, so no commit waits for the disk.
    let store = match druids_store::open(&args.db, druids_store::Sync::Normal) {
        Ok(s) => s,
        Err(e) => {
            let db = druids_store::describe(&args.db);
            eprintln!("druids-server export-all: cannot open the database {db}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = druids_server::export::export_ended(store.as_ref(), &args.after, now, &mut out);
    let flushed = out.flush();
    match result.and_then(|done| flushed.map(|()| done).map_err(Into::into)) {
        Ok(done) => {
            match &done.last_id {
                Some(last) => eprintln!(
                    "druids-server export-all: {} games written; the last is {last}",
                    done.games
                ),
                None => eprintln!("druids-server export-all: no ended game to write"),
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("druids-server export-all: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // A subcommand only when it is the first argument: every other command
    // line means serving, exactly as before export-all existed.
    let mut args = std::env::args_os();
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "export-all")
    {
        let _program = args.next();
        let args = ExportArgs::parse_from(args);
        return tokio::task::spawn_blocking(move || export_all(args))
            .await
            .unwrap_or(std::process::ExitCode::FAILURE);
    }
    let config = Config::parse_or_exit();
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|e| {
        eprintln!(
            "druids-server: bad --log filter {:?} ({e}); using info",
            config.log
        );
        EnvFilter::new("info")
    });
    // Logs go to stderr: stdout carries only the machine-readable ready line.
    // Colours only on a terminal (and not with NO_COLOR): a log written to a
    // file or a pipe holds no ANSI escapes.
    let colours = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colours)
        .with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Text => subscriber.init(),
        LogFormat::Json => subscriber.json().init(),
    }
    let node = match (&config.node_id, config.db.to_str()) {
        (None, _) => None,
        (Some(id), Some(url)) if !config.in_memory && druids_store::postgres::is_url(url) => {
            let sessions = druids_store::postgres::NodeSessions {
                node: id.clone(),
                lease_ms: config.lease_secs.saturating_mul(1000),
            };
            match druids_store::postgres::PostgresStore::open_node(url, config.sync, &sessions) {
                Ok(store) => Some(Arc::new(store)),
                Err(e) => {
                    let db = druids_store::describe(&config.db);
                    tracing::error!("cannot open the database {db}: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            }
        }
        (Some(_), _) => {
            tracing::error!(
                "--node-id needs a PostgreSQL --db (postgres://…) that every node shares"
            );
            return std::process::ExitCode::FAILURE;
        }
    };
    let store: Arc<dyn Store> = if let Some(shared) = &node {
        Arc::clone(shared) as Arc<dyn Store>
    } else if config.in_memory {
        tracing::warn!("in-memory mode: games are lost when the server stops");
        Arc::new(MemoryStore::default())
    } else {
        match druids_store::open(&config.db, config.sync) {
            Ok(s) => {
                let db = druids_store::describe(&config.db);
                tracing::info!(db = %db, sync = ?config.sync, "games are stored");
                s
            }
            Err(e) => {
                let db = druids_store::describe(&config.db);
                tracing::error!("cannot open the database {db}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        }
    };
    let tls = match (&config.tls_cert, &config.tls_key) {
        (Some(cert), Some(key)) => match (std::fs::read(cert), std::fs::read(key)) {
            (Ok(cert_pem), Ok(key_pem)) => Some(Tls { cert_pem, key_pem }),
            (Err(e), _) | (_, Err(e)) => {
                tracing::error!("cannot read the TLS certificate or key: {e}");
                return std::process::ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(l) => l,
        Err(e) => {
            tracing::error!("cannot listen on {}: {e}", config.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    let metrics = match config.metrics_listen.0 {
        Some(addr) => match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => Some(l),
            Err(e) => {
                tracing::error!("cannot listen for metrics on {addr}: {e}");
                return std::process::ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let http = match config.http_listen.0 {
        Some(addr) => match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => Some(l),
            // The gRPC service matters more than its web face: a busy port
            // (the default is a popular one) leaves the viewer off, not the server.
            Err(e) => {
                tracing::error!("web viewer off: cannot listen for HTTP on {addr}: {e}");
                None
            }
        },
        None => None,
    };
    // Rebuild the games in play (a node: take over the games that need an
    // owner) before saying that the server is listening.
    let started = match node {
        None => druids_server::start(store, config.limits).map(|(service, _)| service),
        Some(shared) => {
            let listening = listener.local_addr().unwrap_or(config.listen);
            let advertise = match &config.advertise_addr {
                Some(addr) => addr.clone(),
                None if listening.ip().is_unspecified() => {
                    tracing::error!(
                        "listening on {listening}: give --advertise-addr, the URL other nodes reach this one at"
                    );
                    return std::process::ExitCode::FAILURE;
                }
                None => format!("http://{listening}"),
            };
            let node = druids_server::cluster::NodeConfig {
                id: config.node_id.clone().unwrap_or_default(),
                advertise,
                lease_ms: config.lease_secs.saturating_mul(1000),
            };
            tracing::info!(node = %node.id, advertise = %node.advertise, lease_secs = config.lease_secs, "joining the cluster");
            druids_server::start_node(shared, node, config.limits)
        }
    };
    let service = match started {
        Ok(service) => service,
        Err(e) => {
            tracing::error!("cannot start: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut ready = serde_json::Map::new();
    let addr = |l: &tokio::net::TcpListener| {
        l.local_addr()
            .map(|a| serde_json::Value::String(a.to_string()))
            .unwrap_or(serde_json::Value::Null)
    };
    ready.insert("grpc".into(), addr(&listener));
    if let Some(l) = metrics {
        ready.insert("metrics".into(), addr(&l));
        druids_server::spawn_metrics(l, &service);
    }
    if let Some(l) = http {
        ready.insert("http".into(), addr(&l));
        druids_server::spawn_http(l, &service);
    }
    tracing::info!("druids-server listening on {}", ready["grpc"]);
    if service.limits().test_faults {
        tracing::warn!(
            "test-faults mode (--test-faults): test games may carry fault plans; not for real players"
        );
    }
    // One machine-readable line, first on stdout, for harnesses that bind port 0.
    println!("{}", serde_json::Value::Object(ready));
    druids_server::spawn_upkeep(&service);
    let result =
        druids_server::serve_service(listener, Arc::clone(&service), tls, shutdown_signal()).await;
    druids_server::release_leases(&service).await;
    match result {
        Ok(()) => {
            tracing::info!("druids-server stopped");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!("server error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}
