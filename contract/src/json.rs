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
/// lowerCamelCase and the proto's own field names are accepted).
pub fn from_json<M: prost::Name + Default>(json: &serde_json::Value) -> Result<M, JsonError> {
    let name = M::full_name();
    let desc = POOL
        .get_message_by_name(&name)
        .ok_or_else(|| JsonError::UnknownMessage(name.clone()))?;
    let invalid = |reason: String| JsonError::Invalid {
        message: name.clone(),
        reason,
    };
    let dynamic = DynamicMessage::deserialize_with_options(desc, json, &DeserializeOptions::new())
        .map_err(|e| invalid(e.to_string()))?;
    M::decode(dynamic.encode_to_vec().as_slice()).map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
