//! The viewer's generic board (`web/generic.js`) on the test tree's game
//! Cairn (`tests/cairn/`), which has no board of its own: on a server that
//! hosts it, a person starts a game against a built-in bot from the practice
//! form and plays it to its end by real clicks, one width (plus the layout
//! at a phone's). What the page showed at each of its decisions is compared
//! with the server's view at that version as seat 0 saw it (GetReplayViews),
//! the choices with the decision the server was asking, and nothing of the
//! bot's offering may show before the end.

use std::collections::BTreeMap;
use std::sync::Arc;

use druids_contract::pb;
use druids_server::catalog::Catalog;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, http_face, state};
use serde_json::{Value, json};

use super::checks::{fits, replay_view};
use super::tools;
use crate::web::target_dir;

/// Cairn's `GameKind` number.
const CAIRN: i32 = 1000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generic_board_plays_the_test_game_by_clicks() {
    let (chromium, dir) = tokio::task::spawn_blocking(tools::install)
        .await
        .expect("install task");
    let limits = Limits {
        catalog: Catalog::with_test_games(),
        ..Limits::unthrottled()
    };
    let server = TestServer::with(Arc::new(MemoryStore::default()), limits).await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let user_data = tools::tempdir("druids-chromium-generic");
    let plan = json!({
        "base": base,
        "chromium": chromium,
        "screenshots": target_dir().join("screenshots"),
        "userDataDir": user_data,
        "widths": [360, 1280],
        "generic": {"kind": "cairn", "seed": 5},
    });
    let results = tools::run(dir, &plan, user_data.with_extension("json")).await;
    assert!(results["error"].is_null(), "browser: {}", results["error"]);
    assert_eq!(results["problems"], json!([]), "page problems");
    let layouts = results["layouts"].as_array().expect("layouts");
    assert_eq!(layouts.len(), 1, "{layouts:?}");
    fits(&layouts[0], &["360", "1280"]);
    assert!(
        layouts[0]["1280"]["labels"].as_u64() >= Some(4),
        "the seats and their fields on the table: {}",
        layouts[0]
    );

    let played = &results["generic"];
    let id = played["gameId"].as_str().expect("a game id");
    // The practice form and the rules panel read the game's descriptor.
    let cairn = client
        .list_game_types(pb::ListGameTypesRequest {})
        .await
        .expect("game types")
        .into_inner()
        .game_types
        .into_iter()
        .find(|t| t.kind == CAIRN)
        .expect("cairn is hosted");
    let counts: Vec<String> = (cairn.min_players..=cairn.max_players)
        .map(|n| n.to_string())
        .collect();
    assert_eq!(played["offered"], json!(counts));
    assert_eq!(played["rules"][0], cairn.summary.as_str());
    assert!(
        played["rules"].to_string().contains(&cairn.rules),
        "the rules' link: {}",
        played["rules"]
    );
    let end = state(&mut client, id, None).await;
    assert_eq!(end.kind, CAIRN);
    assert_eq!(end.status, pb::GameStatus::Finished as i32);
    let steps = played["steps"].as_array().expect("steps");
    let (last, decisions) = steps.split_last().expect("at least the end");
    assert_eq!(played["clicks"].as_u64(), Some(decisions.len() as u64));
    // The bot plays at random: the person hides, then has the first turn.
    assert!(decisions.len() >= 2, "{} decisions", decisions.len());
    let mut saw_own_offering = false;
    for step in decisions {
        let view = checked_step(&mut client, id, step).await;
        assert_eq!(view.to_act, Some(0), "choices only on the seat's turn");
        let json = druids_contract::json::to_json(&view);
        let wanted: Vec<String> = match json["decision"]["generic"]["name"].as_str() {
            Some("hide") => (1..=3)
                .map(|v| format!("hide an offering worth {v}"))
                .collect(),
            Some("turn") => vec![
                "roll the die".into(),
                "stop and add the pile to the cairn".into(),
            ],
            other => panic!("a decision of seat 0: {other:?}"),
        };
        assert_eq!(step["choices"], json!(wanted), "{}", step["version"]);
        assert_eq!(
            step["meaning"],
            view.decision_description.as_str(),
            "{step}"
        );
        // The bot's offering, nowhere on the page while the game runs.
        assert!(step["fields"].get("seats[1].offering").is_none(), "{step}");
        let labels = step["tableLabels"]["1"]
            .as_array()
            .expect("the bot's labels");
        let details = step["details"][1].as_str().expect("the bot's row");
        assert!(!labels.is_empty() && !details.is_empty(), "{step}");
        assert!(
            !format!("{labels:?} {details}").contains("offering"),
            "{step}"
        );
        let log = step["log"].as_array().expect("log");
        assert!(!log.is_empty(), "{step}");
        for line in log {
            let line = line.as_str().expect("a line");
            assert!(
                !(line.contains("random bot 1") && line.contains("worth")),
                "{line}"
            );
        }
        saw_own_offering |= step["fields"].get("seats[0].offering").is_some()
            && step["log"]
                .to_string()
                .contains("player hid an offering worth");
    }
    assert!(saw_own_offering, "the seat's own offering is shown to it");

    // The end: the server's last view, the result and the scores.
    let view = checked_step(&mut client, id, last).await;
    assert_eq!(view.version, end.version);
    let outcome = end.outcome.expect("an outcome");
    assert_eq!(
        last["scores"],
        json!(
            outcome
                .scores
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
        )
    );
    let names = ["player", "random bot 1"];
    for w in &outcome.winners {
        assert!(
            last["outcome"]
                .as_str()
                .expect("outcome")
                .contains(names[*w as usize]),
            "{last}"
        );
    }
    // The replay opens at the result, as a spectator saw it.
    let replay = &played["replay"];
    let spectator = replay_view(&mut client, id, None, end.version).await;
    assert_eq!(replay["version"].as_u64(), Some(end.version));
    assert_eq!(replay["fields"], fields_of(&spectator), "the replay's end");
    assert_eq!(replay["scores"], last["scores"]);

    let _ = std::fs::remove_dir_all(&user_data);
    server.stop().await;
}

/// Checks one step the page showed against the server's view at its
/// version as seat 0 saw it; returns that view.
async fn checked_step(client: &mut super::scene::Client, id: &str, step: &Value) -> pb::StateView {
    let version = step["version"].as_u64().expect("a version");
    let view = replay_view(client, id, Some(0), version).await;
    assert_eq!(view.version, version);
    let status = pb::GameStatus::try_from(view.status).expect("status");
    assert_eq!(step["status"], status.as_str_name(), "{version}");
    assert_eq!(step["fields"], fields_of(&view), "the fields at {version}");
    view
}

/// A generic view's fields as the page lists them: `path -> text`, lists
/// as `name[i]`, objects as `name.key`, numbers as JavaScript writes them.
fn fields_of(view: &pb::StateView) -> Value {
    fn flat(value: &Value, path: String, out: &mut BTreeMap<String, String>) {
        let at = |key: String| {
            if path.is_empty() {
                key
            } else {
                format!("{path}.{key}")
            }
        };
        match value {
            Value::Object(m) => m.iter().for_each(|(k, v)| flat(v, at(k.clone()), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| flat(v, format!("{path}[{i}]"), out)),
            Value::Number(n) => {
                out.insert(path, n.as_f64().expect("a number").to_string());
            }
            Value::String(s) => {
                out.insert(path, s.clone());
            }
            other => {
                out.insert(path, other.to_string());
            }
        }
    }
    let json = druids_contract::json::to_json(view);
    let fields = &json["generic"]["fields"];
    assert!(fields.is_object(), "a generic view: {json}");
    let mut out = BTreeMap::new();
    flat(fields, String::new(), &mut out);
    json!(out)
}
