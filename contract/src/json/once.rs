//! JSON in which every field is named once.
//!
//! serde_json keeps the last of an object's repeated keys, and prost-reflect
//! takes a field by its JSON name or by its proto name alike, so both
//! `{"gameId": "a", "gameId": "b"}` and `{"gameId": "a", "game_id": "b"}`
//! would be read as one of the two games, silently. Which one a client meant
//! cannot be known, and a proxy or a log in between may read the other, so
//! both are refused, as the proto3 JSON mapping's own parsers do.

use std::fmt;

use prost_reflect::{Kind, MessageDescriptor};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `bytes` as one JSON value, refusing an object that repeats a key (at any
/// depth) as well as anything serde_json refuses.
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = KeysOnce.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Builds a [`Value`] as serde_json's own does, but fails on a repeated key.
struct KeysOnce;

impl<'de> DeserializeSeed<'de> for KeysOnce {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeysOnce {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(KeysOnce)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(A::Error::custom(super::clip_quoted(&format!(
                    "the key `{key}` appears twice in one object"
                ))));
            }
            let value = map.next_value_seed(KeysOnce)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Checks that no field of `desc` is given twice in `json` (once by its JSON
/// name, once by its proto name), in it or in any message inside it. Only
/// the descriptor's own names are quoted, so the words stay short.
pub(super) fn each_field_once(desc: &MessageDescriptor, json: &Value) -> Result<(), String> {
    let Value::Object(object) = json else {
        return Ok(());
    };
    // The well-known types (`Struct`, `Value`) have JSON forms of their own.
    if desc.package_name() == "google.protobuf" {
        return Ok(());
    }
    // The Value holds each key once, so a field met twice was named once by
    // its JSON name and once by its proto name.
    let mut seen: Vec<u32> = Vec::new();
    for (key, value) in object {
        let Some(field) = desc
            .get_field_by_json_name(key)
            .or_else(|| desc.get_field_by_name(key))
        else {
            continue;
        };
        if seen.contains(&field.number()) {
            return Err(format!(
                "the field `{}` of {} is given twice, as `{}` and as `{}`",
                field.name(),
                desc.full_name(),
                field.json_name(),
                field.name()
            ));
        }
        seen.push(field.number());
        let Kind::Message(inner) = field.kind() else {
            continue;
        };
        if field.is_map() {
            // A map's entries are messages of a key and a value.
            let Kind::Message(entry) = inner.map_entry_value_field().kind() else {
                continue;
            };
            if let Value::Object(entries) = value {
                for item in entries.values() {
                    each_field_once(&entry, item)?;
                }
            }
        } else if field.is_list() {
            if let Value::Array(items) = value {
                for item in items {
                    each_field_once(&inner, item)?;
                }
            }
        } else {
            each_field_once(&inner, value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{from_json, pool};
    use crate::pb;

    #[test]
    fn a_repeated_key_is_refused_at_any_depth() {
        for body in [
            r#"{"gameId": "a", "gameId": "b"}"#,
            r#"{"action": {"x": 1, "x": 1}}"#,
            r#"[{"a": 1}, {"b": 2, "b": 2}]"#,
        ] {
            let e = parse(body.as_bytes()).expect_err(body);
            assert!(e.to_string().contains("appears twice"), "{body}: {e}");
        }
        let long = "k".repeat(10_000);
        let e = parse(format!(r#"{{"{long}": 1, "{long}": 2}}"#).as_bytes()).unwrap_err();
        assert!(e.to_string().len() < 200, "{e}");
    }

    #[test]
    fn json_without_repeats_reads_as_serde_json_reads_it() {
        let body = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": {"a": 1}}"#;
        assert_eq!(
            parse(body.as_bytes()).unwrap(),
            serde_json::from_str::<Value>(body).unwrap()
        );
        assert!(parse(b"{} {}").is_err(), "trailing data");
        assert!(parse(b"{\"a\": 1").is_err(), "cut short");
    }

    #[test]
    fn a_field_named_both_ways_is_refused() {
        let twice = serde_json::json!({"gameId": "a", "game_id": "b"});
        let e = from_json::<pb::GetStateRequest>(&twice).unwrap_err();
        assert!(
            e.to_string()
                .contains("`game_id` of druids.v1.GetStateRequest is given twice"),
            "{e}"
        );
        let once = serde_json::json!({"game_id": "a"});
        assert_eq!(
            from_json::<pb::GetStateRequest>(&once).unwrap().game_id,
            "a"
        );
    }

    #[test]
    fn nested_messages_are_checked_too() {
        let body = serde_json::json!({"options": {"maxTurns": 5, "max_turns": 500}});
        let e = from_json::<pb::CreateGameRequest>(&body).unwrap_err();
        assert!(
            e.to_string()
                .contains("`max_turns` of druids.v1.GameOptions is given twice"),
            "{e}"
        );
        let listed = serde_json::json!([{"options": {"startSeat": 1, "start_seat": 0}}]);
        let desc = pool()
            .get_message_by_name("druids.v1.CreateGameRequest")
            .unwrap();
        assert!(
            each_field_once(&desc, &listed).is_ok(),
            "not an object: left to the mapping"
        );
    }
}
