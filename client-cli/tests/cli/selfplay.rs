//! Self-play through the server.

use super::*;

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

/// `--jsonl FILE`: one JSON line per game, with its game id (on the server,
/// a real one), for self-play in-process and through a server, and for the
/// in-process tournament.
#[test]
fn selfplay_and_tournament_write_a_line_per_game() {
    let url = server();
    let dir = std::env::temp_dir().join(format!("druids-jsonl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lines = |file: &std::path::Path| -> Vec<serde_json::Value> {
        std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let file = dir.join("server.jsonl");
    let (ok, out, err) = druids(
        &url,
        &[
            "selfplay",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--games",
            "3",
            "--jsonl",
            file.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(last_json(&out)["completed"], 3);
    let games = lines(&file);
    assert_eq!(games.len(), 3);
    for g in &games {
        let id = g["game_id"].as_str().unwrap();
        let (ok, state, _) = druids(&url, &["state", "--game-id", id]);
        assert!(ok && state.contains("(finished,"), "{id}: {state}");
        assert!(g["outcome"]["scores"].is_array(), "{g}");
    }
    let file = dir.join("local.jsonl");
    let (ok, _, err) = druids_env(
        &[
            "selfplay",
            "--game",
            "meduris",
            "--players",
            "3",
            "--games",
            "4",
            "--jsonl",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    let games = lines(&file);
    assert_eq!(games.len(), 4);
    assert!(
        games
            .iter()
            .all(|g| g["error"].is_null() && g["actions"].as_u64() > Some(0))
    );
    let file = dir.join("tournament.jsonl");
    let (ok, _, err) = druids_env(
        &[
            "tournament",
            "--game",
            "dolmen",
            "--bots",
            "greedy,random",
            "--games",
            "4",
            "--jsonl",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    let games = lines(&file);
    assert_eq!(games.len(), 4);
    assert_eq!(
        games[1]["seats"],
        serde_json::json!(["random", "greedy"]),
        "seats rotate"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
