//! Seat tokens: 256-bit secrets, kept only as SHA-256 hashes and compared in
//! constant time. A token is shown once, when its seat is claimed — except to
//! a retry of the same retry-safe call: a seat claimed with a request id gets a
//! token derived from the server secret and that id ([`derived_token`]), so a
//! retry is answered with the same token although the server never stored it.

use druids_engine::Seat;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};

use tonic::metadata::MetadataMap;

use crate::error::ServiceError;
pub use crate::store::TokenHash;

/// A fresh secret token (64 hex digits) and its hash.
pub fn new_token() -> (String, TokenHash) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let token = hex(&bytes);
    let hash = TokenHash::of(&token);
    (token, hash)
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The token of `seat` of `game_id` claimed by a call with `request_id`:
/// HMAC-SHA256 of the three under the server's secret (64 hex digits, like a
/// random token). Whoever knows the request id can get it again by retrying,
/// so request ids must be unguessable (the contract says so).
pub fn derived_token(
    secret: &[u8; 32],
    request_id: &str,
    game_id: &str,
    seat: Seat,
) -> (String, TokenHash) {
    derived(secret, request_id, game_id, &[seat.0])
}

/// The test key of the game `game_id` made by a CreateTestGame with
/// `request_id`: like [`derived_token`], with a label where a seat token has
/// its seat's one byte, so that no seat token is ever a test key.
pub fn derived_test_key(secret: &[u8; 32], request_id: &str, game_id: &str) -> (String, TokenHash) {
    derived(secret, request_id, game_id, b"test key")
}

/// The token of a server-run bot's `seat` in practice game `game_id`: like
/// [`derived_token`], with no request id (a client's is never empty) and a
/// label of its own. The server can derive it again after a restart or a
/// takeover and play the seat on; and since only the server knows the secret,
/// a seat holding it is proof that the server made the game for its bots.
pub fn practice_bot_token(secret: &[u8; 32], game_id: &str, seat: Seat) -> (String, TokenHash) {
    derived(
        secret,
        "",
        game_id,
        &[b"practice bot ".as_slice(), &[seat.0]].concat(),
    )
}

/// HMAC-SHA256 of `request_id`, `game_id` and `last` under `secret`, as 64
/// hex digits, and its hash.
fn derived(secret: &[u8; 32], request_id: &str, game_id: &str, last: &[u8]) -> (String, TokenHash) {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    for part in [
        request_id.as_bytes(),
        b"\0",
        game_id.as_bytes(),
        b"\0",
        last,
    ] {
        mac.update(part);
    }
    let token = hex(&mac.finalize().into_bytes());
    let hash = TokenHash::of(&token);
    (token, hash)
}

/// The key nodes of one cluster show each other on forwarded calls (and the
/// hash it is checked against): derived from the server secret they share
/// through the database, so a client cannot pose as a node.
pub fn peer_key(secret: &[u8; 32]) -> (String, TokenHash) {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes any key length");
    mac.update(b"druids peer key");
    let key = hex(&mac.finalize().into_bytes());
    let hash = TokenHash::of(&key);
    (key, hash)
}

/// SHA-256 of `bytes`: how request ids and request fingerprints are kept.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// A fresh random id (16 hex digits) for a game.
pub fn new_game_id() -> String {
    format!("{:016x}", rand::rng().next_u64())
}

/// The hash of the bearer token in `authorization` metadata, if any.
/// A present but malformed header is an error, not a spectator.
pub(crate) fn bearer(metadata: &MetadataMap) -> Result<Option<TokenHash>, ServiceError> {
    let Some(value) = metadata.get("authorization") else {
        return Ok(None);
    };
    // One token per call: which of two would count is no client's guess.
    if metadata.get_all("authorization").iter().nth(1).is_some() {
        return Err(ServiceError::invalid(
            "authorization",
            "the call has more than one authorization header: send one",
        ));
    }
    let value = value.to_str().map_err(|_| {
        ServiceError::invalid("authorization", "authorization metadata is not ASCII")
    })?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .unwrap_or(value)
        .trim();
    if token.is_empty() {
        return Err(ServiceError::MissingToken);
    }
    // Another scheme (`Basic …`, `Token …`) is no token of this server.
    if token.contains(char::is_whitespace) {
        return Err(ServiceError::invalid(
            "authorization",
            "authorization is not `Bearer <token>` (a token or key holds no space)",
        ));
    }
    Ok(Some(TokenHash::of(token)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_reads_the_header() {
        let mut md = MetadataMap::new();
        assert_eq!(bearer(&md).unwrap(), None);
        md.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&md).unwrap(), Some(TokenHash::of("abc")));
        md.insert("authorization", "Bearer ".parse().unwrap());
        assert!(matches!(bearer(&md), Err(ServiceError::MissingToken)));
        md.insert("authorization", "Basic YWxhZGRpbjpvcGVu".parse().unwrap());
        assert!(matches!(bearer(&md), Err(ServiceError::Invalid { .. })));
        // Two tokens: neither is taken.
        md.insert("authorization", "Bearer abc".parse().unwrap());
        md.append("authorization", "Bearer def".parse().unwrap());
        assert!(matches!(bearer(&md), Err(ServiceError::Invalid { .. })));
    }

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
    fn derived_tokens_depend_on_every_input() {
        let secret = [7; 32];
        let (a, ha) = derived_token(&secret, "r1", "g", Seat(0));
        assert_eq!(a.len(), 64);
        assert_eq!(derived_token(&secret, "r1", "g", Seat(0)).0, a);
        assert!(ha.matches(&TokenHash::of(&a)));
        for other in [
            derived_token(&[8; 32], "r1", "g", Seat(0)).0,
            derived_token(&secret, "r2", "g", Seat(0)).0,
            derived_token(&secret, "r1", "h", Seat(0)).0,
            derived_token(&secret, "r1", "g", Seat(1)).0,
        ] {
            assert_ne!(other, a);
        }
    }

    #[test]
    fn practice_bot_tokens_are_no_other_token() {
        let secret = [7; 32];
        let (a, ha) = practice_bot_token(&secret, "g", Seat(1));
        assert!(ha.matches(&TokenHash::of(&a)));
        assert_eq!(practice_bot_token(&secret, "g", Seat(1)).0, a);
        for other in [
            practice_bot_token(&[8; 32], "g", Seat(1)).0,
            practice_bot_token(&secret, "h", Seat(1)).0,
            practice_bot_token(&secret, "g", Seat(2)).0,
            derived_token(&secret, "", "g", Seat(1)).0,
            derived_test_key(&secret, "", "g").0,
        ] {
            assert_ne!(other, a);
        }
    }
}
