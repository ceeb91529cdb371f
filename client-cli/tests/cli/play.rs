//! Playing: a person through piped stdin (also choosing how to pay), the
//! built-in bots over the network, watching (also into a closed pipe),
//! export and replay.

use std::io::Write;
use std::process::{Command, Stdio};

use super::*;

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
    assert!(out.contains("seat 0 (purple) must decide"), "{out}");
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
        input.push_str(&"a\n".repeat(2000));
        let _ = stdin.write_all(input.as_bytes());
    }
    let played = person.wait_with_output().unwrap();
    assert!(played.status.success());
    let screen = String::from_utf8_lossy(&played.stdout);
    assert!(
        screen.contains("please type one of the letters a to"),
        "bad input is asked again"
    );
    assert!(
        screen.contains("[a] place a worker"),
        "lettered actions are shown"
    );
    assert!(screen.contains("game over"), "the game ends");
    assert!(
        screen.contains("you won") || screen.contains("you came 2nd of 2"),
        "the person hears how it went: {screen}"
    );
    let bot = bot.wait_with_output().unwrap();
    assert!(bot.status.success());
    let seen = last_json(&String::from_utf8_lossy(&bot.stdout));

    assert_eq!(seen["game_id"], id.as_str());
    assert_eq!(seen["seat"], 1);
    let (ok, out, _) = druids(&url, &["watch", "--game-id", &id, "--from-seq", "1"]);
    assert!(ok);
    let winners: Vec<u64> = seen["outcome"]["winners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_u64().unwrap())
        .collect();
    let end = out
        .lines()
        .find(|l| l.starts_with("game over"))
        .expect("the end is announced");
    assert!(
        winners.iter().all(|w| end.contains(&format!("seat {w}"))),
        "{end} names the winners {winners:?}"
    );
    // One line per event: its seq, then what happened.
    for (i, line) in out.lines().take_while(|l| l.starts_with('#')).enumerate() {
        let prefix = format!("#{} v", i + 1);
        assert!(line.starts_with(&prefix), "{line}");
        assert!(line.split_whitespace().count() > 2, "{line} says nothing");
    }

    let file = std::env::temp_dir().join(format!("druids-cli-{}.replay", std::process::id()));
    let (ok, _, err) = druids(
        &url,
        &["export", "--game-id", &id, "--out", file.to_str().unwrap()],
    );
    assert!(ok, "{err}");
    let (ok, _, err) = druids(&url, &["replay", file.to_str().unwrap()]);
    assert!(!ok, "--server is refused by replay");
    assert!(
        err.contains("--server is not used by `druids replay`"),
        "{err}"
    );
    let (ok, out, err) = druids_env(&["replay", file.to_str().unwrap()], &[]);
    assert!(ok, "{err}");
    assert!(out.starts_with("ok:"), "{out}");
    assert!(!out.contains("Some("), "{out}");
    assert!(out.contains("scores ") && out.contains("winner"), "{out}");
    std::fs::write(&file, b"not a replay").unwrap();
    let (ok, _, err) = druids_env(&["replay", file.to_str().unwrap()], &[]);
    assert!(!ok);
    assert!(err.contains("not a replay file"), "{err}");
    let _ = std::fs::remove_file(&file);
    let (ok, _, err) = druids_env(&["replay", file.to_str().unwrap()], &[]);
    assert!(!ok);
    assert!(
        err.contains(file.to_str().unwrap()),
        "a missing file is named: {err}"
    );

    let (ok, out, err) = druids(&url, &["health"]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "serving");
    let (ok, _, err) = druids("http://127.0.0.1:1", &["health"]);
    assert!(!ok, "no server, no health");
    assert!(
        err.contains("cannot reach the druids server at http://127.0.0.1:1: connection refused"),
        "{err}"
    );

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
        let seen: Vec<(serde_json::Value, u64)> = bots
            .into_iter()
            .map(|bot| {
                let out = bot.wait_with_output().unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{game}: {err}");
                // "seat N made K decisions" on stderr; stdout is the JSON line.
                let decisions = err
                    .split_whitespace()
                    .skip_while(|w| *w != "made")
                    .nth(1)
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                (last_json(&String::from_utf8_lossy(&out.stdout)), decisions)
            })
            .collect();
        for (s, decisions) in &seen {
            assert!(decisions > &0, "{game}: {s}");
            assert_eq!(s["outcome"]["scores"].as_array().unwrap().len(), 2);
            assert_eq!(s["outcome"], seen[0].0["outcome"], "{game}: same end");
        }
        let (ok, out, _) = druids(&url, &["state", "--game-id", &id]);
        assert!(ok);
        assert!(out.contains("(finished,"), "{game}: {out}");
        assert!(out.contains("game over: "), "{game}: {out}");
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
    assert!(err.contains("invalid value 'clever'"), "{err}");
    assert!(
        err.contains("possible values: random, greedy, mcts"),
        "{err}"
    );
}

/// `druids watch … | head`: the reader goes away, the watcher ends quietly.
#[test]
fn a_closed_pipe_ends_watch_quietly() {
    let url = server();
    let (id, tokens) = create(&url, "meduris", "2", "4");
    play_out(&url, &id, &tokens);
    let mut watch = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args([
            "--server",
            &url,
            "watch",
            "--game-id",
            &id,
            "--from-seq",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::BufRead;
        let mut first = String::new();
        let mut stdout = std::io::BufReader::new(watch.stdout.take().unwrap());
        stdout.read_line(&mut first).unwrap();
        assert!(first.starts_with("#1 "), "{first}");
    } // The reader closes the pipe here, hundreds of events early.
    let out = watch.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit status {:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

/// A person building a hut chooses how to pay: every distinct payment of
/// that hut is offered, and one that is not the default is applied.
#[test]
fn a_person_chooses_how_to_pay() {
    use std::io::Read;
    let url = server();
    let (id, tokens) = create(&url, "meduris", "2", "5");
    let mut bot = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args([
            "--server",
            &url,
            "bot",
            "--game-id",
            &id,
            "--token",
            &tokens[1],
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut person = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args([
            "--server",
            &url,
            "play",
            "--game-id",
            &id,
            "--token",
            &tokens[0],
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = person.stdin.take().unwrap();
    let mut stdout = person.stdout.take().unwrap();
    let mut screen = String::new();
    let mut asked_from = 0;
    let mut paid = false;
    let mut buf = [0u8; 4096];
    // Answer each prompt from what was shown since the previous one: the
    // first hut when it is the turn, then the last payment offered.
    while !paid {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "the game ended before a hut was built: {screen}");
        screen.push_str(&String::from_utf8_lossy(&buf[..n]));
        if !screen.ends_with("to leave): ") {
            continue;
        }
        let shown = &screen[asked_from..];
        asked_from = screen.len();
        let choices: Vec<&str> = shown
            .lines()
            .filter(|l| l.trim_start().starts_with('['))
            .collect();
        let label = |line: &str| line.trim_start()[1..].split(']').next().unwrap().to_owned();
        let answer = if shown.contains("how do you pay?") {
            let payments: Vec<&str> = shown
                .split("how do you pay?")
                .nth(1)
                .unwrap()
                .lines()
                .filter(|l| l.trim_start().starts_with('['))
                .collect();
            assert!(payments.len() > 1, "{shown}");
            let last = payments.last().unwrap();
            assert!(!last.contains("(the default)"), "{shown}");
            paid = true;
            label(last)
        } else if let Some(hut) = choices.iter().find(|l| is_hut_on_field_0(l)) {
            label(hut)
        } else {
            "a".to_owned()
        };
        stdin.write_all(format!("{answer}\n").as_bytes()).unwrap();
    }
    // Read on until the board shows the hut, then quit.
    while !screen[asked_from..].contains("hut of seat 0") {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "{screen}");
        screen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let _ = stdin.write_all(b"q\n");
    drop(stdin);
    drop(stdout);
    let _ = person.wait();
    // The game waits for the person who quit: the bot is stopped.
    let _ = bot.kill();
    let _ = bot.wait();
    // Not the default (the field's two goods): three goods replaced one.
    let hut = events_json(&url, &id)
        .into_iter()
        .find_map(|e| e["meduris"].get("hutBuilt").cloned())
        .expect("a hut was built");
    assert_eq!(hut["seat"], 0, "{hut}");
    let paid: u64 = ["wood", "wool", "copper", "stone"]
        .iter()
        .map(|g| hut["paid"][g].as_u64().unwrap())
        .sum();
    assert!(paid >= 4, "{hut}");
    let (ok, out, _) = druids(&url, &["state", "--game-id", &id]);
    assert!(ok);
    assert!(
        out.lines()
            .any(|l| l.contains("field  0") && l.contains("hut of seat 0")),
        "{out}"
    );
}

/// Whether a listed choice builds a hut on field 0 (and not field 0x).
fn is_hut_on_field_0(line: &str) -> bool {
    line.contains("hut")
        && line
            .match_indices("field 0")
            .any(|(i, m)| !line[i + m.len()..].starts_with(|c: char| c.is_ascii_digit()))
}
