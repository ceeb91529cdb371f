//! [`TokenHash`]: all that is kept of a secret token (a seat's, or a bot's
//! API key), here because the stores keep it and the server compares it.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The SHA-256 hash of a token: all the server keeps of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    /// The hash of `token`.
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    /// Constant-time equality, so response times do not reveal how much of a
    /// guessed token matched.
    pub fn matches(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}
