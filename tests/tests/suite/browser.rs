//! The web viewer in a real browser: Debian's Chromium (found on `PATH`,
//! installed with apt-get when missing) driven by playwright-core
//! (`tests/web/run.mjs`, from the npm registry into `target/web-tests/`). The
//! test fails, never skips, when it cannot run.
//!
//! It sets a server up with games of every kind and size, a ladder played
//! by bots, a tournament and a bot ready to be challenged; the script visits
//! every page once, at 360, 768 and 1280 px, plays two complete games by
//! real clicks, sends a challenge and watches its game, and prints what the
//! pages showed. Everything shown is compared here with the server's own
//! answers (GetState, GetReplayViews, GetLeaderboard, GetRatingHistory, ...),
//! never with the page's own code. Screenshots land in `target/screenshots/`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::MemoryStore;
use druids_tests::install::{apt_install, on_path};
use druids_tests::{Lcg, TestServer, all_events, authed, create, play_random, state};
use serde_json::{Value, json};

use crate::arena::{arena, play_seat, register, seek_and_play, wait_tournament};
use crate::web::{http_face, target_dir};

/// Makes sure Chromium, Node.js and playwright-core are there; returns the
/// browser's path and the directory holding the script and its modules.
fn browser_tools() -> (PathBuf, PathBuf) {
    let runs = |cmd: &str| {
        Command::new(cmd)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let chromium = || on_path("chromium").or_else(|| on_path("chromium-browser"));
    assert!(
        apt_install("chromium", true, || chromium().is_some()),
        "the browser tests need Chromium on PATH: `apt-get install chromium` failed \
         (run as root, with Debian's package mirrors reachable)"
    );
    for (package, program) in [("nodejs", "node"), ("npm", "npm")] {
        assert!(
            apt_install(package, false, || runs(program)),
            "the browser tests need {program}: `apt-get install {package}` failed"
        );
    }
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web");
    let dir = target_dir().join("web-tests");
    std::fs::create_dir_all(&dir).expect("target/web-tests");
    let lock = std::fs::read(src.join("package-lock.json")).expect("tests/web/package-lock.json");
    let installed_lock = std::fs::read(dir.join("package-lock.json")).ok();
    if installed_lock.as_deref() != Some(&lock[..])
        || !dir.join("node_modules/playwright-core").exists()
    {
        std::fs::copy(src.join("package.json"), dir.join("package.json")).expect("copy");
        std::fs::copy(src.join("package-lock.json"), dir.join("package-lock.json")).expect("copy");
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "the browser tests need playwright-core: `npm ci` in {} failed (is the npm \
             registry reachable?)",
            dir.display()
        );
    }
    std::fs::copy(src.join("run.mjs"), dir.join("run.mjs")).expect("copy run.mjs");
    (chromium().expect("chromium is installed"), dir)
}

type Client = pb::druids_service_client::DruidsServiceClient<tonic::transport::Channel>;
type Arena = ArenaServiceClient<tonic::transport::Channel>;

/// Plays random actions until a seat other than `seat` has a dolmen on the
/// board (its value hidden from `seat`), with the game still running.
async fn until_foreign_dolmen(client: &mut Client, game_id: &str, tokens: &[String], seat: u32) {
    let mut rng = Lcg(5);
    for _ in 0..2000 {
        let st = state(client, game_id, None).await;
        let Some(pb::state_view::Game::Dolmen(v)) = &st.game else {
            panic!("not a dolmen game")
        };
        if v.circles
            .iter()
            .any(|c| c.stack.iter().any(|d| d.seat != seat))
        {
            return;
        }
        assert_eq!(st.status, pb::GameStatus::Running as i32, "over too early");
        play_random(client, game_id, tokens, &mut rng, 1)
            .await
            .expect("play");
    }
    panic!("no dolmen of another seat after 2000 actions");
}

/// Plays random actions until it is seat 0's decision.
async fn until_seat_zero(client: &mut Client, game_id: &str, tokens: &[String], seed: u64) {
    let mut rng = Lcg(seed);
    while state(client, game_id, None).await.to_act != Some(0) {
        play_random(client, game_id, tokens, &mut rng, 1)
            .await
            .expect("play");
    }
}

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
    }
    (places, workers)
}

/// The scores by seat of a view.
fn scores(view: &pb::StateView) -> Vec<i64> {
    match view.game.as_ref().expect("a game") {
        pb::state_view::Game::Meduris(v) => v.seats.iter().map(|s| i64::from(s.score)).collect(),
        pb::state_view::Game::Dolmen(v) => v.seats.iter().map(|s| i64::from(s.score)).collect(),
    }
}

/// Asserts that a page (`shown`, as `run.mjs` read it) shows `view`: every
/// piece on every place, every score, the status and the version.
fn assert_shows(shown: &Value, view: &pb::StateView, what: &str) {
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
    assert_eq!(shown["version"].as_u64(), Some(view.version), "{what}");
    let status = pb::GameStatus::try_from(view.status).unwrap().as_str_name();
    assert_eq!(shown["status"], status, "{what}");
}

/// The replay's view of game `id` at `version`, as `seat` (or a spectator)
/// saw it.
async fn replay_view(
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

/// Plays the games of a bot's matches and accepts every challenge to it,
/// until aborted.
async fn answer_and_play(url: String, key: String) {
    let mut arena = ArenaServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let mut stream = arena
        .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("events")
        .into_inner();
    let mut games = tokio::task::JoinSet::new();
    while let Ok(Some(event)) = stream.message().await {
        match event.event {
            Some(pb::bot_event::Event::ChallengeReceived(c)) => {
                arena
                    .answer_challenge(authed(
                        &key,
                        pb::AnswerChallengeRequest {
                            challenge_id: c.challenge_id,
                            accept: true,
                        },
                    ))
                    .await
                    .expect("accept");
            }
            Some(pb::bot_event::Event::GameStarted(g)) => {
                games.spawn(play_seat(
                    url.clone(),
                    g.game_id,
                    key.clone(),
                    g.seat,
                    event.seq,
                ));
            }
            _ => {}
        }
    }
}

/// A ladder: three bots play rated two-player Die Dolmengötter matches (by
/// matchmaking) and a round-robin tournament. Returns the bots (id, key).
async fn ladder(server: &TestServer, a: &mut Arena) -> Vec<(String, String)> {
    let mut bots = Vec::new();
    for name in ["ada", "bob", "cy"] {
        bots.push(register(a, name).await);
    }
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    for (round, (x, y)) in [(0, 1), (1, 2), (0, 2), (0, 1)].into_iter().enumerate() {
        let first = seek_and_play(server.url(), bots[x].1.clone(), seek, 100 + round as u64);
        let second = seek_and_play(server.url(), bots[y].1.clone(), seek, 200 + round as u64);
        tokio::join!(first, second);
    }
    let players: Vec<_> = bots
        .iter()
        .map(|(_, key)| tokio::spawn(answer_and_play(server.url(), key.clone())))
        .collect();
    let t = a
        .create_tournament(authed(
            &bots[0].1,
            pb::CreateTournamentRequest {
                name: "Autumn cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: bots.iter().map(|(id, _)| id.clone()).collect(),
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                ..Default::default()
            },
        ))
        .await
        .expect("tournament")
        .into_inner()
        .tournament
        .unwrap();
    wait_tournament(a, &t.tournament_id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    for p in players {
        p.abort();
    }
    bots
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_viewer_in_a_real_browser() {
    let (chromium, tools) = tokio::task::spawn_blocking(browser_tools)
        .await
        .expect("install task");
    let started = Instant::now();
    let server = TestServer::with(Arc::new(MemoryStore::default()), crate::arena::limits()).await;
    let base = http_face(&server).await;
    let mut client = server.client().await;
    let mut a = arena(&server).await;

    // Finished games to replay, and a four-player Meduris at seat 0's turn.
    let mut finished = Vec::new();
    for (name, kind, players, seed) in [
        ("meduris", pb::GameKind::Meduris, 2, 3),
        ("dolmen", pb::GameKind::Dolmen, 3, 4),
    ] {
        let (id, tokens) = create(&mut client, kind, players, seed).await;
        play_random(&mut client, &id, &tokens, &mut Lcg(seed), usize::MAX)
            .await
            .expect("play");
        finished.push((name, id));
    }
    let (big, big_tokens) = create(&mut client, pb::GameKind::Meduris, 4, 12).await;
    play_random(&mut client, &big, &big_tokens, &mut Lcg(12), 120)
        .await
        .expect("play");
    until_seat_zero(&mut client, &big, &big_tokens, 12).await;
    // Seats with secrets: Meduris goods, dolmens of other seats.
    let (med_id, med_tokens) = create(&mut client, pb::GameKind::Meduris, 3, 5).await;
    play_random(&mut client, &med_id, &med_tokens, &mut Lcg(5), 40)
        .await
        .expect("play");
    let (dol_id, dol_tokens) = create(&mut client, pb::GameKind::Dolmen, 5, 5).await;
    until_foreign_dolmen(&mut client, &dol_id, &dol_tokens, 0).await;
    // The ladder, and a bot ready to be challenged from the browser.
    let bots = ladder(&server, &mut a).await;
    let (me, me_key) = register(&mut a, "my-bot").await;
    let (house, house_key) = register(&mut a, "house-greedy").await;
    // A rated match each, so that both are on the leaderboard the page
    // offers opponents from.
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    tokio::join!(
        seek_and_play(server.url(), me_key.clone(), seek, 7),
        seek_and_play(server.url(), house_key.clone(), seek, 8)
    );
    let challenged = tokio::spawn(answer_and_play(server.url(), house_key.clone()));
    let challenger = tokio::spawn(answer_and_play(server.url(), me_key.clone()));
    // A live game, played once the spectator's page follows it.
    let (live_id, live_tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 11).await;
    let player = {
        let service = Arc::clone(&server.service);
        let mut client = server.client().await;
        let (id, tokens) = (live_id.clone(), live_tokens.clone());
        tokio::spawn(async move {
            while service.open_streams() == 0 {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            play_random(&mut client, &id, &tokens, &mut Lcg(11), usize::MAX)
                .await
                .expect("play the live game");
        })
    };

    let screenshots = target_dir().join("screenshots");
    let user_data = tempdir("druids-chromium");
    let replay_step = 9;
    let plan = json!({
        "base": base,
        "chromium": chromium,
        "screenshots": screenshots,
        "userDataDir": user_data,
        "widths": [360, 768, 1280],
        "spectate": {"gameId": live_id},
        "replays": finished.iter().map(|(name, id)| json!({"name": name, "gameId": id, "step": replay_step})).collect::<Vec<_>>(),
        "human": [{"kind": "meduris", "seed": 7}, {"kind": "dolmen", "seed": 8}],
        "boards": [
            {"name": "Meduris, 4 players, seat 0 to decide", "path": format!("/games/{big}#token={}", big_tokens[0])},
            {"name": "Meduris, 3 players", "path": format!("/games/{med_id}")},
            {"name": "Die Dolmengötter, 5 players", "path": format!("/games/{dol_id}")},
        ],
        "secrets": [
            {"name": "meduris", "gameId": med_id, "token": med_tokens[0], "seat": 0},
            {"name": "dolmen", "gameId": dol_id, "token": dol_tokens[0], "seat": 0},
        ],
        "ladder": {"game": "dolmen", "players": 2, "botId": bots[0].0},
        "challenge": {"key": me_key, "kind": "GAME_KIND_DOLMEN", "opponentId": house},
        "errors": [
            {"name": "unknown game", "path": "/games/0123456789abcdef"},
            {"name": "bad token", "path": format!("/games/{med_id}#token=00ff")},
            {"name": "unknown page", "path": "/no/such/page"},
            {"name": "unknown bot", "path": "/bots/00000000000000ff"},
        ],
    });
    let plan_file = user_data.with_extension("json");
    std::fs::write(&plan_file, plan.to_string()).expect("plan");
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(tools.join("run.mjs"))
            .arg(&plan_file)
            .current_dir(&tools)
            .output()
            .expect("node runs")
    })
    .await
    .expect("browser task");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run.mjs failed: {stderr}\n{stdout}");
    let results: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("run.mjs printed no results ({e}): {stdout}\n{stderr}"));
    assert!(results["error"].is_null(), "browser: {}", results["error"]);
    assert_eq!(results["problems"], json!([]), "page problems");
    challenged.abort();
    challenger.abort();

    // Every page at every width: nothing wider than the window, no two
    // labels of a board on top of each other.
    let layouts = results["layouts"].as_array().expect("layouts");
    assert!(layouts.len() >= 10, "{}", layouts.len());
    for page in layouts {
        for width in ["360", "768", "1280"] {
            let l = &page[width];
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

    // The spectator's page ended on the server's final view.
    player.await.expect("live game played");
    let live_end = state(&mut client, &live_id, None).await;
    assert_shows(
        &results["spectate"]["shown"],
        &live_end,
        "spectator page at the end",
    );
    let events = all_events(&mut client, &live_id, None).await;
    assert!(results["spectate"]["events"].as_u64() >= Some(30.min(events.len() as u64)));

    // The games list: results and filters as ListGames has them.
    let listed = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .games;
    let rows = results["list"]["rows"].as_array().expect("rows");
    for row in rows.iter().take(10) {
        let g = listed
            .iter()
            .find(|g| row["id"] == g.game_id)
            .expect("a listed game");
        let cells = row["cells"].to_string();
        if let Some(o) = &g.outcome {
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
    // (The challenge's game started after the page read the list.)
    let arena_games: Vec<String> = client
        .list_games(pb::ListGamesRequest {
            arena: Some(true),
            page_size: 100,
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    let shown_arena = results["list"]["arena"].as_array().expect("arena games");
    assert!(shown_arena.len() >= 5, "{shown_arena:?}");
    for id in shown_arena {
        assert!(
            arena_games.iter().any(|g| id == g),
            "{id} is no ladder game"
        );
    }
    let pages = &results["list"]["pages"];
    assert_eq!(pages[0].as_array().map(Vec::len), Some(2), "{pages}");
    assert_eq!(pages[1].as_array().map(Vec::len), Some(2), "{pages}");

    // Each replay opened at its result, and a step showed the server's view
    // of that version; "score ▶" went to the first score change after it.
    for (shown, (name, id)) in results["replays"]
        .as_array()
        .expect("replays")
        .iter()
        .zip(&finished)
    {
        assert_shows(
            &shown["atEnd"],
            &state(&mut client, id, None).await,
            &format!("{name} replay at its end"),
        );
        assert_shows(
            &shown["atStep"],
            &replay_view(&mut client, id, None, replay_step).await,
            &format!("{name} replay at version {replay_step}"),
        );
        // As seat 0 saw it: its secrets on its row, nobody else's.
        let seat0 = replay_view(&mut client, id, Some(0), replay_step).await;
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
        let events = all_events(&mut client, id, None).await;
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

    // A person played a whole game of each kind by clicks, each decision in
    // one or two, and the page ended on the server's view.
    let human = results["human"].as_array().expect("human games");
    assert_eq!(human.len(), 2);
    for game in human {
        let id = game["gameId"].as_str().expect("game id");
        let end = state(&mut client, id, None).await;
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
        let mine = replay.actions.iter().filter(|a| a.seat == 0).count() as u64;
        assert_eq!(
            game["decisions"].as_u64(),
            Some(mine),
            "every decision of seat 0: {game}"
        );
        assert!(
            game["widest"].as_u64() <= Some(8),
            "a few choices or groups at a time, never a wall of buttons: {game}"
        );
        assert!(
            game["most"].as_u64() <= Some(2),
            "two clicks at most per decision: {game}"
        );
        assert!(game["clicks"].as_u64() >= Some(mine), "{game}");
        assert!(
            game["boardClicks"].as_u64() > Some(0),
            "on the board: {game}"
        );
    }

    // A seat's page shows that seat's secrets and no other seat's.
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
    let own = state(&mut client, &med_id, Some(&med_tokens[0])).await;
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
    for (seat, token) in med_tokens.iter().enumerate().skip(1) {
        let Some(pb::state_view::Game::Meduris(v)) =
            state(&mut client, &med_id, Some(token)).await.game
        else {
            panic!("meduris")
        };
        let g = v.seats[seat].goods.expect("own goods");
        let theirs = format!(
            "goods: wood {}, wool {}, copper {}, stone {}",
            g.wood, g.wool, g.copper, g.stone
        );
        if theirs != line {
            assert!(
                !med_page["text"].as_str().unwrap_or("").contains(&theirs),
                "seat {seat}'s goods shown to seat 0"
            );
        }
    }
    let dol_page = &secrets[1];
    let own = state(&mut client, &dol_id, Some(&dol_tokens[0])).await;
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
    let svg = dol_page["svg"].as_str().unwrap_or("");
    for (seat, token) in dol_tokens.iter().enumerate().skip(1) {
        let Some(pb::state_view::Game::Dolmen(v)) =
            state(&mut client, &dol_id, Some(token)).await.game
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

    // The leaderboard and a profile show the server's ratings, history and games.
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    let shown_board = results["leaderboard"].as_array().expect("leaderboard");
    assert_eq!(shown_board.len(), board.entries.len());
    for (row, entry) in shown_board.iter().zip(&board.entries) {
        let bot = entry.bot.as_ref().unwrap();
        assert_eq!(row["bot"], bot.bot_id);
        let cells = row["cells"].as_array().unwrap();
        assert_eq!(cells[1], bot.name);
        assert!(
            cells[2]
                .as_str()
                .unwrap()
                .starts_with(&format!("{:.1}", entry.rating.unwrap().display)),
            "{row}"
        );
        assert_eq!(cells[5], entry.matches.to_string());
    }
    let history = a
        .get_rating_history(pb::GetRatingHistoryRequest {
            bot_id: bots[0].0.clone(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            page_size: 500,
            ..Default::default()
        })
        .await
        .expect("history")
        .into_inner();
    let profile = &results["profile"];
    assert_eq!(profile["name"], "ada");
    assert_eq!(
        profile["chartMatches"].as_u64(),
        Some(history.points.len() as u64)
    );
    assert!(history.points.len() >= 3, "{}", history.points.len());
    let games: Vec<String> = client
        .list_games(pb::ListGamesRequest {
            bot_id: bots[0].0.clone(),
            page_size: 20,
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    assert_eq!(profile["games"], json!(games));
    let t = a
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .expect("tournaments")
        .into_inner()
        .tournaments
        .remove(0);
    let standings: Vec<String> = a
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: t.tournament_id,
        })
        .await
        .expect("tournament")
        .into_inner()
        .tournament
        .unwrap()
        .standings
        .into_iter()
        .map(|s| s.bot.unwrap().bot_id)
        .collect();
    assert_eq!(results["tournament"], json!(standings));

    // The challenge sent from the browser became a match between the two
    // bots, whose game the page watched to its end.
    let watched = results["challenge"]["gameId"]
        .as_str()
        .expect("the challenge's game");
    let mine: Vec<pb::GameSummary> = client
        .list_games(pb::ListGamesRequest {
            bot_id: me.clone(),
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games;
    let game = mine
        .iter()
        .find(|g| g.game_id == watched)
        .expect("the challenger's game");
    assert!(
        game.seats.iter().any(|s| s.name == "house-greedy"),
        "{game:?}"
    );
    assert!(!game.rated);
    let end = state(&mut client, watched, None).await;
    assert_eq!(end.status, pb::GameStatus::Finished as i32);
    assert_shows(&results["challenge"]["shown"], &end, "the challenge's game");

    // Error pages say what happened and link back.
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
            "No such bot"
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

    eprintln!(
        "browser tests: {:.1} s after the installs",
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&user_data);
    server.stop().await;
}

/// A fresh directory under the system's temp dir.
fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
