//! The arena's challenges and server-run tournaments: `druids bot --events`
//! plays the games of the matches its bot did not seek.

use std::process::Child;
use std::time::{Duration, Instant};

use super::*;

/// Registers a bot; its (id, API key).
fn register(url: &str, name: &str) -> (String, String) {
    let (ok, out, err) = druids(url, &["register", "--name", name, "--json"]);
    assert!(ok, "{err}");
    let j = last_json(&out);
    (
        j["bot_id"].as_str().unwrap().to_owned(),
        j["api_key"].as_str().unwrap().to_owned(),
    )
}

/// A `druids bot --events` process; its stdout goes to a file. Killed when
/// dropped.
struct EventsBot {
    child: Child,
    out: std::path::PathBuf,
}

impl EventsBot {
    fn start(url: &str, key: &str, name: &str, extra: &[&str]) -> EventsBot {
        let out = std::env::temp_dir().join(format!("druids-events-{}-{name}", std::process::id()));
        let child = Command::new(env!("CARGO_BIN_EXE_druids"))
            .args([
                "--server",
                url,
                "bot",
                "--key",
                key,
                "--events",
                "--strategy",
                "greedy",
            ])
            .args(extra)
            .env_remove("DRUIDS_SERVER")
            .env_remove("DRUIDS_BOT_KEY")
            .env_remove("DRUIDS_OPERATOR_KEY")
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("run druids bot --events");
        EventsBot { child, out }
    }

    /// The JSON lines printed so far.
    fn lines(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Waits until `n` match lines were printed; all the lines.
    fn wait_for_matches(&self, n: usize) -> Vec<serde_json::Value> {
        let start = Instant::now();
        loop {
            let lines = self.lines();
            let count = |key: &str| lines.iter().filter(|l| l.get(key).is_some()).count();
            // A match's result and the bot's own line for its game arrive by
            // different paths, in either order: wait for both.
            if count("placements") >= n && count("game_id") >= n {
                return lines;
            }
            assert!(
                start.elapsed() < Duration::from_secs(90),
                "{n} match(es) not played: {lines:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for EventsBot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.out);
    }
}

/// A challenge accepted by `--accept-challenges` and a round-robin
/// tournament are played by both bots' `--events`, each game once.
#[test]
fn events_bots_play_challenges_and_tournaments() {
    let url = server();
    let (alpha_id, alpha_key) = register(&url, "alpha");
    let (beta_id, beta_key) = register(&url, "beta");
    let alpha = EventsBot::start(&url, &alpha_key, "alpha", &[]);
    let beta = EventsBot::start(&url, &beta_key, "beta", &["--accept-challenges"]);

    let (ok, out, err) = druids(
        &url,
        &[
            "challenge",
            "--key",
            &alpha_key,
            "--game",
            "dolmen",
            "--opponent",
            &beta_id,
        ],
    );
    assert!(ok, "{err}");
    assert!(out.starts_with("challenge "), "{out}");
    for bot in [&alpha, &beta] {
        let lines = bot.wait_for_matches(1);
        let games: Vec<_> = lines
            .iter()
            .filter(|l| l.get("game_id").is_some())
            .collect();
        assert_eq!(games.len(), 1, "{lines:?}");
        assert!(games[0]["outcome"].is_object(), "{lines:?}");
    }

    let (ok, out, err) = druids(
        &url,
        &[
            "arena-tournament",
            "create",
            "--name",
            "cup",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--entrant",
            &alpha_id,
            "--entrant",
            &beta_id,
            "--round-robin",
            "--operator-key",
            crate::OPERATOR,
        ],
    );
    assert!(ok, "{err}");
    let id = out
        .trim()
        .strip_prefix("tournament ")
        .expect("the id")
        .to_owned();
    for bot in [&alpha, &beta] {
        let lines = bot.wait_for_matches(2);
        let games = lines.iter().filter(|l| l.get("game_id").is_some()).count();
        assert_eq!(games, 2, "each game once: {lines:?}");
    }
    let start = Instant::now();
    let tournament = loop {
        let (ok, out, err) = druids(&url, &["arena-tournament", "show", &id, "--json"]);
        assert!(ok, "{err}");
        let t = last_json(&out)["tournament"].clone();
        if t["status"] == "TOURNAMENT_STATUS_FINISHED" {
            break t;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{t}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(tournament["results"].as_array().unwrap().len(), 1);
    assert_eq!(tournament["standings"].as_array().unwrap().len(), 2);
    let (ok, out, err) = druids(&url, &["arena-tournament", "show", &id]);
    assert!(ok, "{err}");
    assert!(out.contains("status finished, round 1/1"), "{out}");
    assert!(out.contains("alpha") && out.contains("beta"), "{out}");
}
