//! Forwarding a call to the node that owns its game. The entry node has
//! authenticated the caller's metadata shape and charged its quotas; the
//! owner checks the seat token itself and answers, and its answer (or error,
//! with its details) goes back unchanged. A forwarded call carries the peer
//! key ([`crate::auth::peer_key`]), so the owner knows not to forward it again
//! or charge it twice, and the client's address, for its stream budgets.

use std::net::IpAddr;

use dashmap::DashMap;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};
use tonic_types::StatusExt;

use crate::auth::{TokenHash, peer_key};
use crate::error::ServiceError;

/// Metadata carrying the peer key.
const PEER_KEY: &str = "x-druids-peer-key";
/// Metadata carrying the client's address on a forwarded call.
const CLIENT_ADDR: &str = "x-druids-client-addr";
/// Metadata copied from the client's call to the forwarded one.
const KEPT: [&str; 2] = ["authorization", "grpc-timeout"];

/// A client of a peer node.
pub type PeerClient = DruidsServiceClient<Channel>;

/// The other nodes, as this node calls them.
pub struct Peers {
    key: MetadataValue<tonic::metadata::Ascii>,
    /// How often a peer's connection is pinged, and how long a ping may go
    /// unanswered before the connection (and every call on it) is given up.
    ping: (std::time::Duration, std::time::Duration),
    key_hash: TokenHash,
    channels: DashMap<String, Channel>,
}

impl Peers {
    /// Peers of the cluster whose server secret is `secret`, with leases of
    /// `lease_ms`: a peer that stops answering (paused, cut off) is given up
    /// within about a lease (at least 5 s, for a loaded machine's pauses),
    /// so a call or stream forwarded to it ends with `GAME_MOVED` and its
    /// client resumes elsewhere.
    pub fn new(secret: &[u8; 32], lease_ms: u64) -> Peers {
        let (key, key_hash) = peer_key(secret);
        let lease = std::time::Duration::from_millis(lease_ms);
        Peers {
            key: key.parse().expect("hex is ASCII"),
            ping: (lease / 3, lease.max(std::time::Duration::from_secs(5))),
            key_hash,
            channels: DashMap::new(),
        }
    }

    /// Whether a call with `metadata` was forwarded by a node of this
    /// cluster; then the client's address it names, if any.
    pub fn forwarded_for(&self, metadata: &MetadataMap) -> Option<Option<IpAddr>> {
        let key = metadata.get(PEER_KEY)?.to_str().ok()?;
        if !TokenHash::of(key).matches(&self.key_hash) {
            return None;
        }
        Some(
            metadata
                .get(CLIENT_ADDR)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok()),
        )
    }

    /// A client of the node at `addr`, which owns game `game_id` (connected
    /// on first use, then shared).
    pub fn client(&self, addr: &str, game_id: &str) -> Result<PeerClient, ServiceError> {
        let channel = self
            .channel(addr)
            .ok_or_else(|| ServiceError::Moved(crate::error::clip(game_id)))?;
        Ok(DruidsServiceClient::new(channel).max_decoding_message_size(usize::MAX))
    }

    /// An arena client of the node at `addr`, which holds the arena (on the
    /// same connection as game calls).
    pub fn arena_client(&self, addr: &str) -> Result<ArenaServiceClient<Channel>, ServiceError> {
        let channel = self.channel(addr).ok_or(ServiceError::ArenaMoved)?;
        Ok(ArenaServiceClient::new(channel).max_decoding_message_size(usize::MAX))
    }

    /// The connection to the node at `addr` (made on first use, then
    /// shared); `None` if the address is unusable.
    fn channel(&self, addr: &str) -> Option<Channel> {
        if let Some(channel) = self.channels.get(addr) {
            return Some(channel.clone());
        }
        let endpoint = match Endpoint::from_shared(addr.to_owned()) {
            Ok(endpoint) => endpoint,
            Err(e) => {
                tracing::error!("a peer advertises an unusable address {addr:?}: {e}");
                return None;
            }
        };
        let channel = endpoint
            .connect_timeout(std::time::Duration::from_secs(2))
            .http2_keep_alive_interval(self.ping.0)
            .keep_alive_timeout(self.ping.1)
            .keep_alive_while_idle(true)
            .connect_lazy();
        self.channels.insert(addr.to_owned(), channel.clone());
        Some(channel)
    }

    /// `message` as a call forwarded for a client whose call had `metadata`
    /// and came from `peer`.
    pub fn request<T>(
        &self,
        message: T,
        metadata: &MetadataMap,
        peer: Option<IpAddr>,
    ) -> Request<T> {
        let mut request = Request::new(message);
        let md = request.metadata_mut();
        for name in KEPT {
            if let Some(value) = metadata.get(name) {
                md.insert(name, value.clone());
            }
        }
        md.insert(PEER_KEY, self.key.clone());
        if let Some(value) = peer.and_then(|p| p.to_string().parse().ok()) {
            md.insert(CLIENT_ADDR, value);
        }
        request
    }
}

/// Whether `status` says the game is moving (ask where it is again).
pub fn is_moved(status: &Status) -> bool {
    status.code() == tonic::Code::Unavailable
        && status.get_details_error_info().is_some_and(|i| {
            i.reason == crate::error::reason_name(druids_contract::pb::ErrorReason::GameMoved)
        })
}

/// The owner's answer as this node gives it: the owner's own errors pass
/// unchanged (they carry their details); failing to reach the owner means the
/// game is moving (the owner died or is stalled): the client retries.
pub fn relayed(status: Status, game_id: &str) -> Status {
    if status.details().is_empty() {
        tracing::debug!(game_id, "forwarding failed: {status}");
        ServiceError::Moved(crate::error::clip(game_id)).into()
    } else {
        status
    }
}
