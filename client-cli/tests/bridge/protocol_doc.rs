//! `docs/bot-protocol.md` as written: every JSON example in it is checked
//! against the messages of a real game played through the real bridge, the
//! way the page says its examples were made (a bot that answers its first
//! decision with `pass`, then with the page's own answer lines, sleeps
//! through two decisions, then plays random ids). A message type, member or
//! enum name the bridge does not write as the page shows it fails the test.

use std::collections::BTreeSet;

use druids_contract::json::{from_json, to_json};
use druids_contract::pb;
use serde_json::Value;

use super::{Run, Scratch, create, have, random_bot};

/// The page's fenced blocks as (language, text), in order.
fn blocks() -> Vec<(String, String)> {
    druids_tests::docs::page_blocks("docs/bot-protocol.md")
        .into_iter()
        .map(|b| (b.lang, b.text))
        .collect()
}

/// What the decision example shows in place of its (repeated) state.
const STATE_ELIDED: &str = "{ … the StateView, as in the start message above … }";

/// The page's JSON examples, parsed; the decision's elided state is the
/// start message's.
fn examples() -> Vec<Value> {
    let jsons: Vec<String> = blocks()
        .into_iter()
        .filter(|(lang, _)| lang == "json")
        .map(|(_, text)| text)
        .collect();
    let parsed: Vec<Value> = jsons
        .iter()
        .filter(|t| !t.contains(STATE_ELIDED))
        .map(|t| serde_json::from_str(t).unwrap_or_else(|e| panic!("not JSON ({e}):\n{t}")))
        .collect();
    let start = parsed
        .iter()
        .find(|v| v["type"] == "start")
        .expect("a start example");
    let state = serde_json::to_string(&start["state"]).unwrap();
    let mut all = parsed.clone();
    for t in jsons.iter().filter(|t| t.contains(STATE_ELIDED)) {
        let t = t.replace(STATE_ELIDED, &state);
        all.push(serde_json::from_str(&t).unwrap_or_else(|e| panic!("not JSON ({e}):\n{t}")));
    }
    all
}

/// The page's example answers (the unlabelled block of `{"id"…}` lines).
fn answers() -> Vec<String> {
    let (_, text) = blocks()
        .into_iter()
        .find(|(lang, text)| lang.is_empty() && text.starts_with("{\"id\""))
        .expect("the answers block");
    text.lines().map(str::to_owned).collect()
}

/// Checks that `json` is a `M` written exactly as the bridge writes one:
/// it parses, and writing it back gives the same JSON (every member, enum
/// names, 64-bit numbers as strings).
fn check_message<M: prost::Name + Default>(what: &str, json: &Value) {
    let message: M = from_json(json).unwrap_or_else(|e| panic!("{what}: {e}\n{json:#}"));
    assert_eq!(
        &to_json(&message),
        json,
        "{what} is not written as the bridge writes it"
    );
}

/// The contract messages inside an example (or the end-of-game line).
fn check_contract_members(what: &str, v: &Value) {
    if let Some(state) = v.get("state") {
        check_message::<pb::StateView>(&format!("{what}.state"), state);
    }
    if let Some(decision) = v.get("decision") {
        check_message::<pb::Decision>(&format!("{what}.decision"), decision);
    }
    for (i, legal) in v["legal_actions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        check_message::<pb::LegalAction>(&format!("{what}.legal_actions[{i}]"), legal);
    }
    if let Some(action) = v.get("action") {
        check_message::<pb::Action>(&format!("{what}.action"), action);
    }
    if let Some(outcome) = v.get("outcome").filter(|o| !o.is_null()) {
        if outcome.get("tieBreaks").is_some() {
            check_message::<pb::Outcome>(&format!("{what}.outcome"), outcome);
        } else {
            // The end-of-game line shows an outcome's result only.
            let message: pb::Outcome = from_json(outcome).expect("an outcome");
            let mut written = to_json(&message);
            written
                .as_object_mut()
                .expect("an object")
                .retain(|k, _| !k.starts_with("tieBreak") && k != "resigned");
            assert_eq!(&written, outcome, "{what}.outcome");
        }
    }
}

/// A JSON value's type, for comparing envelopes.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The members of an object with the type of each.
fn envelope(v: &Value) -> BTreeSet<(String, &'static str)> {
    v.as_object()
        .expect("an object")
        .iter()
        .map(|(k, v)| (k.clone(), type_of(v)))
        .collect()
}

/// Logs every line it reads to the file named by its first argument; answers
/// as the page says its examples were made, with the page's answer lines
/// (given in the environment) where they apply.
const CAPTURE_BOT: &str = r##"
import json, os, random, sys, time
log = open(sys.argv[1], "a")
answers = json.loads(os.environ["DOC_ANSWERS"])
by_id = json.loads(answers[0])
by_action = json.loads(answers[1])
random.seed(7)
decisions, slept, used_action = 0, 0, False
def say(obj):
    print(obj if isinstance(obj, str) else json.dumps(obj), flush=True)
for line in sys.stdin:
    log.write(line); log.flush()
    msg = json.loads(line)
    if msg["type"] == "game_end":
        break
    if msg["type"] != "decision":
        continue
    v, legal = msg["version"], msg["legal_actions"]
    if msg["attempt"] == 1:
        decisions += 1
    if decisions == 1 and msg["attempt"] == 1:
        say("pass")
    elif decisions == 1:
        say(dict(by_id, version=v))
    elif not used_action and any(a["action"] == by_action["action"] for a in legal):
        used_action = True
        print("# the page's action answer", flush=True)
        say(dict(by_action, version=v))
    elif used_action and slept < 2 and msg["time_left_ms"] is not None:
        slept += 1
        time.sleep(msg["time_left_ms"] / 1000 + 0.4)
    else:
        say({"id": random.choice([a["id"] for a in legal if "id" in a]), "version": v})
"##;

#[test]
fn every_json_example_of_docs_bot_protocol_md_is_what_the_bridge_says() {
    assert!(have("python3"), "python3 is needed for the capture bot");
    let url = super::server();
    let dir = Scratch::new("protocol-doc");
    let script = dir.path("capture_bot.py");
    std::fs::write(&script, CAPTURE_BOT).unwrap();
    let captured = dir.path("captured.jsonl");
    let answers = answers();
    assert_eq!(answers.len(), 2, "{answers:?}");
    // Seed 3: the wood plateau, which the page's action answer names, is
    // free at one of seat 0's first decisions.
    let (id, tokens) = create(
        &url,
        "meduris",
        &[
            // Long enough that only the bot's two deliberate sleeps time
            // out, however busy the machine (each sleep costs a clock).
            "--decision-ms",
            "6000",
            "--autopilot-after",
            "2",
            "--seed",
            "3",
        ],
    );
    let opponent = random_bot(&url, &id, &tokens[1], &dir, "random");
    let exec = format!("python3 {} {}", script.display(), captured.display());
    // The page's answers reach the bot through the bridge's environment.
    let mut cmd = super::druids(&url);
    cmd.args([
        "bot",
        "--game-id",
        &id,
        "--token",
        &tokens[0],
        "--exec",
        &exec,
    ])
    .env("DOC_ANSWERS", serde_json::to_string(&answers).unwrap());
    let (summary, err) = Run::start(cmd, &dir, "bridge").finish();
    opponent.finish();
    assert!(
        err.contains("the page's action answer"),
        "the page's action answer was never legal:\n{err}"
    );
    let real: Vec<Value> = std::fs::read_to_string(&captured)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The page's answers were taken: the only refusal is of `pass`.
    let rejected: Vec<&Value> = real.iter().filter(|m| m["type"] == "rejected").collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}\n{err}");

    let examples = examples();
    let mut types = BTreeSet::new();
    for ex in examples.iter().filter(|v| v.get("type").is_some()) {
        let t = ex["type"].as_str().expect("a type is a string");
        types.insert(t.to_owned());
        check_contract_members(t, ex);
        // A real message of the type (and the same switch) with the same
        // members, each of the same JSON type.
        let same: Vec<&Value> = real
            .iter()
            .filter(|m| m["type"] == ex["type"])
            .filter(|m| m.get("autopilot") == ex.get("autopilot") && m.get("on") == ex.get("on"))
            .collect();
        assert!(
            !same.is_empty(),
            "the game sent no {t} like the page's:\n{ex:#}"
        );
        assert!(
            same.iter().any(|m| envelope(m) == envelope(ex)),
            "the page's {t} has members {:?}; the bridge's {:?}",
            envelope(ex),
            envelope(same[0])
        );
        if t == "rejected" {
            assert_eq!(ex["reason"], same[0]["reason"], "the reason for `pass`");
        }
    }
    // Every type the bridge sent is shown.
    for m in &real {
        assert!(
            types.contains(m["type"].as_str().unwrap()),
            "no example of {m}"
        );
    }
    // The end-of-game line of the bridge's stdout, with the same members.
    let line = examples
        .iter()
        .find(|v| v.get("type").is_none())
        .expect("the end-of-game line");
    check_contract_members("the end-of-game line", line);
    assert_eq!(envelope(line), envelope(&summary), "{summary}");
}
