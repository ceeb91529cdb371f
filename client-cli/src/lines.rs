//! The JSON lines druids writes about games, in one style: keys in a fixed
//! order, Python's separators (`", "`, `": "`), an outcome's result in
//! proto3 JSON with its keys sorted. A seat's end ([`crate::seat::result`])
//! and the per-game record of the commands that play many games (`match`,
//! `tournament`, `selfplay`: [`game_line`]) are built from these.

use druids_contract::pb;

/// One game of many, as its JSON line tells it.
pub struct GameRecord<'a> {
    /// Its number in the run, from 0.
    pub index: u64,
    /// Its id: the server's, or one the run made up.
    pub game_id: &'a str,
    /// The engine's seed.
    pub seed: u64,
    /// Who played each seat.
    pub seats: &'a [String],
    /// How it ended (none: it could not be finished).
    pub outcome: Option<&'a pb::Outcome>,
    /// Actions played.
    pub actions: u64,
    /// Why it could not be played, if it could not.
    pub error: Option<&'a str>,
}

/// `{"game", "game_id", "seed", "seats", "outcome", "actions", "error"}`.
pub fn game_line(g: &GameRecord<'_>) -> String {
    let seats: Vec<serde_json::Value> = g.seats.iter().map(|s| s.clone().into()).collect();
    format!(
        "{{\"game\": {}, \"game_id\": {}, \"seed\": {}, \"seats\": {}, \"outcome\": {}, \"actions\": {}, \"error\": {}}}",
        g.index,
        python_json(&g.game_id.into()),
        g.seed,
        python_json(&seats.into()),
        outcome_json(g.outcome),
        g.actions,
        python_json(&g.error.map_or(serde_json::Value::Null, Into::into))
    )
}

/// An outcome's result (`bySafeguard`, `ranking`, `scores`, `winners`: its
/// tie-break keys are in the game's state and replay) in proto3 JSON, keys
/// sorted and spaced as Python writes them; `null` for none (an abandoned
/// game).
pub fn outcome_json(outcome: Option<&pb::Outcome>) -> String {
    python_json(&outcome.map_or(serde_json::Value::Null, |o| {
        let mut json = druids_contract::json::to_json(o);
        if let Some(fields) = json.as_object_mut() {
            fields.retain(|k, _| RESULT_FIELDS.contains(&k.as_str()));
        }
        json
    }))
}

/// The fields of an outcome a result line shows.
const RESULT_FIELDS: [&str; 4] = ["bySafeguard", "ranking", "scores", "winners"];

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
