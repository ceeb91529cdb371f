//! Several nodes of one cluster behind one `--server` (`a:50051,b:50051`).
//! A connection goes to the node that took the last one, else to the next
//! that answers. tonic makes a broken channel's next connection through this
//! connector, so when a node dies the next call (retried, as the contract
//! says of a broken connection) reaches another node: every node serves
//! every game (docs/scaling.md).

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tonic::codegen::http::Uri;
use tonic::codegen::{Context, Future, Pin, Poll, Service};

/// Why no node took the connection: the last one's error (hyper's
/// `ConnectError`, whose source is the socket's).
type ConnectError = Box<dyn std::error::Error + Send + Sync>;

/// How long one node may take to accept a connection before the next is
/// tried (a node whose machine is gone answers nothing at all).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A connector over `nodes`, trying them in turn from the last that
/// answered.
#[derive(Clone, Debug)]
pub struct Failover {
    nodes: Arc<[Uri]>,
    last_good: Arc<AtomicUsize>,
    http: HttpConnector,
}

impl Failover {
    /// Over `nodes` (at least one), first to the first.
    pub fn new(nodes: Vec<Uri>) -> Failover {
        assert!(!nodes.is_empty(), "a failover needs a node");
        let mut http = HttpConnector::new();
        // As tonic's own connector: any scheme (TLS is tonic's layer above),
        // no Nagle delay.
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(CONNECT_TIMEOUT));
        Failover {
            nodes: nodes.into(),
            last_good: Arc::new(AtomicUsize::new(0)),
            http,
        }
    }
}

impl Service<Uri> for Failover {
    type Response = TokioIo<TcpStream>;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, ConnectError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), ConnectError>> {
        Poll::Ready(Ok(()))
    }

    /// Connects to a node; the endpoint's own address (`_uri`, the first
    /// node's) is one of them.
    fn call(&mut self, _uri: Uri) -> Self::Future {
        let nodes = Arc::clone(&self.nodes);
        let last_good = Arc::clone(&self.last_good);
        let mut http = self.http.clone();
        Box::pin(async move {
            let first = last_good.load(Ordering::Relaxed);
            let mut failed = None;
            for k in 0..nodes.len() {
                let i = (first + k) % nodes.len();
                poll_fn(|cx| http.poll_ready(cx))
                    .await
                    .map_err(ConnectError::from)?;
                match http.call(nodes[i].clone()).await {
                    Ok(io) => {
                        last_good.store(i, Ordering::Relaxed);
                        return Ok(io);
                    }
                    Err(e) => failed = Some(ConnectError::from(e)),
                }
            }
            Err(failed.expect("at least one node was tried"))
        })
    }
}
