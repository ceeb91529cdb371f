//! The two proofs of `druids conformance` (docs/testing-clients.md): the
//! project's own clients (`druids bot`, the exec bridge, the Python kit,
//! the TypeScript kit) FAIL no scenario, and each deliberately broken
//! client (`tests/src/bin/conformance-client.rs --break DUTY`) FAILS the
//! scenarios grading its duty and no other. Plus `--known-failing` in
//! Connect's manner, the JUnit and JSON output, a client's last words, and
//! the runs refused before anything runs (a typo in `--known-failing`, a
//! server without `--test-faults`).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use druids_tests::process::{ServerProcess, cargo_binary, server_binary};

use crate::cross_language::{Finished, repo_root, run_with_timeout, venv_bin};
use crate::typescript::built_kit;

/// A deadlock guard for one whole conformance run, not a budget.
const RUN_GUARD: Duration = Duration::from_secs(900);

fn druids() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| cargo_binary("druids-cli", "druids").unwrap_or_else(|e| panic!("{e}")))
}

fn broken_client() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        cargo_binary("druids-tests", "conformance-client").unwrap_or_else(|e| panic!("{e}"))
    })
}

/// What one run said: its exit status, output, verdicts by scenario, and
/// its `--json` document.
struct Run {
    done: Finished,
    verdicts: Vec<(String, String, Vec<String>)>,
    doc: serde_json::Value,
}

impl Run {
    fn with(&self, verdict: &str) -> Vec<&str> {
        self.verdicts
            .iter()
            .filter(|(_, v, _)| v == verdict)
            .map(|(n, _, _)| n.as_str())
            .collect()
    }
}

/// `druids conformance FLAGS -- CLIENT` (or `FLAGS` with `--exec`).
fn conformance(flags: &[&str], client: &[&str]) -> Run {
    let dir = std::env::temp_dir().join(format!(
        "druids-conformance-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let json = dir.join("run.json");
    let mut cmd = Command::new(druids());
    cmd.arg("conformance")
        .args(flags)
        .arg("--json")
        .arg(&json)
        .arg("--server-bin")
        .arg(server_binary())
        .current_dir(repo_root());
    if !client.is_empty() {
        cmd.arg("--").args(client);
    }
    let done = run_with_timeout(cmd, RUN_GUARD).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no JSON from the run ({e}); it said:\n{}{}",
            done.stdout, done.stderr
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let verdicts = doc["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| {
            let evidence = s["evidence"]
                .as_array()
                .map(|e| {
                    e.iter()
                        .filter_map(|l| l.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            (
                s["name"].as_str().unwrap_or_default().to_owned(),
                s["verdict"].as_str().unwrap_or_default().to_owned(),
                evidence,
            )
        })
        .collect();
    Run {
        done,
        verdicts,
        doc,
    }
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Asserts that `run` graded every scenario OK and exited 0.
fn passes(who: &str, run: &Run) {
    let not_ok: Vec<_> = run.verdicts.iter().filter(|(_, v, _)| v != "OK").collect();
    assert!(
        not_ok.is_empty() && run.done.status.success(),
        "{who}: {not_ok:?}:\n{}",
        run.done.stdout
    );
    assert!(
        run.verdicts.len() >= 20,
        "{who}: {} scenarios",
        run.verdicts.len()
    );
    eprintln!("conformance: {who}: {} scenarios OK", run.verdicts.len());
}

/// The `druids conformance` commands of docs/testing-clients.md's section
/// 6, as words (double quotes grouping), `druids` as this build's binary.
fn documented_runs() -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(repo_root().join("docs/testing-clients.md")).unwrap();
    let section = doc
        .split("## 6. Grading a client")
        .nth(1)
        .expect("section 6");
    let block = section.split("```sh\n").nth(1).expect("a sh block");
    let block = block.split("```").next().unwrap();
    let bin = druids().to_string_lossy().into_owned();
    block
        .lines()
        .filter(|l| l.starts_with("druids conformance"))
        .map(|l| {
            let mut words = Vec::new();
            for (i, part) in l.split('"').enumerate() {
                if i % 2 == 1 {
                    words.push(part.to_owned());
                } else {
                    words.extend(part.split_whitespace().map(str::to_owned));
                }
            }
            words
                .into_iter()
                .skip(2)
                .map(|w| if w == "druids" { bin.clone() } else { w })
                .collect()
        })
        .collect()
}

#[test]
fn druids_bot_and_the_exec_bridge_pass_every_scenario() {
    let runs = documented_runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for words in runs {
        let (flags, client) = match words.iter().position(|w| w == "--") {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (&words[..], &[][..]),
        };
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let client: Vec<&str> = client.iter().map(String::as_str).collect();
        passes(&words.join(" "), &conformance(&flags, &client));
    }
}

#[test]
fn the_python_and_typescript_kits_pass_every_scenario() {
    let venv = venv_bin().unwrap_or_else(|e| panic!("Python kit: {e}"));
    let py = venv.join("druids-bot").to_string_lossy().into_owned();
    passes(
        "the Python kit",
        &conformance(&[], &[&py, "--game-id", "{game_id}"]),
    );
    let kit = built_kit().unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let cli = kit.join("dist/src/cli.js").to_string_lossy().into_owned();
    passes(
        "the TypeScript kit",
        &conformance(&[], &["node", &cli, "--game-id", "{game_id}"]),
    );
}

/// Each broken duty and the scenarios (name prefixes) that must FAIL it.
const BROKEN: &[(&str, &[&str])] = &[
    (
        "ignores-retry-info",
        &["submit/refused/", "exhausted/", "restart/"],
    ),
    ("restarts-from-start", &["stream/", "goaway/", "restart/"]),
    ("new-key-on-lost-answer", &["submit/lost/"]),
    ("no-keys", &["submit/lost/"]),
    ("stale-is-fatal", &["clock/"]),
    ("ignores-timed-out", &["clock/"]),
    ("never-reconnects", &["stream/", "goaway/", "restart/"]),
    ("sends-illegal", &["illegal/"]),
    ("sends-out-of-turn", &["illegal/"]),
    ("skips-on-resume", &["stream/", "goaway/", "restart/"]),
    // Every scenario grades play: a client that resigns shows none of it.
    ("resigns", &[""]),
];

/// Scenarios where a broken duty may go unseen, as docs/testing-clients.md
/// says: after a reset or an unprocessed GOAWAY the ledger knows what was
/// sent, not what arrived, so a skip within the events lost in flight (how
/// many were, a busy machine decides) looks like a resume at the right seq.
const MAY_GO_UNSEEN: &[(&str, &[&str])] =
    &[("skips-on-resume", &["stream/reset/", "goaway/unprocessed/"])];

#[test]
fn each_broken_client_fails_its_scenarios_and_passes_the_others() {
    let client = broken_client().to_string_lossy().into_owned();
    // One game kind and size keeps this to 20 scenarios a client.
    let flags = ["--game", "meduris", "--players", "2"];
    let correct = conformance(&flags, &[&client]);
    passes("the conformance client unbroken", &correct);
    for (duty, theirs) in BROKEN {
        let run = conformance(&flags, &[&client, "--break", duty]);
        assert!(!run.done.status.success(), "{duty}: exit status 0");
        let unseen = MAY_GO_UNSEEN
            .iter()
            .filter(|(d, _)| d == duty)
            .flat_map(|(_, s)| s.iter());
        let unseen: Vec<&str> = unseen.copied().collect();
        for (name, verdict, evidence) in &run.verdicts {
            let expected = theirs.iter().any(|p| name.starts_with(p));
            if expected && verdict == "OK" && unseen.iter().any(|p| name.starts_with(p)) {
                continue;
            }
            assert_eq!(
                verdict == "FAILED",
                expected,
                "{duty}: {name} is {verdict} {evidence:?}"
            );
            if expected {
                assert!(
                    !evidence.is_empty(),
                    "{duty}: {name} FAILED without evidence"
                );
                // The rerun command names the scenario.
                assert!(
                    run.done.stdout.contains(&format!("--only {name} -- ")),
                    "{duty}: no rerun command for {name}:\n{}",
                    run.done.stdout
                );
            }
        }
        eprintln!(
            "conformance: --break {duty}: FAILED {:?}; first evidence: {:?}",
            run.with("FAILED"),
            run.verdicts
                .iter()
                .find(|(_, v, _)| v == "FAILED")
                .map(|(_, _, e)| e.first())
        );
    }
}

/// A client still running long after its game ended is killed and FAILED
/// (the run does not wait on it for ever).
#[test]
fn a_client_that_lingers_after_the_game_is_killed_and_fails() {
    let client = broken_client().to_string_lossy().into_owned();
    let only = ["--only", "game/meduris/2"];
    let run = conformance(&only, &[client.as_str(), "--break", "lingers"]);
    assert_eq!(
        run.with("FAILED"),
        ["game/meduris/2"],
        "{}",
        run.done.stdout
    );
    let evidence = &run.verdicts[0].2;
    assert!(
        evidence
            .iter()
            .any(|e| e.starts_with("still running 90 s after the game ended")),
        "{evidence:?}"
    );
}

#[test]
fn known_failing_scenarios_must_fail_and_junit_says_which() {
    let client = broken_client().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("druids-known-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("known.txt");
    let junit = dir.join("junit.xml");
    let only = ["--only", "stream/clean/after-seq-1"];
    let never = [client.as_str(), "--break", "never-reconnects"];
    // Listed and failing: the run passes.
    std::fs::write(&list, "# never reconnects\nstream/clean\n").unwrap();
    let mut flags = vec!["--known-failing", list.to_str().unwrap()];
    flags.extend(only);
    flags.extend(["--junit", junit.to_str().unwrap()]);
    let run = conformance(&flags, &never);
    assert_eq!(run.with("FAILED"), ["stream/clean/after-seq-1"]);
    assert!(run.done.status.success(), "{}", run.done.stdout);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("tests=\"1\" failures=\"1\""), "{xml}");
    assert!(
        xml.contains("<failure message=\"exited (status 0)"),
        "{xml}"
    );
    // Listed and passing: the run fails, so that the list stays true.
    let run = conformance(&flags, &[client.as_str()]);
    assert_eq!(run.with("OK"), ["stream/clean/after-seq-1"]);
    assert!(!run.done.status.success());
    assert!(
        run.done.stdout.contains("take it off the list"),
        "{}",
        run.done.stdout
    );
    // The summary, the last line, says why too.
    assert!(
        run.done
            .stdout
            .contains("(1 known failing, 1 of them passed: take them off the list)"),
        "{}",
        run.done.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `druids conformance ARGS` as is (no `--json`, no `--server-bin` added),
/// with no `DRUIDS_SERVER` from the environment.
fn conformance_as_is(args: &[&str]) -> Finished {
    let mut cmd = Command::new(druids());
    cmd.arg("conformance")
        .args(args)
        .env_remove("DRUIDS_SERVER")
        .current_dir(repo_root());
    run_with_timeout(cmd, RUN_GUARD).unwrap_or_else(|e| panic!("{e}"))
}

/// A line of `--known-failing` that selects no scenario is a typo that
/// would list nothing: the run is refused as a usage error (exit status 2)
/// before anything runs, here before it starts its server (whose binary
/// does not exist).
#[test]
fn a_known_failing_entry_that_names_no_scenario_is_refused_before_anything_runs() {
    let dir = std::env::temp_dir().join(format!("druids-known-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("known.txt");
    std::fs::write(
        &list,
        "# comments and blank lines stay allowed\n\nstream/clean\nnosuch/scenario\n",
    )
    .unwrap();
    let no_server = dir.join("no-such-druids-server");
    let done = conformance_as_is(&[
        "--known-failing",
        list.to_str().unwrap(),
        "--server-bin",
        no_server.to_str().unwrap(),
        "--",
        "true",
    ]);
    assert_eq!(
        done.status.code(),
        Some(2),
        "{}{}",
        done.stdout,
        done.stderr
    );
    assert!(
        done.stderr
            .contains("\"nosuch/scenario\" (line 4) names no scenario")
            && done.stderr.contains("`druids conformance --list`"),
        "{}",
        done.stderr
    );
    assert!(
        !done.stderr.contains("no-such-druids-server") && done.stdout.is_empty(),
        "something ran: {}{}",
        done.stdout,
        done.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--server` naming a server without `--test-faults`: the run stops at
/// once with one message saying how to start it (exit status 2), rather
/// than grading the client FAILED in every scenario.
#[test]
fn a_server_without_test_faults_stops_the_run_with_one_message() {
    let log = std::env::temp_dir().join(format!(
        "druids-conformance-no-faults-{}.log",
        std::process::id()
    ));
    let server = ServerProcess::start(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
        ],
        &[],
        &log,
    );
    let url = server.url();
    let done = conformance_as_is(&["--server", &url, "--", "true"]);
    assert_eq!(
        done.status.code(),
        Some(2),
        "{}{}",
        done.stdout,
        done.stderr
    );
    assert!(
        done.stderr
            .contains(&format!("the server at {url} does not serve test faults"))
            && done
                .stderr
                .contains("start it with --test-faults (never where people play)"),
        "{}",
        done.stderr
    );
    // One message, no verdicts.
    assert_eq!(done.stderr.lines().count(), 1, "{}", done.stderr);
    assert!(done.stdout.is_empty(), "{}", done.stdout);
    let _ = std::fs::remove_file(&log);
}

/// A client that dies quoting a traceback: its FAILED evidence shows the
/// last lines of its stderr, the exception among them, not a lone last
/// line. And the JSON writes the 64-bit seeds as decimal strings.
#[test]
fn a_failed_client_is_quoted_by_its_last_lines_and_seeds_are_strings() {
    let traceback = "printf '%s\\n' 'Traceback (most recent call last):' \
        '  File \"bot.py\", line 7, in <module>' '    main()' \
        '  File \"bot.py\", line 5, in main' '    raise ValueError(\"boom\")' \
        'ValueError: boom' '>' >&2; exit 1";
    let run = conformance(&["--only", "game/meduris/2"], &["sh", "-c", traceback]);
    assert_eq!(
        run.with("FAILED"),
        ["game/meduris/2"],
        "{}",
        run.done.stdout
    );
    assert_eq!(run.done.status.code(), Some(1));
    let evidence = run.verdicts[0].2.join("\n");
    assert!(
        evidence.contains(
            "its last words: \"    main()\" / \"  File \\\"bot.py\\\", line 5, in main\" / "
        ) && evidence.ends_with("/ \"ValueError: boom\" / \">\""),
        "{evidence}"
    );
    // Seeds as proto3 JSON writes a uint64: a string, every digit kept.
    assert_eq!(run.doc["seed"], "1", "{}", run.doc);
    let seed = &run.doc["scenarios"][0]["seed"];
    assert!(
        seed.as_str().and_then(|s| s.parse::<u64>().ok()).is_some(),
        "{seed}"
    );
}

/// `druids conformance … | head`: a closed stdout ends `--list` quietly
/// (exit status 0, no panic), and a run still writes its files and exits
/// with its verdicts' status.
#[test]
fn a_closed_stdout_ends_the_output_quietly() {
    let closed = || {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        writer
    };
    let mut list = Command::new(druids());
    list.args(["conformance", "--list"]).stdout(closed());
    let out = list.output().expect("druids runs");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = std::env::temp_dir().join(format!("druids-closed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("run.json");
    let mut run = Command::new(druids());
    run.arg("conformance")
        .args(["--only", "game/meduris/2", "--json"])
        .arg(&json)
        .arg("--server-bin")
        .arg(server_binary())
        .args(["--", "sh", "-c", "exit 3"])
        .env_remove("DRUIDS_SERVER")
        .stdout(closed());
    let out = run.output().expect("druids runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON file")).unwrap();
    assert_eq!(doc["scenarios"][0]["verdict"], "FAILED", "{doc}");
    let _ = std::fs::remove_dir_all(&dir);
}
