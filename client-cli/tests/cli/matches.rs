//! `druids match`: a program against built-in bots in-process, as the
//! README's bot-author walk-through runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root, where the README's commands run.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `druids` in the repository's root; (success, stdout, stderr).
fn druids_here(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args(args)
        .current_dir(repo_root())
        .env_remove("DRUIDS_SERVER")
        .output()
        .expect("run druids");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The win-rate interval of `program` in the report's table, in percent.
fn win_rate_interval(report: &str, program: &str) -> (f64, f64) {
    let row = report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(program))
        .unwrap_or_else(|| panic!("no row for {program}: {report}"));
    let open = row.find('(').expect("an interval");
    let close = row[open..].find('%').expect("a percent") + open;
    let (low, high) = row[open + 1..close]
        .split_once('–')
        .unwrap_or_else(|| panic!("{row}"));
    (low.trim().parse().unwrap(), high.trim().parse().unwrap())
}

/// The acceptance command, literally: the random example bot against
/// greedy, 200 games. Greedy is far stronger, so your win rate's interval
/// lies below 50 %; one JSON line per game on stdout, seats rotated.
#[test]
fn the_random_example_bot_loses_to_greedy_with_an_interval_below_half() {
    let (ok, out, err) = druids_here(&[
        "match",
        "--exec",
        "python3 bots/exec/random_bot.py",
        "--vs",
        "greedy",
        "--games",
        "200",
    ]);
    assert!(ok, "{err}");
    let games: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(games.len(), 200, "one JSON line per game");
    let mut ids: Vec<&str> = games
        .iter()
        .map(|g| g["game_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 200, "distinct game ids");
    let first_seat = games.iter().filter(|g| g["seats"][0] == "you").count();
    assert_eq!(first_seat, 100, "seats rotated");
    for g in &games {
        assert!(g["error"].is_null(), "{g}");
        assert_eq!(g["outcome"]["scores"].as_array().unwrap().len(), 2, "{g}");
    }
    let (low, high) = win_rate_interval(&err, "you");
    assert!(
        high < 50.0,
        "the interval {low}–{high} % excludes 50 %: {err}"
    );
    let (low, _) = win_rate_interval(&err, "greedy");
    assert!(low > 50.0, "{err}");
}

/// Three programs: a fit of their strengths; --jsonl and --replays write
/// files, the replays check out with `druids replay`; rotations of a
/// dice-driven game share their seed.
#[test]
fn three_programs_get_a_fit_and_replays_that_check_out() {
    let dir = std::env::temp_dir().join(format!("druids-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let jsonl = dir.join("games.jsonl");
    let replays = dir.join("replays");
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, out, err) = druids_here(&[
        "match",
        "--strategy",
        "greedy",
        "--vs",
        "random,random",
        "--game",
        "meduris",
        "--games",
        "6",
        "--seed",
        "9",
        "--jsonl",
        jsonl.to_str().unwrap(),
        "--replays",
        replays.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.is_empty(), "the lines went to the file: {out}");
    assert!(err.contains("strength (95% CI)"), "{err}");
    assert!(err.contains("random#2"), "{err}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    let seed = |i: usize| lines.iter().find(|g| g["game"] == i).unwrap()["seed"].clone();
    assert_eq!(seed(0), seed(2), "one seed per rotation");
    assert_ne!(seed(2), seed(3));
    for g in &lines {
        let file = replays.join(format!("{}.json", g["game_id"].as_str().unwrap()));
        let (ok, out, err) = druids_here(&["replay", file.to_str().unwrap()]);
        assert!(ok, "{err}");
        assert!(out.starts_with("ok:"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A program that dies loses its games to an error: reported, left out of
/// the statistics, and the exit status says so. A key is not a program.
#[test]
fn a_broken_program_is_reported_and_a_key_is_refused() {
    let (ok, out, err) = druids_here(&[
        "match",
        "--exec",
        "sh -c 'exit 3'",
        "--vs",
        "random",
        "--game",
        "dolmen",
        "--games",
        "2",
    ]);
    assert!(!ok, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains("exited before the game ended"), "{out}");
    assert!(err.contains("2 could not be played"), "{err}");
    let (ok, _, err) = druids_here(&[
        "match",
        "--key",
        "k",
        "--strategy",
        "random",
        "--vs",
        "random",
    ]);
    assert!(!ok);
    assert!(err.contains("not its key"), "{err}");
}

/// A match's replay opens on a server, where the web viewer shows it:
/// `druids create --from-replay` starts a game from it with every action
/// applied, and the game ends as the match's did.
#[test]
fn a_match_replay_opens_on_a_server() {
    let dir = std::env::temp_dir().join(format!("druids-match-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (ok, out, err) = druids_here(&[
        "match",
        "--strategy",
        "random",
        "--vs",
        "greedy",
        "--game",
        "meduris",
        "--games",
        "1",
        "--replays",
        dir.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let game: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let file = dir.join(format!("{}.json", game["game_id"].as_str().unwrap()));
    let url = super::server();
    let (ok, out, err) = super::druids(
        &url,
        &["create", "--from-replay", file.to_str().unwrap(), "--json"],
    );
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let id = created["game_id"].as_str().unwrap();
    assert!(created["watch_url"].as_str().unwrap().ends_with(id));
    let (ok, state, err) = super::druids(&url, &["state", "--game-id", id]);
    assert!(ok, "{err}");
    assert!(state.contains("(finished,"), "{state}");
    let scores: Vec<String> = game["outcome"]["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{s} points"))
        .collect();
    for s in &scores {
        assert!(state.contains(s.as_str()), "{s}: {state}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
