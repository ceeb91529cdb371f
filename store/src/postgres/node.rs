//! How the database sessions of a cluster's node are set up ([`NodeSessions`]),
//! so that a node paused mid-transaction holds nothing the others wait on for
//! long, and the node's lease renewal waits on nothing of its own.

/// How the sessions of a cluster's node are set up, from its lease time.
#[derive(Clone, Debug)]
pub struct NodeSessions {
    /// The node's id.
    pub node: String,
    /// Its lease time, ms.
    pub lease_ms: u64,
}

impl NodeSessions {
    pub(super) fn application_name(&self) -> String {
        format!("druids-server {}", self.node)
    }

    /// Every session of the node: a transaction left idle (the node was
    /// paused mid-commit) is ended after a quarter of a lease, and a lock
    /// waited for longer than half a lease fails the statement, so that what
    /// another node holds delays a takeover by less than a lease.
    pub(super) fn options(&self) -> Vec<String> {
        let quarter = (self.lease_ms / 4).max(1);
        vec![
            format!("-c idle_in_transaction_session_timeout={quarter}"),
            format!("-c lock_timeout={}", (self.lease_ms / 2).max(1)),
        ]
    }

    /// The renewal's session: a renewal that takes a third of a lease fails
    /// (and is tried again) rather than let the lease run out while waiting.
    pub(super) fn renewal_option(&self) -> String {
        format!("-c statement_timeout={}", (self.lease_ms / 3).max(1))
    }
}
