//! What the browser test checks of the pages, each against the server's own
//! answers: a board shows a view (GetState, GetReplayViews) piece by piece;
//! lists, leaderboards, profiles and tournaments show what ListGames,
//! GetLeaderboard, GetRatingHistory and GetTournament answer.

use std::collections::BTreeMap;

use druids_contract::pb;
use druids_tests::{all_events, state};
use serde_json::{Value, json};

use super::arena_pages::{challenge, ladder};
use super::scene::{Arena, Client, REPLAY_STEP, Scene};
use super::shown::assert_shows;

/// The replay's view of game `id` at `version`, as `seat` (or a spectator)
/// saw it.
pub(super) async fn replay_view(
    client: &mut Client,
    id: &str,
    seat: Option<u32>,
    version: u64,
) -> pb::StateView {
    client
        .get_replay_views(pb::GetReplayViewsRequest {
            game_id: id.to_owned(),
            seat,
            from_version: version,
            page_size: 1,
        })
        .await
        .expect("replay views")
        .into_inner()
        .views
        .remove(0)
}

/// Checks everything `run.mjs` printed (`results`) against the server.
pub(super) async fn all(results: &Value, scene: &Scene, client: &mut Client, a: &mut Arena) {
    layouts(results);
    spectator(results, scene, client).await;
    list(results, client).await;
    replays(results, scene, client).await;
    human(results, client).await;
    resigned(results, client).await;
    secrets(results, scene, client).await;
    ladder(results, scene, client, a).await;
    challenge(results, scene, client).await;
    errors(results, scene);
}

/// Every page at every width: nothing wider than the window, no two
/// labels of a board on top of each other.
fn layouts(results: &Value) {
    let layouts = results["layouts"].as_array().expect("layouts");
    let names: Vec<&str> = layouts.iter().filter_map(|l| l["name"].as_str()).collect();
    for page in [
        "games list",
        "replay meduris",
        "replay dolmen",
        "playing meduris",
        "playing dolmen",
        "Meduris, 4 players, seat 0 to decide",
        "Meduris, 3 players",
        "Die Dolmengötter, 5 players",
        "leaderboard",
        "bot profile",
        "tournament",
        "tournament in play",
        "my bot",
        "spectator",
        "error page",
    ] {
        assert!(names.contains(&page), "no layout of {page}: {names:?}");
    }
    for page in layouts {
        fits(page, &["360", "768", "1280"]);
        if page["name"]
            .as_str()
            .is_some_and(|n| n.contains("Meduris") || n.contains("replay") || n.contains("playing"))
        {
            assert!(
                page["1280"]["labels"].as_u64() > Some(40),
                "{}: a board with its labels",
                page["name"]
            );
        }
    }
}

/// One page's layout (`run.mjs`'s `layout`) at each of `widths`: nothing
/// wider than the window, no two labels of a board on top of each other.
pub(super) fn fits(page: &Value, widths: &[&str]) {
    for width in widths {
        let l = &page[width];
        assert!(
            l["width"].as_u64().is_some(),
            "{} at {width}: {page}",
            page["name"]
        );
        assert_eq!(
            l["width"].as_u64(),
            l["scrollWidth"].as_u64(),
            "{} at {width}: {l}",
            page["name"]
        );
        assert_eq!(
            l["outside"],
            json!([]),
            "{} at {width}: outside the window",
            page["name"]
        );
        assert_eq!(
            l["overlaps"],
            json!([]),
            "{} at {width}: labels overlap",
            page["name"]
        );
    }
}

/// The spectator's page ended on the server's final view.
async fn spectator(results: &Value, scene: &Scene, client: &mut Client) {
    let live_id = &scene.live;
    let live_end = state(client, live_id, None).await;
    assert_shows(
        &results["spectate"]["shown"],
        &live_end,
        "spectator page at the end",
    );
    let events = all_events(client, live_id, None).await;
    assert!(results["spectate"]["events"].as_u64() >= Some(30.min(events.len() as u64)));
}

/// The games list: results and filters as ListGames has them.
async fn list(results: &Value, client: &mut Client) {
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games;
    let rows = results["list"]["rows"].as_array().expect("rows");
    let mut with_results = 0;
    for row in rows.iter().take(10) {
        let g = listed
            .iter()
            .find(|g| row["id"] == g.game_id)
            .expect("a listed game");
        let cells = row["cells"].to_string();
        if let Some(o) = &g.outcome {
            with_results += 1;
            for (seat, score) in o.scores.iter().enumerate() {
                let name = &g.seats[seat].name;
                let name = if name.is_empty() {
                    format!("seat {seat}")
                } else {
                    name.clone()
                };
                assert!(
                    cells.contains(&format!("{name} {score}")),
                    "{cells} lacks {name} {score}"
                );
            }
        }
        assert!(
            !cells.contains(&g.game_id),
            "no internal ids in the list: {cells}"
        );
    }
    assert!(
        with_results > 0,
        "finished games among the first rows: {rows:?}"
    );
    // An unclaimed seat is an open seat, by number (as on the game's page).
    let mut open_seats = 0;
    for row in rows {
        let Some(g) = listed.iter().find(|g| row["id"] == g.game_id) else {
            continue;
        };
        let cells = row["cells"].to_string();
        for open in g.seats.iter().filter(|s| !s.claimed) {
            open_seats += 1;
            assert!(
                cells.contains(&format!("open seat {}", open.seat)),
                "{cells} lacks open seat {}",
                open.seat
            );
        }
    }
    assert!(open_seats > 0, "the waiting game is listed: {rows:?}");
    // Each filter shows what ListGames has for it.
    for (what, request) in [
        (
            "arena",
            pb::ListGamesRequest {
                arena: Some(true),
                ..Default::default()
            },
        ),
        (
            "rated",
            pb::ListGamesRequest {
                rated: Some(true),
                ..Default::default()
            },
        ),
        (
            "meduris",
            pb::ListGamesRequest {
                kind: pb::GameKind::Meduris as i32,
                ..Default::default()
            },
        ),
    ] {
        let shown = results["list"][what].as_array().expect("filtered rows");
        assert!(shown.len() >= 2, "{what}: {shown:?}");
        // (Games started after the page read the list, the challenge's, the
        // ones played by clicks and the ladder's since, come first in the
        // server's: the page's rows are a run of them, read page by page
        // until it is all there.)
        let ids: Vec<String> = games_until(client, request, |games| {
            let found = games.iter().position(|g| shown[0] == g.game_id);
            found.is_some_and(|at| games.len() >= at + shown.len())
        })
        .await
        .into_iter()
        .map(|g| g.game_id)
        .collect();
        let Some(at) = ids.iter().position(|id| shown[0] == *id) else {
            let id = shown[0].as_str().unwrap_or_default();
            panic!(
                "{what}: the page's first row {id} is not among the {} games ListGames has for it; \
                 unfiltered, it is {:?}; the page showed {shown:?}",
                ids.len(),
                unfiltered(client, id).await
            );
        };
        assert_eq!(json!(ids.get(at..at + shown.len())), json!(shown), "{what}");
    }
    let pages = &results["list"]["pages"];
    assert_eq!(pages[0].as_array().map(Vec::len), Some(2), "{pages}");
    assert_eq!(pages[1].as_array().map(Vec::len), Some(2), "{pages}");
}

/// Each replay opened at its result, and a step showed the server's view
/// of that version, also as seat 0 saw it; "score ▶" went to the first
/// score change after it.
async fn replays(results: &Value, scene: &Scene, client: &mut Client) {
    let (replay_step, finished) = (REPLAY_STEP, &scene.finished);
    for (shown, (name, id)) in results["replays"]
        .as_array()
        .expect("replays")
        .iter()
        .zip(finished)
    {
        assert_shows(
            &shown["atEnd"],
            &state(client, id, None).await,
            &format!("{name} replay at its end"),
        );
        assert_eq!(
            shown["scrubbed"].as_u64(),
            shown["atEnd"]["version"].as_u64().map(|v| v - 1),
            "{name}: the timeline, one key back"
        );
        assert_shows(
            &shown["atStep"],
            &replay_view(client, id, None, replay_step).await,
            &format!("{name} replay at version {replay_step}"),
        );
        // As seat 0 saw it: its secrets on its row, nobody else's.
        let seat0 = replay_view(client, id, Some(0), replay_step).await;
        assert_shows(
            &shown["asSeat"],
            &seat0,
            &format!("{name} replay as seat 0"),
        );
        let secret_rows: Vec<u64> = shown["asSeat"]["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .filter(|r| !r["secret"].is_null())
            .map(|r| r["seat"].as_u64().unwrap())
            .collect();
        assert_eq!(
            secret_rows,
            [0],
            "{name}: seat 0's view shows its secrets only"
        );
        // Seen as a seat by a spectator: that seat is marked as the one seen
        // through, not as the reader's, and a replay offers no decision.
        let names: Vec<&str> = shown["asSeat"]["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|r| r["name"].as_str().unwrap_or_default())
            .collect();
        assert!(
            names[0].ends_with(" (seen as)") && !names.iter().any(|n| n.contains("(you)")),
            "{name}: {names:?}"
        );
        let status = shown["asSeat"]["status_line"].as_str().unwrap_or_default();
        assert!(!status.contains("your decision"), "{name}: {status}");
        let events = all_events(client, id, None).await;
        let next_score = events
            .iter()
            .filter(|e| e.version > replay_step)
            .find(|e| match &e.body {
                Some(pb::game_event::Body::Meduris(m)) => {
                    matches!(m.kind, Some(pb::meduris_event::Kind::Scored(_)))
                }
                Some(pb::game_event::Body::Dolmen(d)) => {
                    matches!(d.kind, Some(pb::dolmen_event::Kind::Scored(_)))
                }
                _ => false,
            })
            .map(|e| e.version);
        assert_eq!(
            shown["scoreStep"].as_u64(),
            next_score,
            "{name}: the next score change"
        );
    }
}

/// A person played a whole game of each kind by clicks, each decision in
/// one or two, and the page ended on the server's view.
async fn human(results: &Value, client: &mut Client) {
    let human = results["human"].as_array().expect("human games");
    assert_eq!(human.len(), 2);
    for game in human {
        let id = game["gameId"].as_str().expect("game id");
        let end = state(client, id, None).await;
        assert_eq!(end.status, pb::GameStatus::Finished as i32, "{game}");
        assert_shows(
            &game["shown"],
            &end,
            &format!("{} played by clicks", game["kind"]),
        );
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.to_owned(),
            })
            .await
            .expect("export")
            .into_inner();
        // The seed was chosen: that makes a dice game's dice known, and is
        // nothing to say of a game without chance (Die Dolmengötter).
        let role = game["role"].as_str().unwrap_or_default();
        let dice = game["kind"] == "meduris";
        assert_eq!(role.contains("dice are not secret"), dice, "{role}");
        let mine = replay.actions.iter().filter(|a| a.seat == 0).count() as u64;
        assert_eq!(
            game["decisions"].as_u64(),
            Some(mine),
            "every decision of seat 0: {game}"
        );
        assert!(
            game["widest"].as_u64().expect("widest") <= 8,
            "a few choices or groups at a time, never a wall of buttons: {game}"
        );
        assert!(
            game["most"].as_u64().expect("most") <= 2,
            "two clicks at most per decision: {game}"
        );
        assert!(game["clicks"].as_u64() >= Some(mine), "{game}");
        assert!(
            game["boardClicks"].as_u64() > Some(0),
            "on the board: {game}"
        );
    }
}

/// A person resigned a practice game from its page: asked first (and a
/// declined question changed nothing), then the game ended at once with
/// seat 0 resigned, as the page said.
async fn resigned(results: &Value, client: &mut Client) {
    let page = &results["resign"];
    let id = page["gameId"].as_str().expect("the resigned game's id");
    assert_eq!(page["asked"].as_array().map(Vec::len), Some(2), "{page}");
    assert_ne!(
        page["afterDecline"].as_str(),
        Some("GAME_STATUS_FINISHED"),
        "a declined question resigns nothing: {page}"
    );
    let end = state(client, id, None).await;
    assert_eq!(end.status, pb::GameStatus::Finished as i32, "{page}");
    let outcome = end.outcome.expect("an outcome");
    assert_eq!(outcome.resigned, vec![0], "{page}");
    let said = page["outcome"].as_str().expect("the outcome shown");
    assert!(
        said.contains("resigned"),
        "the page says who resigned: {said}"
    );
    assert_eq!(
        page["buttonLeft"].as_u64(),
        Some(0),
        "no resign button after the end: {page}"
    );
    let listed = page["listed"].as_str().unwrap_or_default();
    assert!(
        listed.ends_with("(player resigned)"),
        "the games list says who resigned: {page}"
    );
}

/// A seat's page shows that seat's secrets and no other seat's.
async fn secrets(results: &Value, scene: &Scene, client: &mut Client) {
    let (med_id, med_tokens) = &scene.meduris;
    let (dol_id, dol_tokens) = &scene.dolmen;
    let secrets = results["secrets"].as_array().expect("secrets");
    assert_eq!(secrets.len(), 2);
    for page in secrets {
        let rows = page["shown"]["seats"].as_array().expect("seats");
        let with_secrets: Vec<u64> = rows
            .iter()
            .filter(|r| !r["secret"].is_null())
            .map(|r| r["seat"].as_u64().unwrap())
            .collect();
        assert_eq!(with_secrets, [0], "only seat 0's secrets");
    }
    let med_page = &secrets[0];
    let own = state(client, med_id, Some(&med_tokens[0])).await;
    assert_shows(&med_page["shown"], &own, "meduris seat page");
    let Some(pb::state_view::Game::Meduris(v)) = own.game else {
        panic!("meduris")
    };
    let goods = v.seats[0].goods.expect("own goods");
    let line = format!(
        "goods: wood {}, wool {}, copper {}, stone {}",
        goods.wood, goods.wool, goods.copper, goods.stone
    );
    assert_eq!(med_page["shown"]["seats"][0]["secret"], line);
    // Nowhere else on the page is a seat's goods: the text holds one list
    // of goods, seat 0's own.
    let text = med_page["text"].as_str().expect("the page's text");
    assert_eq!(
        text.matches("goods:").count(),
        1,
        "only seat 0's goods: {text}"
    );
    let dol_page = &secrets[1];
    let own = state(client, dol_id, Some(&dol_tokens[0])).await;
    assert_shows(&dol_page["shown"], &own, "dolmen seat page");
    let places: BTreeMap<String, Vec<String>> =
        serde_json::from_value(dol_page["shown"]["places"].clone()).unwrap();
    let foreign: Vec<&String> = places
        .values()
        .flatten()
        .filter(|p| p.contains("dolmen") && !p.contains("seat-0"))
        .collect();
    assert!(!foreign.is_empty(), "the page shows other seats' dolmens");
    assert!(
        foreign
            .iter()
            .all(|p| p.contains(" back ") && p.ends_with(":?")),
        "{foreign:?}"
    );
    // The SVG itself carries no value of another seat's dolmen either.
    let svg = dol_page["svg"].as_str().expect("the board's SVG");
    assert!(
        svg.contains("class=\"piece dolmen"),
        "a board with dolmens: {svg}"
    );
    for (seat, token) in dol_tokens.iter().enumerate().skip(1) {
        let Some(pb::state_view::Game::Dolmen(v)) = state(client, dol_id, Some(token)).await.game
        else {
            panic!("dolmen")
        };
        for d in v
            .circles
            .iter()
            .flat_map(|c| &c.stack)
            .filter(|d| d.seat == seat as u32)
        {
            let value = d.value.expect("a seat sees its own values");
            assert!(
                !svg.contains(&format!(">{seat}:{value}<")),
                "seat {seat}'s value shown to seat 0"
            );
        }
    }
}

/// Error pages say what happened and link back.
fn errors(results: &Value, scene: &Scene) {
    let med_id = &scene.meduris.0;
    let errors = results["errors"].as_array().expect("errors");
    let titles: Vec<&str> = errors
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "No such game",
            "This seat link is not valid",
            "No such page",
            "No such bot",
            // Not another pool's leaderboard, nor "the server cannot be
            // reached" for an address that cannot be decoded.
            "No such page",
            "No such page",
            "No such page",
        ]
    );
    for e in errors {
        assert!(
            e["links"].as_array().unwrap().iter().any(|l| l == "/"),
            "{e}"
        );
    }
    assert!(
        errors[1]["links"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| *l == json!(format!("/games/{med_id}"))),
        "a spectator link"
    );
}

/// Game `id` as ListGames without filters has it.
async fn unfiltered(client: &mut Client, id: &str) -> Option<pb::GameSummary> {
    let is_it = |g: &pb::GameSummary| g.game_id == id;
    games_until(client, pb::ListGamesRequest::default(), |games| {
        games.iter().any(is_it)
    })
    .await
    .into_iter()
    .find(is_it)
}

/// The games ListGames has for `request`, newest first, read a hundred a
/// page until `enough` says those read so far are enough, or the pages end.
async fn games_until(
    client: &mut Client,
    request: pb::ListGamesRequest,
    enough: impl Fn(&[pb::GameSummary]) -> bool,
) -> Vec<pb::GameSummary> {
    let mut games = Vec::new();
    let mut page_token = String::new();
    loop {
        let page = client
            .list_games(pb::ListGamesRequest {
                page_size: 100,
                page_token,
                ..request.clone()
            })
            .await
            .expect("list")
            .into_inner();
        games.extend(page.games);
        if page.next_page_token.is_empty() || enough(&games) {
            return games;
        }
        page_token = page.next_page_token;
    }
}
