//! The contract's messages as JSON, in the canonical proto3 JSON mapping
//! (lowerCamelCase field names, enums by name, 64-bit integers as strings,
//! fields at their default value included so that every key is always there).
//!
//! JSON is what the line-protocol bot bridge, the HTTP face and the CLI's
//! `--json` output speak; all of them go through here, so a message looks the
//! same everywhere. The mapping is done by reflection over the embedded
//! descriptor set (prost-reflect), never by hand.

use std::sync::LazyLock;

use prost::Message;
use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, SerializeOptions};

use crate::pb;

mod once;
pub use once::parse;

/// The contract's descriptors, decoded once.
static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    DescriptorPool::decode(pb::FILE_DESCRIPTOR_SET).expect("the embedded descriptor set is valid")
});

/// The descriptor pool of the contract (every message of `proto/`).
pub fn pool() -> &'static DescriptorPool {
    &POOL
}

/// Why JSON could not be turned into a message.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// The message type is not part of the contract.
    #[error("{0} is not a message of the druids contract")]
    UnknownMessage(String),
    /// The JSON does not match the message (unknown field, wrong type, ...).
    #[error("not a valid {message} in JSON: {reason}")]
    Invalid {
        /// The message expected.
        message: String,
        /// What serde_json or the mapping said.
        reason: String,
    },
}

/// `msg` in the canonical proto3 JSON mapping, every field included.
pub fn to_json<M: prost::Name>(msg: &M) -> serde_json::Value {
    let desc = POOL
        .get_message_by_name(&M::full_name())
        .expect("every generated message is in the descriptor set");
    let dynamic = DynamicMessage::decode(desc, msg.encode_to_vec().as_slice())
        .expect("a message re-decodes with its own descriptor");
    let options = SerializeOptions::new().skip_default_fields(false);
    dynamic
        .serialize_with_options(serde_json::value::Serializer, &options)
        .expect("a dynamic message serializes to JSON")
}

/// The message of type `M` that `json` holds (proto3 JSON mapping; both
/// lowerCamelCase and the proto's own field names are accepted, but not
/// both for one field). Read client bytes with [`parse`], which refuses a
/// repeated key that a `serde_json::Value` would have kept only once.
pub fn from_json<M: prost::Name + Default>(json: &serde_json::Value) -> Result<M, JsonError> {
    let name = M::full_name();
    let desc = POOL
        .get_message_by_name(&name)
        .ok_or_else(|| JsonError::UnknownMessage(name.clone()))?;
    let invalid = |reason: String| JsonError::Invalid {
        message: name.clone(),
        reason,
    };
    once::each_field_once(&desc, json).map_err(invalid)?;
    // The path to what was wrong (`seats[0].name`), so that the words say
    // which field of a large body they are about; it is quoted, so a long
    // unknown key in it is clipped like any other piece of input.
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(json, &mut track);
    let dynamic =
        DynamicMessage::deserialize_with_options(desc, tracked, &DeserializeOptions::new())
            .map_err(|e| {
                let path = track.path().to_string();
                let reason = match path.as_str() {
                    "." => e.to_string(),
                    path => format!("at `{path}`: {e}"),
                };
                invalid(clip_quoted(&reason))
            })?;
    M::decode(dynamic.encode_to_vec().as_slice()).map_err(|e| invalid(clip_quoted(&e.to_string())))
}

/// Most bytes of one quoted piece of client input kept in an error's words
/// (the contract's bound, which the server's own messages keep too).
pub const MAX_QUOTED_BYTES: usize = 64;
/// Most bytes of an error's words: what a client sent never comes back
/// unbounded, even quoted in a way [`clip_quoted`] does not see.
const MAX_REASON_BYTES: usize = 512;

/// `reason` (serde's words, which quote a field name, an enum value or a
/// string as the client sent it, between `'`, `"` or `` ` ``) with each
/// quoted piece cut to [`MAX_QUOTED_BYTES`] (`…` and its length in bytes
/// after it), and the whole to [`MAX_REASON_BYTES`].
fn clip_quoted(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len().min(MAX_REASON_BYTES + 16));
    let mut rest = reason;
    while let Some(open) = rest.find(['\'', '"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let inside = &rest[open + 1..];
        let (quoted, after) = match inside.find(quote) {
            Some(close) => (&inside[..close], &inside[close..]),
            None => (inside, ""),
        };
        let kept = &quoted[..quoted.floor_char_boundary(MAX_QUOTED_BYTES)];
        let closing = after.get(..1).unwrap_or("");
        out.push_str(kept);
        if kept.len() < quoted.len() {
            out.push('…');
            out.push_str(closing);
            out.push_str(&format!(" ({} bytes)", quoted.len()));
        } else {
            out.push_str(closing);
        }
        rest = &after[closing.len()..];
    }
    out.push_str(rest);
    if out.len() > MAX_REASON_BYTES {
        let end = out.floor_char_boundary(MAX_REASON_BYTES);
        out.truncate(end);
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_input_in_an_error_is_quoted_at_most_64_bytes_long() {
        let long = "f".repeat(60_000);
        let body = serde_json::json!({ long.clone(): 1 });
        let e = from_json::<pb::GetStateRequest>(&body).expect_err("an unknown field");
        let words = e.to_string();
        assert!(
            words.len() < 300,
            "{} bytes: {}",
            words.len(),
            &words[..300]
        );
        assert!(words.contains(&format!("{}…", &long[..64])), "{words}");
        assert!(words.contains("(60000 bytes)"), "{words}");

        let body = serde_json::json!({ "status": "S".repeat(60_000) });
        let e = from_json::<pb::ListGamesRequest>(&body).expect_err("an unknown enum value");
        assert!(e.to_string().len() < 300, "{e}");

        // A quote inside the input cannot take the rest out of the clip.
        let body = serde_json::json!({ format!("a'{}", "g".repeat(10_000)): 1 });
        let e = from_json::<pb::GetStateRequest>(&body).expect_err("an unknown field");
        assert!(e.to_string().len() <= 700, "{e}");
    }

    #[test]
    fn short_quotes_stay_whole() {
        assert_eq!(
            clip_quoted("unknown variant `X`, expected one of `A`, `B`"),
            "unknown variant `X`, expected one of `A`, `B`"
        );
        let cut = clip_quoted(&format!("field 'é{}'", "x".repeat(100)));
        assert_eq!(cut, format!("field 'é{}…' (102 bytes)", "x".repeat(62)));
    }

    #[test]
    fn outcomes_round_trip_with_every_field() {
        let outcome = pb::Outcome {
            scores: vec![12, 9],
            winners: vec![0],
            ranking: vec![0, 1],
            by_safeguard: false,
            tie_breaks: vec![
                pb::TieBreakKeys { keys: vec![1] },
                pb::TieBreakKeys { keys: vec![2] },
            ],
            tie_break_names: vec!["dolmens placed".into()],
            resigned: vec![1],
        };
        let json = to_json(&outcome);
        assert_eq!(
            json,
            serde_json::json!({"scores": [12, 9], "winners": [0], "ranking": [0, 1], "bySafeguard": false,
                "tieBreaks": [{"keys": [1]}, {"keys": [2]}], "tieBreakNames": ["dolmens placed"], "resigned": [1]})
        );
        assert_eq!(from_json::<pb::Outcome>(&json).unwrap(), outcome);
    }

    #[test]
    fn bad_json_is_refused_with_the_message_name() {
        let err = from_json::<pb::Outcome>(&serde_json::json!({"scores": "x"})).unwrap_err();
        assert!(err.to_string().contains("druids.v1.Outcome"), "{err}");
    }

    #[test]
    fn an_error_names_the_field_it_is_about() {
        let words = |json| {
            from_json::<pb::CreateTestGameRequest>(&json)
                .unwrap_err()
                .to_string()
        };
        let players = words(serde_json::json!({"game": {"players": 4_294_967_297u64}}));
        assert!(players.contains("at `game.players`: "), "{players}");
        let unknown = words(serde_json::json!({"game": {"player": 2}}));
        assert!(
            unknown.contains("at `game`: unrecognized field name 'player'"),
            "{unknown}"
        );
        let kind = words(serde_json::json!({"game": {"kind": "CHESS"}}));
        assert!(kind.contains("at `game.kind`: "), "{kind}");
        // The whole body of the wrong shape: no path to name.
        let shape = words(serde_json::json!([1]));
        assert!(!shape.contains(" at `"), "{shape}");
        // A long unknown key in the path is clipped like any quoted input.
        let long = "k".repeat(10_000);
        let clipped = words(serde_json::json!({"game": { long.clone(): 1 }}));
        assert!(clipped.len() < 400, "{} bytes", clipped.len());
    }
}
