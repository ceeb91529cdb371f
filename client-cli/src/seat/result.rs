//! The JSON line a seat's player prints when its game ends, the same for
//! every way of playing (a built-in strategy, a program behind the bridge,
//! the Python and TypeScript kits), keys in one order and spaced as Python's
//! `json.dumps` writes them.

use crate::seat::player::SeatResult;

/// The line every player of a seat ends with: `{"game_id", "seat",
/// "outcome", "actions", "restarts"}` in this order; the outcome in proto3
/// JSON with every field, keys sorted (null when the game was abandoned);
/// `actions` the seat's moves the server applied; `restarts` the times its
/// program was restarted (0 but for `--exec`). `docs/bot-protocol.md` and
/// both kits' READMEs show it.
pub fn outcome_line(game_id: &str, r: &SeatResult) -> String {
    format!(
        "{{\"game_id\": {}, \"seat\": {}, \"outcome\": {}, \"actions\": {}, \"restarts\": {}}}",
        python_json(&serde_json::Value::from(game_id)),
        r.seat,
        outcome_json(r.outcome.as_ref()),
        r.actions,
        r.restarts
    )
}

/// An outcome in proto3 JSON with every field, keys sorted and spaced as
/// Python writes them; `null` for none (an abandoned game).
pub fn outcome_json(outcome: Option<&druids_contract::pb::Outcome>) -> String {
    python_json(&outcome.map_or(serde_json::Value::Null, druids_contract::json::to_json))
}

/// `value` with Python's default separators (`", "` and `": "`).
pub fn python_json(value: &serde_json::Value) -> String {
    use serde::Serialize;
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(
            &mut self,
            w: &mut W,
        ) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    value
        .serialize(&mut ser)
        .expect("a JSON value serializes to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use druids_contract::pb;

    #[test]
    fn the_bot_line_has_the_shape_shared_with_the_kits() {
        let r = SeatResult {
            seat: 1,
            restarts: 0,
            outcome: Some(pb::Outcome {
                scores: vec![3, 9],
                winners: vec![1],
                ranking: vec![1, 0],
                by_safeguard: false,
            }),
            actions: 7,
        };
        assert_eq!(
            outcome_line("g1", &r),
            r#"{"game_id": "g1", "seat": 1, "outcome": {"bySafeguard": false, "ranking": [1, 0], "scores": [3, 9], "winners": [1]}, "actions": 7, "restarts": 0}"#
        );
        let abandoned = SeatResult { outcome: None, ..r };
        assert_eq!(
            outcome_line("g1", &abandoned),
            r#"{"game_id": "g1", "seat": 1, "outcome": null, "actions": 7, "restarts": 0}"#
        );
    }
}
