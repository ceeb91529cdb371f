//! `druids play` in a real pseudo-terminal, as a person uses it: a letter
//! is always a choice (`q` too), leaving is the word `quit` or Ctrl-D, and a
//! seat its person left is played by the game's turn clock.

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// `druids play` on a pseudo-terminal, and what it has shown so far.
struct Terminal {
    child: Child,
    master: File,
    shown: mpsc::Receiver<Vec<u8>>,
    screen: String,
}

impl Terminal {
    /// Starts `druids --server URL args…` with a pseudo-terminal as its
    /// stdin, stdout and stderr.
    fn start(url: &str, args: &[&str]) -> Terminal {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pty");
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().unwrap())
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_druids"))
            .args(["--server", url])
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("DRUIDS_TOKEN")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .unwrap();
        let master = File::from(master);
        let mut reader = master.try_clone().unwrap();
        let (tx, shown) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends with an error (EIO) once the program has exited.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        });
        Terminal {
            child,
            master,
            shown,
            screen: String::new(),
        }
    }

    /// Reads what the program shows until `done` holds for the screen since
    /// `from`; false if the program ended first.
    fn until(&mut self, from: usize, done: impl Fn(&str) -> bool) -> bool {
        while !done(&self.screen[from..]) {
            // A guard against a hang, not a measure: the program answers in
            // well under a second.
            match self.shown.recv_timeout(Duration::from_secs(120)) {
                Ok(bytes) => self.screen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => return false,
            }
        }
        true
    }

    /// Waits for the next prompt after `from`; its position.
    fn prompt(&mut self, from: usize) -> usize {
        assert!(
            self.until(from, |s| s.trim_end().ends_with("to leave):")),
            "no prompt: {}",
            &self.screen[from..]
        );
        self.screen.len()
    }

    fn type_in(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits for the program to end; its screen.
    fn end(mut self) -> (bool, String) {
        let from = self.screen.len();
        self.until(from, |_| false);
        let status = self.child.wait().unwrap();
        (status.success(), self.screen)
    }
}

/// The `q` trap and the idle seat: in a Die Dolmengötter game whose first
/// decision lists 73 sites, `q` chooses the 17th; `quit` leaves and says what
/// happens to the seat; a second session takes the seat back and leaves with
/// Ctrl-D; the turn clock (then the autopilot) plays the seat to the end.
#[test]
fn a_letter_always_chooses_and_a_left_seat_is_played_by_the_clock() {
    let url = server();
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--decision-ms",
            "10000",
            "--time-bank-ms",
            "0",
            "--autopilot-after",
            "1",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    assert!(err.contains("turn clock: 10 s a decision"), "{err}");
    let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let id = created["game_id"].as_str().unwrap().to_owned();
    let token = |seat: usize| created["seats"][seat]["token"].as_str().unwrap().to_owned();
    let page = created["seats"][0]["viewer_url"].as_str().unwrap();
    assert!(
        page.ends_with(&format!("/games/{id}#token={}", token(0))),
        "{page}"
    );
    let play = ["play", "--game-id", &id, "--token", &token(0), "--compact"];
    let mut person = Terminal::start(&url, &play);
    let at = person.prompt(0);
    assert!(
        person.screen.contains("place a druid:"),
        "{}",
        person.screen
    );
    let q = person.screen[..at]
        .split("[q] ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().take(2).collect::<Vec<_>>().into())
        .map(|w: Vec<&str>| w.join(" "))
        .expect("a choice labelled q");
    assert_eq!(q, "site 16", "{}", person.screen);
    person.type_in(b"q\n");
    // The other seat is a bot; the person's next decision comes back.
    let bot = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args([
            "--server",
            &url,
            "bot",
            "--game-id",
            &id,
            "--token",
            &token(1),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let next = person.prompt(at);
    assert!(
        person.screen[at..next].contains("seat 0 placed a druid on site 16"),
        "q chose the site labelled q: {}",
        &person.screen[at..]
    );
    person.type_in(b"quit\n");
    let (ok, screen) = person.end();
    assert!(ok, "{screen}");
    assert!(
        screen[next..].contains("you left the game. Its turn clock plays your seat"),
        "{}",
        &screen[next..]
    );
    // Back, then away with Ctrl-D (before the clock runs out).
    let mut again = Terminal::start(&url, &play);
    again.prompt(0);
    again.type_in(&[4]);
    let (ok, screen) = again.end();
    assert!(ok, "{screen}");
    assert!(screen.contains("you left the game"), "{screen}");
    // Nobody answers for seat 0 any more: the clock, then the autopilot,
    // finish the game.
    let (ok, out, err) = druids(&url, &["watch", "--game-id", &id]);
    assert!(ok, "{err}");
    assert!(out.contains("game over"), "{out}");
    let bot = bot.wait_with_output().unwrap();
    assert!(bot.status.success());
    let timed_out = events_json(&url, &id)
        .into_iter()
        .filter(|e| {
            e.get("timedOut")
                .is_some_and(|t| t["seat"].as_u64().unwrap_or(0) == 0)
        })
        .count();
    assert!(timed_out >= 1, "the clock decided for the left seat");
}

/// Leaving while another seat decides: `quit`, then Ctrl-D, end `druids
/// play` at once (not at the seat's next prompt, which in a game without a
/// clock may never come), and leave the game as it was.
#[test]
fn quit_and_ctrl_d_leave_while_another_seat_decides() {
    let url = server();
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--game",
            "dolmen",
            "--players",
            "2",
            "--decision-ms",
            "0",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let created: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let id = created["game_id"].as_str().unwrap().to_owned();
    let seat1 = created["seats"][1]["token"].as_str().unwrap().to_owned();
    let state = || {
        let (ok, out, err) = druids(&url, &["state", "--game-id", &id]);
        assert!(ok, "{err}");
        out
    };
    let before = state();
    for leave in [&b"quit\n"[..], &[4]] {
        let mut person = Terminal::start(&url, &["play", "--game-id", &id, "--token", &seat1]);
        assert!(
            person.until(0, |s| s.contains("seat 0 must decide")),
            "{}",
            person.screen
        );
        let at = person.screen.len();
        person.type_in(leave);
        // Fails (after the guard) rather than hangs if the input is ignored.
        assert!(
            person.until(at, |s| s.contains("you left the game")),
            "{:?} did not leave: {}",
            String::from_utf8_lossy(leave),
            person.screen
        );
        let (ok, screen) = person.end();
        assert!(ok, "{screen}");
        assert!(screen.contains("you left the game"), "{screen}");
    }
    assert_eq!(state(), before, "leaving changed nothing");
}
