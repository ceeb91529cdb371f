//! The line protocol between the bridge and a bot, version [`PROTOCOL`]: the
//! JSON objects the bridge writes to the bot's stdin and the answers it reads
//! back. `docs/bot-protocol.md` is its manual; this is its one implementation.
//!
//! Contract messages inside (state views, decisions, legal actions, actions,
//! outcomes) are written and read by [`druids_contract::json`], in the canonical proto3
//! JSON mapping, so the bridge never needs to know which game is played: a new
//! game or a renamed field of a game's proto passes through unchanged.

use druids_contract::json::{from_json, to_json};
use druids_contract::pb;
use serde_json::{Value, json};

/// The protocol version, sent in the `start` message. A change that could
/// break a bot that follows the manual increments it.
pub const PROTOCOL: u32 = 1;

/// What the bridge knows of the game when it starts a bot.
pub struct Start<'a> {
    /// The game.
    pub game_id: &'a str,
    /// The bot's seat.
    pub seat: u32,
    /// How many times the bot has been restarted (0: first start).
    pub restarts: u32,
    /// The seat's view of the game now.
    pub state: &'a pb::StateView,
}

/// `start`: sent first to every bot process.
pub fn start(s: &Start<'_>) -> Value {
    let kind = pb::GameKind::try_from(s.state.kind).unwrap_or(pb::GameKind::Unspecified);
    json!({
        "type": "start",
        "protocol": PROTOCOL,
        "game_id": s.game_id,
        "kind": kind.as_str_name(),
        "seat": s.seat,
        "players": s.state.seats.len(),
        "seat_names": s.state.seats.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        "restarts": s.restarts,
        "state": to_json(s.state),
    })
}

/// A decision of the bot's seat, as it is asked.
pub struct Ask<'a> {
    /// The game.
    pub game_id: &'a str,
    /// The bot's seat.
    pub seat: u32,
    /// The version the decision is taken on.
    pub version: u64,
    /// What must be decided.
    pub decision: Option<&'a pb::Decision>,
    /// The legal actions (the default list, with ids).
    pub actions: &'a [pb::LegalAction],
    /// The seat's view, of `version`.
    pub state: &'a pb::StateView,
    /// When the turn clock runs out (ms since the Unix epoch), if there is one.
    pub deadline_unix_ms: Option<u64>,
    /// Milliseconds left until then, when the message is written.
    pub time_left_ms: Option<u64>,
    /// 1 for the first time this decision is asked, then 2, 3, ... after
    /// answers the bridge could not use.
    pub attempt: u32,
}

/// `decision`: the bot's seat must decide; exactly one answer line is expected.
pub fn decision(a: &Ask<'_>) -> Value {
    json!({
        "type": "decision",
        "game_id": a.game_id,
        "seat": a.seat,
        "version": a.version,
        "attempt": a.attempt,
        "deadline_unix_ms": a.deadline_unix_ms,
        "time_left_ms": a.time_left_ms,
        "decision": a.decision.map(to_json),
        "legal_actions": a.actions.iter().map(to_json).collect::<Vec<_>>(),
        "state": to_json(a.state),
    })
}

/// `rejected`: the bot's answer to the decision of `version` could not be
/// used; `reason` says why. The decision is asked again if time remains.
pub fn rejected(game_id: &str, version: u64, reason: &str) -> Value {
    json!({
        "type": "rejected",
        "game_id": game_id,
        "version": version,
        "reason": reason,
    })
}

/// `timed_out`: the server's clock decided for the seat (its default action,
/// or the autopilot's) at `version`; an answer still to come for it is
/// discarded.
pub fn timed_out(game_id: &str, version: u64, t: &pb::TimedOut) -> Value {
    json!({
        "type": "timed_out",
        "game_id": game_id,
        "version": version,
        "autopilot": t.autopilot,
        "action": t.action.as_ref().map(to_json),
    })
}

/// `autopilot`: the server now plays the seat (`on`), or no longer does.
pub fn autopilot(game_id: &str, on: bool) -> Value {
    json!({"type": "autopilot", "game_id": game_id, "on": on})
}

/// How a game ended, for [`game_end`].
pub enum End<'a> {
    /// Finished by the rules (or the safeguard).
    Finished(Option<&'a pb::Outcome>),
    /// Given up by the server.
    Abandoned(&'a str),
}

/// `game_end`: the last message; the bot should exit (its stdin closes next).
pub fn game_end(game_id: &str, end: &End<'_>) -> Value {
    let (status, outcome, reason) = match end {
        End::Finished(o) => ("finished", o.map(to_json), None),
        End::Abandoned(r) => ("abandoned", None, Some(*r)),
    };
    json!({
        "type": "game_end",
        "game_id": game_id,
        "status": status,
        "outcome": outcome,
        "reason": reason,
    })
}

/// A line the bot printed, classified.
#[derive(Debug, PartialEq)]
pub enum BotLine {
    /// Nothing (an empty or blank line): ignored.
    Blank,
    /// A log line (`#` first): passed through to stderr.
    Log(String),
    /// An answer to a decision.
    Answer(Answer),
}

/// An answer: what the bot chose, and for which version if it said.
#[derive(Debug, PartialEq)]
pub struct Answer {
    /// The choice, or why it cannot be used.
    pub choice: Result<Choice, AnswerError>,
    /// The `version` the answer carries, if any.
    pub version: Option<u64>,
}

/// A usable choice.
#[derive(Debug, PartialEq)]
pub enum Choice {
    /// `{"id": N}`: an entry of the decision's `legal_actions`.
    Id(u32),
    /// `{"action": {...}}`: a full action.
    Action(pb::Action),
}

/// Why an answer line cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnswerError {
    /// Not JSON at all.
    #[error("not JSON ({0}); answer {{\"id\": N}} or {{\"action\": {{...}}}}")]
    NotJson(String),
    /// JSON, but not an object with `id` or `action`.
    #[error("a JSON object with \"id\" or \"action\" was expected")]
    NoChoice,
    /// Both `id` and `action`.
    #[error("\"id\" and \"action\" together; send one")]
    Both,
    /// `id` is not a non-negative integer.
    #[error("\"id\" must be a non-negative integer, not {0}")]
    BadId(String),
    /// `action` is not a valid Action.
    #[error("\"action\" is not a valid druids.v1.Action: {0}")]
    BadAction(String),
    /// `version` is not a non-negative integer.
    #[error("\"version\" must be a non-negative integer, not {0}")]
    BadVersion(String),
    /// The line was too long to read.
    #[error("the line is {0} bytes long, over the limit of {max}", max = super::child::MAX_LINE_BYTES)]
    TooLong(usize),
}

/// Classifies one line from the bot.
pub fn parse_line(line: &str) -> BotLine {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return BotLine::Blank;
    }
    if let Some(log) = trimmed.strip_prefix('#') {
        return BotLine::Log(log.trim_start().to_owned());
    }
    BotLine::Answer(parse_answer(trimmed))
}

/// Short for error messages: at most 64 bytes of `v`.
fn quote(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 64 {
        s.truncate(s.floor_char_boundary(64));
        s.push('…');
    }
    s
}

fn parse_answer(text: &str) -> Answer {
    // A key given twice (`{"id": 1, "id": 2}`) is refused, not guessed at.
    let value: Value = match druids_contract::json::parse(text.as_bytes()) {
        Ok(v) => v,
        Err(e) => {
            return Answer {
                choice: Err(AnswerError::NotJson(e.to_string())),
                version: None,
            };
        }
    };
    let Value::Object(obj) = &value else {
        return Answer {
            choice: Err(AnswerError::NoChoice),
            version: None,
        };
    };
    let version = match obj.get("version") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            // A bot may copy the version as the string the proto3 mapping uses.
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .map(Some)
            .ok_or_else(|| AnswerError::BadVersion(quote(v))),
    };
    let choice = match (obj.get("id"), obj.get("action")) {
        (Some(_), Some(_)) => Err(AnswerError::Both),
        (None, None) => Err(AnswerError::NoChoice),
        (Some(id), None) => id
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Choice::Id)
            .ok_or_else(|| AnswerError::BadId(quote(id))),
        (None, Some(action)) => from_json::<pb::Action>(action)
            .map(Choice::Action)
            .map_err(|e| AnswerError::BadAction(e.to_string())),
    };
    match version {
        Ok(version) => Answer { choice, version },
        Err(e) => Answer {
            choice: Err(e),
            version: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Answer {
        match parse_line(line) {
            BotLine::Answer(a) => a,
            other => panic!("{line:?} is not an answer: {other:?}"),
        }
    }

    #[test]
    fn lines_are_answers_logs_or_blank() {
        assert_eq!(parse_line("  "), BotLine::Blank);
        assert_eq!(parse_line("# thinking"), BotLine::Log("thinking".into()));
        assert_eq!(answer(r#"{"id": 3}"#).choice, Ok(Choice::Id(3)));
        let a = answer(r#"{"id": 0, "version": "12"}"#);
        assert_eq!((a.choice, a.version), (Ok(Choice::Id(0)), Some(12)));
    }

    #[test]
    fn bad_answers_say_what_is_wrong() {
        assert!(matches!(
            answer("banana").choice,
            Err(AnswerError::NotJson(_))
        ));
        assert_eq!(answer("[1]").choice, Err(AnswerError::NoChoice));
        assert_eq!(answer(r#"{"move": 1}"#).choice, Err(AnswerError::NoChoice));
        assert_eq!(
            answer(r#"{"id": -1}"#).choice,
            Err(AnswerError::BadId("-1".into()))
        );
        assert_eq!(
            answer(r#"{"id": 1, "action": {}}"#).choice,
            Err(AnswerError::Both)
        );
        assert!(matches!(
            answer(r#"{"action": {"chess": {}}}"#).choice,
            Err(AnswerError::BadAction(_))
        ));
        assert!(matches!(
            answer(r#"{"id": 1, "version": true}"#).choice,
            Err(AnswerError::BadVersion(_))
        ));
        // Which of two ids was meant cannot be known.
        assert!(matches!(
            answer(r#"{"id": 1, "id": 2}"#).choice,
            Err(AnswerError::NotJson(e)) if e.contains("twice")
        ));
    }

    /// The members of `v`, sorted (whatever serde_json's map order is).
    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<_> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    #[test]
    fn every_message_has_its_documented_members() {
        let state = pb::StateView::default();
        let start = start(&Start {
            game_id: "g",
            seat: 1,
            restarts: 0,
            state: &state,
        });
        assert_eq!(start["type"], "start");
        assert_eq!(start["protocol"], PROTOCOL);
        assert_eq!(
            keys(&start),
            [
                "game_id",
                "kind",
                "players",
                "protocol",
                "restarts",
                "seat",
                "seat_names",
                "state",
                "type"
            ]
        );
        let ask = decision(&Ask {
            game_id: "g",
            seat: 1,
            version: 7,
            decision: None,
            actions: &[pb::LegalAction::default()],
            state: &state,
            deadline_unix_ms: None,
            time_left_ms: None,
            attempt: 1,
        });
        assert_eq!(
            keys(&ask),
            [
                "attempt",
                "deadline_unix_ms",
                "decision",
                "game_id",
                "legal_actions",
                "seat",
                "state",
                "time_left_ms",
                "type",
                "version"
            ]
        );
        assert_eq!(ask["legal_actions"][0]["description"], "");
        let end = game_end("g", &End::Abandoned("idle"));
        assert_eq!(
            (&end["status"], &end["outcome"], &end["reason"]),
            (&json!("abandoned"), &Value::Null, &json!("idle"))
        );
    }

    /// The manual's examples come from a real run; this keeps them in step
    /// with the code: one example of each message type, with exactly the
    /// members the bridge writes.
    #[test]
    fn the_manual_shows_every_message_with_its_members() {
        let manual = include_str!("../../../docs/bot-protocol.md");
        let examples: Vec<Value> = manual
            .split("```json\n")
            .skip(1)
            .map(|block| block.split("\n```").next().unwrap())
            // The decision example leaves its state out.
            .map(|block| {
                block.replace("{ … the StateView, as in the start message above … }", "{}")
            })
            .map(|block| serde_json::from_str(&block).unwrap())
            .collect();
        let example = |t: &str| {
            examples
                .iter()
                .find(|e| e["type"] == t)
                .unwrap_or_else(|| panic!("the manual has no {t} example"))
        };
        let state = pb::StateView::default();
        let written = [
            start(&Start {
                game_id: "g",
                seat: 0,
                restarts: 0,
                state: &state,
            }),
            decision(&Ask {
                game_id: "g",
                seat: 0,
                version: 0,
                decision: None,
                actions: &[],
                state: &state,
                deadline_unix_ms: None,
                time_left_ms: None,
                attempt: 1,
            }),
            rejected("g", 0, "why"),
            timed_out("g", 0, &pb::TimedOut::default()),
            autopilot("g", true),
            game_end("g", &End::Finished(None)),
        ];
        for msg in &written {
            let t = msg["type"].as_str().unwrap();
            assert_eq!(keys(example(t)), keys(msg), "members of {t}");
        }
        assert_eq!(example("start")["protocol"], PROTOCOL);
    }

    #[test]
    fn full_actions_are_read_by_the_contract_mapping() {
        let action = pb::Action::default();
        let line = json!({"action": to_json(&action)}).to_string();
        assert_eq!(answer(&line).choice, Ok(Choice::Action(action)));
    }
}
