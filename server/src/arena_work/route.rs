//! Where an arena call is served on a node of several: here if this node
//! holds the arena, else forwarded to the holder, as a game's calls are to
//! its owner ([`crate::cluster::forward`]): the holder's answer, errors
//! included, goes back unchanged, and a holder that cannot be reached (it
//! died, or stalls past its lease) ends the call or stream with
//! `UNAVAILABLE` / `GAME_MOVED` ([`crate::error::ServiceError::ArenaMoved`]).

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use druids_contract::pb::arena_service_client::ArenaServiceClient;
use tokio_stream::{Stream, StreamExt};
use tonic::transport::Channel;
use tonic::{Request, Status, Streaming};

use super::{ArenaAt, ArenaHost, ArenaWork};
use crate::arena::Arena;
use crate::blocking::OffTheWorkers;
use crate::cluster::Cluster;
use crate::cluster::forward::is_moved;
use crate::error::ServiceError;

/// Where a call goes.
pub enum Routed {
    /// Served here, for a client at this address.
    Here(Arc<Arena>, Option<IpAddr>),
    /// Forwarded to the holder.
    There(Forward),
}

/// A call on its way to the arena's holder.
pub struct Forward {
    /// A client of the holder.
    pub client: ArenaServiceClient<Channel>,
    cluster: Arc<Cluster>,
    work: Arc<ArenaWork>,
    peer: Option<IpAddr>,
}

impl Forward {
    /// `request` as forwarded (peer key, client address).
    pub fn request<T>(&self, request: Request<T>) -> Request<T> {
        self.cluster.metrics().forwarded.inc();
        let (metadata, _, message) = request.into_parts();
        self.cluster.peers().request(message, &metadata, self.peer)
    }

    /// The holder's error as this node answers it.
    pub fn relayed(&self, status: Status) -> Status {
        relayed(&self.work, &self.cluster, status)
    }

    /// The holder's stream as this node relays it.
    pub fn stream<T: Send + 'static>(
        &self,
        stream: Streaming<T>,
    ) -> Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>> {
        let (work, cluster) = (Arc::clone(&self.work), Arc::clone(&self.cluster));
        Box::pin(stream.map(move |item| item.map_err(|s| relayed(&work, &cluster, s))))
    }
}

/// The holder's errors pass unchanged (they carry their details); failing to
/// reach it means the arena is moving: the client retries.
fn relayed(work: &ArenaWork, cluster: &Cluster, status: Status) -> Status {
    let status = if status.details().is_empty() {
        tracing::debug!("forwarding an arena call failed: {status}");
        ServiceError::ArenaMoved.into()
    } else {
        status
    };
    if is_moved(&status) {
        work.forget_holder();
        cluster.metrics().game_moved.inc();
    }
    status
}

/// Where `request` is served: here, or on the holder. A call forwarded by a
/// peer names its client's address.
pub async fn route<T>(
    host: &ArenaHost,
    cluster: Option<&Arc<Cluster>>,
    blocking: &OffTheWorkers,
    request: &Request<T>,
) -> Result<Routed, Status> {
    let here = request
        .remote_addr()
        .map(|a| crate::quota::client_address(a.ip()));
    let (forwarded, peer) = match cluster.and_then(|c| c.peers().forwarded_for(request.metadata()))
    {
        Some(client) => (true, client.map(crate::quota::client_address)),
        None => (false, here),
    };
    let work = match host {
        ArenaHost::Single(arena) => return Ok(Routed::Here(Arc::clone(arena), peer)),
        ArenaHost::Node(work) => Arc::clone(work),
    };
    if let Some(arena) = work.here() {
        return Ok(Routed::Here(arena, peer));
    }
    let w = Arc::clone(&work);
    match blocking.run(move || w.locate(forwarded)).await?? {
        ArenaAt::Here(arena) => Ok(Routed::Here(arena, peer)),
        ArenaAt::There(addr) => {
            let cluster = Arc::clone(cluster.expect("a node of several has a cluster"));
            let client = cluster.peers().arena_client(&addr)?;
            Ok(Routed::There(Forward {
                client,
                cluster,
                work,
                peer,
            }))
        }
    }
}

/// The arena serving `$request` and the client's address, or (from the
/// enclosing RPC) the holder's answer to it, forwarded with the client
/// method `$method`; `stream`: the method answers a stream.
macro_rules! here_or_forward {
    ($api:ident, $request:ident, $method:ident) => {
        match $api.route(&$request).await? {
            $crate::arena_work::route::Routed::Here(arena, peer) => (arena, peer),
            $crate::arena_work::route::Routed::There(fwd) => {
                let mut client = fwd.client.clone();
                let answer = client
                    .$method(fwd.request($request))
                    .await
                    .map_err(|s| fwd.relayed(s))?;
                return Ok(Response::new(answer.into_inner()));
            }
        }
    };
    ($api:ident, $request:ident, $method:ident, stream) => {
        match $api.route(&$request).await? {
            $crate::arena_work::route::Routed::Here(arena, peer) => (arena, peer),
            $crate::arena_work::route::Routed::There(fwd) => {
                let mut client = fwd.client.clone();
                let answer = client
                    .$method(fwd.request($request))
                    .await
                    .map_err(|s| fwd.relayed(s))?;
                return Ok(Response::new(fwd.stream(answer.into_inner())));
            }
        }
    };
}
pub(crate) use here_or_forward;
