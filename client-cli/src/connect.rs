//! Talking to a druids server: what `--server` may say, connecting (plain or
//! TLS), attaching the seat token, and the errors a command can end with.
//!
//! Every subcommand that talks to a server connects through [`connect`], so
//! `host:port`, `http://…` and `https://…` work alike everywhere and an
//! unreachable server is reported the same way by all of them.

use std::path::{Path, PathBuf};

use druids_contract::pb::druids_service_client::DruidsServiceClient;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

/// A client of the druids service.
pub type Client = DruidsServiceClient<Channel>;

/// Where the server is when `--server` is not given.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// Where TLS trust anchors are looked for when `--ca-cert` is not given (the
/// system bundles of Debian/Ubuntu/Alpine and of Fedora/RHEL). tonic is built
/// without a root-store crate, so the system's own bundle is read instead.
const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// `--server` is not an address.
    #[error(
        "--server {given:?} is not a server address (expected host:port, http://host:port or https://host:port)"
    )]
    BadAddress {
        /// What was given.
        given: String,
    },
    /// The server could not be reached.
    #[error("cannot reach the druids server at {url}: {reason}")]
    Connect {
        /// The URL tried.
        url: String,
        /// Why, in words (the innermost cause: "connection refused", ...).
        reason: String,
        /// The transport's own error.
        #[source]
        source: tonic::transport::Error,
    },
    /// The TLS set-up is wrong (no trust anchors, unreadable certificate).
    #[error("TLS for {url}: {reason}")]
    Tls {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The server refused a request.
    #[error("{}: {}", crate::retry::code_name(.0.code()), .0.message())]
    Status(#[from] Status),
    /// The command line does not make sense.
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing the terminal failed (a closed stdout is
    /// [`CliError::is_broken_pipe`]).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The server sent something this client cannot use (a malformed view or
    /// action, a game it does not know).
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A game cannot be set up as asked (in-process self-play: player count,
    /// options).
    #[error(transparent)]
    Setup(#[from] druids_engine::SetupError),
    /// A tournament could not be played.
    #[error(transparent)]
    Tournament(#[from] druids_bots::arena::ArenaError),
    /// A file is not a replay (neither a binary `Replay` message nor one in
    /// proto3 JSON).
    #[error("{} is not a replay file: {reason}", .path.display())]
    NotAReplay {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// The health service answered, but not "serving".
    #[error("not serving (health status {0})")]
    NotServing(i32),
    /// A replay file does not reproduce its game.
    #[error("{}: the replay does not reproduce its game: {source}", .path.display())]
    Replay {
        /// The file.
        path: PathBuf,
        /// What differs.
        source: druids_contract::replay::ReplayError,
    },
    /// The server has no arena, or an older one without this call
    /// (ArenaService answers UNIMPLEMENTED).
    #[error("the server at {url} has no arena, or not this call of it (UNIMPLEMENTED{}{message})", if .message.is_empty() { "" } else { ": " })]
    NoArena {
        /// The server.
        url: String,
        /// What it said.
        message: String,
    },
    /// `druids conformance --server URL` names a server that does not serve
    /// the testing calls: nothing can be graded there.
    #[error(
        "the server at {url} does not serve test faults ({why}): start it with --test-faults \
         (never where people play), or leave out --server and `druids conformance` starts one \
         of its own"
    )]
    NoTestFaults {
        /// The server.
        url: String,
        /// What it answered.
        why: String,
    },
    /// Stopped by a second Ctrl-C.
    #[error("interrupted")]
    Interrupted,
    /// A worker task of this program failed.
    #[error("internal error: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl CliError {
    /// True when stdout was closed by its reader (`druids watch | head`): the
    /// command has nothing more to do and ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// For a call that failed because the connection did (refused, reset,
    /// broken: tonic's status carries the transport's error), why in words.
    pub fn lost_connection(&self) -> Option<String> {
        match self {
            CliError::Status(s) if std::error::Error::source(s).is_some() => Some(innermost(s)),
            _ => None,
        }
    }

    /// A usage error about a file, keeping its name.
    pub fn file(path: &Path, source: std::io::Error) -> CliError {
        CliError::File {
            path: path.to_owned(),
            source,
        }
    }
}

/// How to reach the server: its URL (and other nodes' of the same cluster)
/// and, for `https`, whom to trust.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerAddr {
    /// `http://host:port` or `https://host:port`.
    pub url: String,
    /// Further nodes of the same cluster, same scheme, tried in turn when
    /// a connection to one fails ([`crate::failover`]).
    pub also: Vec<String>,
    /// PEM file of the certificate (or CA) to trust for `https`.
    pub ca_cert: Option<PathBuf>,
}

/// Most nodes `--server` may list.
const MAX_NODES: usize = 16;

impl ServerAddr {
    /// Parses `--server`: `host:port` means plain `http://host:port`;
    /// several, separated by commas, are nodes of one cluster.
    pub fn parse(given: &str, ca_cert: Option<PathBuf>) -> Result<ServerAddr, CliError> {
        let mut urls = Vec::new();
        for one in given.split(',') {
            if urls.len() == MAX_NODES {
                return Err(CliError::Usage(format!(
                    "--server lists more than {MAX_NODES} nodes"
                )));
            }
            urls.push(ServerAddr::parse_one(one)?);
        }
        let url = urls.remove(0);
        if urls
            .iter()
            .any(|u| u.split(':').next() != url.split(':').next())
        {
            return Err(CliError::Usage(
                "--server lists nodes of one cluster: all http:// or all https://".into(),
            ));
        }
        Ok(ServerAddr {
            url,
            also: urls,
            ca_cert,
        })
    }

    /// One node's address, as a URL.
    fn parse_one(given: &str) -> Result<String, CliError> {
        let given = given.trim();
        let bad = || CliError::BadAddress {
            given: given.to_owned(),
        };
        let (scheme, rest) = if let Some(rest) = given.strip_prefix("http://") {
            ("http", rest)
        } else if let Some(rest) = given.strip_prefix("https://") {
            ("https", rest)
        } else if given.contains("://") {
            return Err(bad());
        } else {
            ("http", given)
        };
        // An authority only (host and port): no path, nothing empty.
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains('/') {
            return Err(bad());
        }
        let url = format!("{scheme}://{authority}");
        let uri: tonic::codegen::http::Uri = url.parse().map_err(|_| bad())?;
        if uri.host().is_none_or(str::is_empty) {
            return Err(bad());
        }
        Ok(url)
    }

    /// Every node, the first first, as the URL `--server` named it.
    fn nodes(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.url.as_str()).chain(self.also.iter().map(String::as_str))
    }

    fn tls(&self) -> bool {
        self.url.starts_with("https://")
    }

    /// The endpoint, with TLS set up for `https`.
    fn endpoint(&self) -> Result<Endpoint, CliError> {
        let endpoint =
            Endpoint::from_shared(self.url.clone()).map_err(|_| CliError::BadAddress {
                given: self.url.clone(),
            })?;
        if !self.tls() {
            return Ok(endpoint);
        }
        let tls_err = |reason: String| CliError::Tls {
            url: self.url.clone(),
            reason,
        };
        let pem = match &self.ca_cert {
            Some(path) => std::fs::read(path).map_err(|e| CliError::file(path, e))?,
            None => SYSTEM_CA_BUNDLES
                .iter()
                .find_map(|p| std::fs::read(p).ok())
                .ok_or_else(|| {
                    tls_err("no system CA bundle found: give the server's certificate with --ca-cert FILE".into())
                })?,
        };
        let config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem));
        endpoint
            .tls_config(config)
            .map_err(|e| tls_err(innermost(&e)))
    }
}

/// The innermost cause of `e` in words: for a refused connection
/// "connection refused" rather than tonic's "transport error".
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cause.source() {
        if let Some(io) = next.downcast_ref::<std::io::Error>() {
            // Socket errors say "Connection refused (os error 111)": their
            // kind reads better. Others (TLS, DNS) carry their own message.
            use std::io::ErrorKind::*;
            return match io.kind() {
                kind @ (ConnectionRefused | ConnectionReset | ConnectionAborted | TimedOut
                | AddrNotAvailable | HostUnreachable | NetworkUnreachable) => kind.to_string(),
                _ => io.to_string(),
            };
        }
        cause = next;
    }
    cause.to_string()
}

/// Connects to the server: with several nodes, to the first that answers,
/// and again to the next that answers whenever the connection breaks.
pub async fn channel(addr: &ServerAddr) -> Result<Channel, CliError> {
    let endpoint = addr.endpoint()?;
    let connected = if addr.also.is_empty() {
        endpoint.connect().await
    } else {
        let nodes = addr.nodes().map(|u| u.parse().expect("parsed")).collect();
        endpoint
            .connect_with_connector(crate::failover::Failover::new(nodes))
            .await
    };
    connected.map_err(|source| CliError::Connect {
        url: addr.nodes().collect::<Vec<_>>().join(", "),
        reason: innermost(&source),
        source,
    })
}

/// A client of the druids service at `addr`.
pub async fn connect(addr: &ServerAddr) -> Result<Client, CliError> {
    Ok(DruidsServiceClient::new(channel(addr).await?))
}

/// `message` carrying `token` (if any) as `authorization: Bearer <token>`.
pub fn authed<T>(token: Option<&str>, message: T) -> Result<Request<T>, CliError> {
    let mut req = Request::new(message);
    if let Some(t) = token {
        let value = format!("Bearer {t}")
            .parse()
            .map_err(|_| CliError::Usage("the token must be plain ASCII".into()))?;
        req.metadata_mut().insert("authorization", value);
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_addresses_with_or_without_a_scheme() {
        let url = |s: &str| ServerAddr::parse(s, None).map(|a| a.url);
        assert_eq!(url("127.0.0.1:50051").unwrap(), "http://127.0.0.1:50051");
        assert_eq!(
            url("http://127.0.0.1:50051/").unwrap(),
            "http://127.0.0.1:50051"
        );
        assert_eq!(
            url("https://example.org:443").unwrap(),
            "https://example.org:443"
        );
        assert_eq!(url("localhost:1").unwrap(), "http://localhost:1");
        for bad in ["", "ftp://x:1", "http://", "http://host:1/path", "a:1,"] {
            assert!(
                matches!(url(bad), Err(CliError::BadAddress { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn several_nodes_of_one_cluster() {
        let a = ServerAddr::parse("a:1, http://b:2/,c:3", None).unwrap();
        assert_eq!(a.url, "http://a:1");
        assert_eq!(a.also, ["http://b:2", "http://c:3"]);
        assert_eq!(
            a.nodes().collect::<Vec<_>>(),
            ["http://a:1", "http://b:2", "http://c:3"]
        );
        assert!(ServerAddr::parse("a:1", None).unwrap().also.is_empty());
        // One scheme for all; a bounded list.
        assert!(matches!(
            ServerAddr::parse("a:1,https://b:2", None),
            Err(CliError::Usage(_))
        ));
        let many = vec!["h:1"; MAX_NODES + 1].join(",");
        assert!(matches!(
            ServerAddr::parse(&many, None),
            Err(CliError::Usage(_))
        ));
        assert!(ServerAddr::parse(&many[4..], None).is_ok());
    }
}
