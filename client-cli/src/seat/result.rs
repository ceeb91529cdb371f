//! The JSON line a seat's player prints when its game ends, the same for
//! every way of playing (a built-in strategy, a program behind the bridge,
//! the Python and TypeScript kits), keys in one order and spaced as Python's
//! `json.dumps` writes them.

use crate::lines::{outcome_json, python_json};
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
                ..Default::default()
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
