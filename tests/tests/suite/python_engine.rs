//! The engine from Python (`python/`, the `druids-engine` package), end to
//! end: the package is built from this checkout as the README says (`pip
//! install ./python`, maturin from PyPI) into a fresh venv under
//! `target/kits/engine-venv`, with the bot kit beside it, and then
//!
//! * its own tests run (`python/tests`, pytest): the core game (determinism,
//!   copies and serialisation, explicit chance, the hidden-information check,
//!   the vector env against the core), PettingZoo's `api_test` and
//!   `seed_test`, OpenSpiel's `random_sim_test` and its Python MCTS and ISMCTS
//!   bots playing whole games;
//! * the server check (`python/tests/server_check.py`) against a real server:
//!   the same seed gives the same game in Python as on the server (compared
//!   with `ExportReplay`), and on every decision the server's `StateView`s and
//!   legal lists become exactly the engine's observations and mask, and the
//!   chosen index the `legal_action_id` applied;
//! * the examples pass `mypy --strict`, and the training example, shortened,
//!   trains a policy that beats random with a 95 % interval and plays it on
//!   the server's ladder through the kit.
//!
//! The extension is built with the dev profile (the engine and the glue are
//! optimised even there, see the workspace's Cargo.toml), reusing this
//! build's artifacts; pip's cache is `target/kits/pip-cache`.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use druids_tests::TestServer;

use crate::arena_kits::{assert_ok, run};
use crate::cross_language::{Finished, fresh_venv, kits_dir, repo_root, run_ok, run_with_timeout};

/// Making the venv, installing from PyPI (or the cache) and building the
/// extension on a busy 2-core machine.
const SETUP_TIMEOUT: Duration = Duration::from_secs(900);
/// Each check.
const CHECK_TIMEOUT: Duration = Duration::from_secs(600);

/// The `bin/` folder of a fresh venv with the package and the kit installed
/// (made once per run of the test binary).
fn engine_venv() -> Result<PathBuf, String> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(|| {
        let started = Instant::now();
        let venv = fresh_venv("engine-venv")?;
        let bin = venv.join("bin");
        // As after `activate`: the build backend finds maturin on the PATH.
        let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )))
        .map_err(|e| e.to_string())?;
        let pip = |args: &[&str]| {
            let mut cmd = Command::new(bin.join("pip"));
            cmd.current_dir(repo_root())
                .args(["install", "--disable-pip-version-check", "--no-input", "-q"])
                .args(args)
                .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
                .env("PIP_DEFAULT_TIMEOUT", "20")
                .env("PIP_RETRIES", "2")
                .env("PATH", &path)
                .env("VIRTUAL_ENV", &venv)
                // The dev profile: this build's artifacts are reused.
                .env("MATURIN_PEP517_ARGS", "--profile dev");
            let _installing = druids_tests::install::lock();
            run_ok(cmd, SETUP_TIMEOUT)
        };
        pip(&["-r", "python/requirements-test.txt"])
            .map_err(|e| format!("{e}\n(is PyPI, https://pypi.org, reachable?)"))?;
        let built = Instant::now();
        // maturin comes from the requirements above, so no isolated build env.
        pip(&["--no-build-isolation", "./python"])?;
        eprintln!(
            "python_engine: `pip install ./python` built the extension in {:.1?}",
            built.elapsed()
        );
        pip(&["./bots/python"])?;
        eprintln!(
            "python_engine: venv, packages and build in {:.1?}",
            started.elapsed()
        );
        Ok(bin)
    })
    .clone()
}

fn bin() -> PathBuf {
    engine_venv().unwrap_or_else(|e| panic!("the druids-engine package: {e}"))
}

/// `python args…`, run from `target/kits` (so that `import druids_engine` is
/// the installed package, not the source folder).
fn python(args: &[&str]) -> Command {
    let mut cmd = Command::new(bin().join("python"));
    cmd.current_dir(kits_dir()).args(args);
    cmd
}

fn path(rel: &str) -> String {
    repo_root().join(rel).display().to_string()
}

#[test]
fn the_python_package_passes_its_tests() {
    let done = run_with_timeout(
        python(&[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            &path("python/tests"),
        ]),
        CHECK_TIMEOUT,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_ok("pytest python/tests", &done);
    let summary = done.stdout.lines().last().unwrap_or_default().to_string();
    assert!(
        summary.contains(" passed") && !summary.contains("failed") && !summary.contains("skipped"),
        "{summary}"
    );
    eprintln!("python_engine: pytest: {summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_plays_the_servers_games_exactly() {
    let _ = tokio::task::spawn_blocking(engine_venv).await;
    let server = TestServer::start().await;
    let url = server.url();
    let done = run(
        python(&[&path("python/tests/server_check.py"), "--server", &url]),
        CHECK_TIMEOUT,
    )
    .await;
    assert_ok("server_check.py", &done);
    assert!(
        done.stdout.contains("5 passed, 0 failed"),
        "{}",
        done.stdout
    );
    server.stop().await;
}

/// The README's "Train a bot in Python" example, run as written.
#[test]
fn the_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let section = readme
        .split("## Train a bot in Python")
        .nth(1)
        .expect("the README has the section");
    let code = section
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a python block in the section");
    let done =
        run_with_timeout(python(&["-c", code]), CHECK_TIMEOUT).unwrap_or_else(|e| panic!("{e}"));
    assert_ok("the README's example", &done);
    assert!(done.stdout.contains("'win_rate'"), "{}", done.stdout);
    // The install lines are the ones the venv above ran.
    assert!(section.contains("pip install ./python ./bots/python"));
}

#[test]
fn the_examples_type_check_strictly() {
    let examples = path("python/examples");
    let mut mypy = python(&["-m", "mypy", "--strict", "--no-incremental"]);
    mypy.arg(&examples).env("MYPYPATH", &examples);
    let done = run_with_timeout(mypy, CHECK_TIMEOUT).unwrap_or_else(|e| panic!("{e}"));
    assert_ok("mypy --strict python/examples", &done);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_trained_in_python_beats_random_and_plays_on_the_ladder() {
    let _ = tokio::task::spawn_blocking(engine_venv).await;
    let policy = kits_dir().join("trained-policy.npz");
    let policy = policy.display().to_string();
    // Shortened: 1,200 training games, a budget of games rather than of time,
    // so the result is the same on any machine (about 30 s of CPU; the full
    // example trains for minutes).
    let train = run(
        python(&[
            &path("python/examples/train.py"),
            "--games",
            "1200",
            "--minutes",
            "10",
            "--eval-games",
            "80",
            "--out",
            &policy,
        ]),
        CHECK_TIMEOUT,
    )
    .await;
    assert_ok("examples/train.py", &train);
    assert!(
        train
            .stdout
            .contains("beats random with 95 % confidence: True"),
        "{}",
        train.stdout
    );
    let server = TestServer::start().await;
    let url = server.url();
    let ladder_py = path("python/examples/ladder.py");
    let ladder_run = |extra: &[&str]| {
        let mut args = vec![
            ladder_py.as_str(),
            "--server",
            &url,
            "--policy",
            &policy,
            "--matches",
            "1",
            "--sparring",
        ];
        args.extend_from_slice(extra);
        run(python(&args), CHECK_TIMEOUT)
    };
    let placed = |ladder: &Finished| -> Vec<String> {
        let last: serde_json::Value =
            serde_json::from_str(ladder.stdout.lines().last().unwrap_or_default())
                .unwrap_or_else(|e| panic!("{e}: {}", ladder.stdout));
        last["placements"]
            .as_array()
            .map(|p| {
                p.iter()
                    .filter_map(|x| x["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let first = ladder_run(&[]).await;
    assert_ok("examples/ladder.py", &first);
    let names = placed(&first);
    assert!(
        names.iter().any(|n| n == "trained-policy")
            && names.iter().any(|n| n.starts_with("random-sparring-")),
        "{}",
        first.stdout
    );
    // Again: the name is taken, said in a line; with the key the first run
    // printed, the same bot plays on.
    let taken = ladder_run(&[]).await;
    assert_eq!(taken.status.code(), Some(2), "{}", taken.stderr);
    assert!(taken.stderr.contains("is taken"), "{}", taken.stderr);
    let key = first
        .stderr
        .split_whitespace()
        .find(|w| w.starts_with("druids_bot_"))
        .unwrap_or_else(|| panic!("no key printed: {}", first.stderr))
        .to_owned();
    let again = ladder_run(&["--key", &key]).await;
    assert_ok("examples/ladder.py --key", &again);
    assert!(
        placed(&again).iter().any(|n| n == "trained-policy"),
        "{}",
        again.stdout
    );
    server.stop().await;
}
