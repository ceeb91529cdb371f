//! Seat tokens: random 256-bit secrets, kept only as SHA-256 hashes and compared
//! in constant time. A token is shown once, when its seat is claimed.

use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::metadata::MetadataMap;

use crate::error::ServiceError;

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

/// A fresh secret token (64 hex digits) and its hash.
pub fn new_token() -> (String, TokenHash) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = TokenHash::of(&token);
    (token, hash)
}

/// A fresh random id (16 hex digits) for a game.
pub fn new_game_id() -> String {
    format!("{:016x}", rand::rng().next_u64())
}

/// The hash of the bearer token in `authorization` metadata, if any.
/// A present but malformed header is an error, not a spectator.
pub fn bearer(metadata: &MetadataMap) -> Result<Option<TokenHash>, ServiceError> {
    let Some(value) = metadata.get("authorization") else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ServiceError::Invalid("authorization metadata is not ASCII".into()))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .unwrap_or(value)
        .trim();
    if token.is_empty() {
        return Err(ServiceError::MissingToken);
    }
    Ok(Some(TokenHash::of(token)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_distinct_and_hash_consistently() {
        let (a, ha) = new_token();
        let (b, hb) = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(ha.matches(&TokenHash::of(&a)));
        assert!(!ha.matches(&hb));
    }

    #[test]
    fn bearer_reads_the_header() {
        let mut md = MetadataMap::new();
        assert_eq!(bearer(&md).unwrap(), None);
        md.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&md).unwrap(), Some(TokenHash::of("abc")));
        md.insert("authorization", "Bearer ".parse().unwrap());
        assert!(matches!(bearer(&md), Err(ServiceError::MissingToken)));
    }
}
