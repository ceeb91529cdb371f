//! A board as the page shows it against the view the server sent: every
//! place's pieces, every plateau's workers, the scores and the status, so a
//! page that draws what it was not told (or leaves out what it was) fails.

use std::collections::BTreeMap;

use druids_contract::pb;
use serde_json::Value;

/// What a board shows of a view, as `run.mjs` reads the page: each place
/// (a field, a site, a circle) with its pieces' classes (and each dolmen's
/// text), each plateau with its workers, bottom first.
fn places(view: &pb::StateView) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, Vec<String>>) {
    let mut places = BTreeMap::new();
    let mut workers = BTreeMap::new();
    match view.game.as_ref().expect("a game") {
        pb::state_view::Game::Meduris(v) => {
            for f in &v.fields {
                let pieces = f
                    .building
                    .iter()
                    .map(|b| {
                        let what = if b.temple { "temple" } else { "hut" };
                        format!("piece seat-{} {what}", b.owner)
                    })
                    .collect();
                places.insert(format!("field:{}", f.field), pieces);
            }
            for p in &v.plateaus {
                let good = pb::MedurisGood::try_from(p.good)
                    .unwrap()
                    .as_str_name()
                    .trim_start_matches("MEDURIS_GOOD_")
                    .to_lowercase();
                let stack = p
                    .workers
                    .iter()
                    .map(|w| format!("piece seat-{w} worker"))
                    .collect();
                workers.insert(good, stack);
            }
        }
        pb::state_view::Game::Dolmen(v) => {
            use pb::dolmen_site::Occupant;
            for s in &v.sites {
                let pieces = match &s.occupant {
                    None => vec![],
                    Some(Occupant::Stone(seat)) => vec![format!("piece stone seat-{seat}")],
                    Some(Occupant::Druid(d)) => {
                        let pose = if d.lying { "lying" } else { "standing" };
                        vec![format!("piece druid {pose} seat-{}", d.seat)]
                    }
                };
                places.insert(format!("site:{}", s.site), pieces);
            }
            for c in &v.circles {
                let stack = c
                    .stack
                    .iter()
                    .map(|d| match d.value {
                        Some(value) => format!("piece dolmen seat-{0} {0}:{value}", d.seat),
                        None => format!("piece dolmen seat-{0} back {0}:?", d.seat),
                    })
                    .collect();
                places.insert(format!("circle:{}", c.circle), stack);
            }
        }
        other => panic!("the browser scene plays no such game: {other:?}"),
    }
    (places, workers)
}

/// The scores by seat of a view.
fn scores(view: &pb::StateView) -> Vec<i64> {
    match view.game.as_ref().expect("a game") {
        pb::state_view::Game::Meduris(v) => v.seats.iter().map(|s| i64::from(s.score)).collect(),
        pb::state_view::Game::Dolmen(v) => v.seats.iter().map(|s| i64::from(s.score)).collect(),
        other => panic!("the browser scene plays no such game: {other:?}"),
    }
}

/// Asserts that a page (`shown`, as `run.mjs` read it) shows `view`: every
/// piece on every place, every score, the status and the version.
pub(super) fn assert_shows(shown: &Value, view: &pb::StateView, what: &str) {
    let (places, workers) = places(view);
    let shown_places: BTreeMap<String, Vec<String>> =
        serde_json::from_value(shown["places"].clone()).expect("places");
    assert_eq!(shown_places, places, "{what}: the board's pieces");
    let shown_workers: BTreeMap<String, Vec<String>> =
        serde_json::from_value(shown["workers"].clone()).expect("workers");
    assert_eq!(shown_workers, workers, "{what}: the plateaus");
    let shown_scores: Vec<i64> = shown["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["score"].as_i64().expect("score"))
        .collect();
    assert_eq!(shown_scores, scores(view), "{what}: the scores");
    // Meduris's score track: each seat's marker on its score (mod 100).
    let mut track: Vec<(u64, u64)> = serde_json::from_value(shown["track"].clone()).expect("track");
    track.sort_unstable();
    let expected: Vec<(u64, u64)> = match view.game.as_ref().expect("a game") {
        pb::state_view::Game::Meduris(v) => v
            .seats
            .iter()
            .map(|s| (u64::from(s.seat), i64::from(s.score).rem_euclid(100) as u64))
            .collect(),
        _ => Vec::new(),
    };
    assert_eq!(track, expected, "{what}: the score track");
    assert_eq!(shown["version"].as_u64(), Some(view.version), "{what}");
    let status = pb::GameStatus::try_from(view.status).unwrap().as_str_name();
    assert_eq!(shown["status"], status, "{what}");
}
