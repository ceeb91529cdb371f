//! The `druids` binary end to end against a real server on an ephemeral port:
//! self-play (also with silent seats and turn clocks), create, state, watch,
//! a person playing through piped stdin, a bot, export and replay.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use druids_server::{Limits, MemoryStore, Service, SystemClock};

/// Starts a server on a runtime of its own thread; returns its URL.
fn server() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let service = Arc::new(
                Service::new(
                    Arc::new(MemoryStore),
                    Limits::unthrottled(),
                    Arc::new(SystemClock),
                )
                .unwrap(),
            );
            druids_server::serve_service(listener, service, None, std::future::pending())
                .await
                .unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

fn druids(url: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_druids"))
        .arg("--server")
        .arg(url)
        .args(args)
        .output()
        .expect("run druids");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn last_json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.lines().last().expect("output")).expect("JSON last line")
}

/// Self-play through the server for both games (Die Dolmengötter with five
/// players, as in its issue's acceptance command), also with silent seats whose
/// clocks run out: the games' default actions finish them.
#[test]
fn selfplay_through_the_server_completes_every_game() {
    let url = server();
    for (game, players, min_actions) in [("meduris", "4", 100), ("dolmen", "5", 15)] {
        let (ok, out, err) = druids(
            &url,
            &[
                "selfplay",
                "--game",
                game,
                "--players",
                players,
                "--games",
                "4",
                "--concurrency",
                "2",
            ],
        );
        assert!(ok, "{err}");
        let j = last_json(&out);
        assert_eq!(j["game"], game);
        assert_eq!(j["games"], 4);
        assert_eq!(j["completed"], 4);
        assert_eq!(j["errors"], 0);
        assert!(j["actions"].as_u64().unwrap() > 4 * min_actions);

        // A quarter of the seats never answer: the clocks finish every game.
        let (ok, out, err) = druids(
            &url,
            &[
                "selfplay",
                "--game",
                game,
                "--players",
                "4",
                "--games",
                "2",
                "--concurrency",
                "2",
                "--silent-fraction",
                "0.25",
                "--decision-ms",
                "30",
                "--autopilot-after",
                "3",
            ],
        );
        assert!(ok, "{err}");
        let j = last_json(&out);
        assert_eq!(j["completed"], 2);
        assert!(j["timeouts"].as_u64().unwrap() > 0);
    }

    // Silent seats without --decision-ms get a 200 ms clock.
    let (ok, out, err) = druids(
        &url,
        &[
            "selfplay",
            "--players",
            "2",
            "--games",
            "1",
            "--silent-fraction",
            "0.5",
            "--autopilot-after",
            "1",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(last_json(&out)["completed"], 1);
}

#[test]
fn a_person_and_a_bot_play_a_game_then_it_replays() {
    let url = server();
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--game",
            "meduris",
            "--players",
            "2",
            "--seed",
            "5",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let id = created["game_id"].as_str().unwrap().to_owned();
    let t0 = created["seats"][0]["token"].as_str().unwrap().to_owned();
    let t1 = created["seats"][1]["token"].as_str().unwrap().to_owned();

    let (ok, out, _) = druids(&url, &["state", "--game-id", &id]);
    assert!(ok);
    assert!(out.contains("seat 0 must decide"), "{out}");
    assert!(
        out.contains("goods: hidden"),
        "a spectator sees no goods: {out}"
    );

    let bot = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args(["--server", &url, "bot", "--game-id", &id, "--token", &t1])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The person types nonsense first, then always the first action.
    let mut person = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args(["--server", &url, "play", "--game-id", &id, "--token", &t0])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = person.stdin.take().unwrap();
        let mut input = String::from("banana\n999\n");
        input.push_str(&"0\n".repeat(2000));
        let _ = stdin.write_all(input.as_bytes());
    }
    let played = person.wait_with_output().unwrap();
    assert!(played.status.success());
    let screen = String::from_utf8_lossy(&played.stdout);
    assert!(
        screen.contains("please type a number"),
        "bad input is asked again"
    );
    assert!(
        screen.contains("[0] place a worker"),
        "numbered actions are shown"
    );
    assert!(screen.contains("game over"), "the game ends");
    let bot = bot.wait_with_output().unwrap();
    assert!(bot.status.success());
    let seen = last_json(&String::from_utf8_lossy(&bot.stdout));

    let (ok, out, _) = druids(&url, &["watch", "--game-id", &id, "--from-seq", "1"]);
    assert!(ok);
    assert!(out.lines().last().unwrap().contains("game over"));
    assert!(out.contains(&format!("winners {}", seen["outcome"]["winners"])));

    let file = std::env::temp_dir().join(format!("druids-cli-{}.replay", std::process::id()));
    let (ok, _, err) = druids(
        &url,
        &["export", "--game-id", &id, "--out", file.to_str().unwrap()],
    );
    assert!(ok, "{err}");
    let (ok, out, err) = druids(&url, &["replay", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.starts_with("ok:"), "{out}");
    std::fs::write(&file, b"not a replay").unwrap();
    let (ok, _, err) = druids(&url, &["replay", file.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("not a replay file"), "{err}");
    let _ = std::fs::remove_file(&file);

    let (ok, out, err) = druids(&url, &["health"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "serving");
    let (ok, _, _) = druids("http://127.0.0.1:1", &["health"]);
    assert!(!ok, "no server, no health");

    let (ok, _, err) = druids(&url, &["state", "--game-id", "nope"]);
    assert!(!ok);
    assert!(err.contains("NOT_FOUND"), "{err}");
}

/// The search bots play over the network: for each game, a greedy bot and an
/// MCTS bot (small budget) play a 2-player game to the end and see the same
/// outcome.
#[test]
fn greedy_and_mcts_bots_finish_both_games_over_the_network() {
    let url = server();
    for game in ["meduris", "dolmen"] {
        let (ok, out, err) = druids(
            &url,
            &[
                "create",
                "--game",
                game,
                "--players",
                "2",
                "--seed",
                "3",
                "--json",
            ],
        );
        assert!(ok, "{err}");
        let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let id = created["game_id"].as_str().unwrap().to_owned();
        let bots: Vec<_> = [["greedy", "100"], ["mcts", "20"]]
            .iter()
            .enumerate()
            .map(|(seat, [strategy, think])| {
                let token = created["seats"][seat]["token"].as_str().unwrap();
                Command::new(env!("CARGO_BIN_EXE_druids"))
                    .args(["--server", &url, "bot", "--game-id", &id, "--token", token])
                    .args(["--strategy", strategy, "--think-ms", think])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let seen: Vec<serde_json::Value> = bots
            .into_iter()
            .map(|bot| {
                let out = bot.wait_with_output().unwrap();
                assert!(
                    out.status.success(),
                    "{game}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                last_json(&String::from_utf8_lossy(&out.stdout))
            })
            .collect();
        for s in &seen {
            assert!(s["actions"].as_u64().unwrap() > 0, "{game}: {s}");
            assert_eq!(s["outcome"]["scores"].as_array().unwrap().len(), 2);
            assert_eq!(s["outcome"], seen[0]["outcome"], "{game}: same end");
        }
        let (ok, out, _) = druids(&url, &["state", "--game-id", &id]);
        assert!(ok);
        assert!(out.contains("(finished,"), "{game}: {out}");
        assert!(out.contains("over: scores"), "{game}: {out}");
    }

    let (ok, _, err) = druids(
        &url,
        &[
            "bot",
            "--game-id",
            "x",
            "--token",
            "t",
            "--strategy",
            "clever",
        ],
    );
    assert!(!ok);
    assert!(err.contains("unknown strategy"), "{err}");
}
