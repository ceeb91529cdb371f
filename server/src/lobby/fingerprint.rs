//! What identifies a keyed create or join besides its request id: a
//! fingerprint of the request and of the call it came by, so that a retry is
//! told from another request with the same id.

use crate::auth;

/// The call a keyed create came by. A request id names one request of one
/// call: a CreateTestGame never answers with a game CreateGame made (which
/// has no test key), nor a retry with another fault plan.
#[derive(Clone, Copy)]
pub enum Maker<'a> {
    /// CreateGame.
    CreateGame,
    /// CreateTestGame with its fault plan, encoded.
    CreateTestGame {
        /// The plan as the request carried it.
        plan: &'a [u8],
    },
}

impl Maker<'_> {
    /// What a keyed request's fingerprint is made of besides the game's
    /// request: the call, and a test game's plan (its length first, so that
    /// no plan and request run into each other).
    pub(super) fn label(self) -> Vec<u8> {
        match self {
            Maker::CreateGame => b"create\0".to_vec(),
            Maker::CreateTestGame { plan } => {
                let mut label = b"create test\0".to_vec();
                label.extend_from_slice(&(plan.len() as u64).to_le_bytes());
                label.extend_from_slice(plan);
                label
            }
        }
    }
}

/// The fingerprint of a keyed request: its encoding without the id, under a
/// label per call.
pub(super) fn fingerprint(label: &[u8], encoded: Vec<u8>) -> [u8; 32] {
    auth::digest(&[label, &encoded].concat())
}
