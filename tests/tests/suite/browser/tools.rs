//! What the browser test runs on: Chromium, Node.js and playwright-core
//! installed if missing, and `run.mjs` run once on a plan.

use std::path::PathBuf;
use std::process::Command;

use druids_tests::install::{apt_install, on_path};
use serde_json::Value;

use crate::web::target_dir;

/// Makes sure Chromium, Node.js and playwright-core are there; returns the
/// browser's path and the directory holding the script and its modules.
pub(super) fn install() -> (PathBuf, PathBuf) {
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
    // Checked and installed under the lock, and marked installed only once
    // `npm ci` is done: the browser tests start together, and one that saw
    // another's half-written node_modules ran on a broken playwright-core.
    let _installing = druids_tests::install::lock();
    let installed = dir.join("installed-package-lock.json");
    if std::fs::read(&installed).ok().as_deref() != Some(&lock[..])
        || !dir.join("node_modules/playwright-core").exists()
    {
        let _ = std::fs::remove_file(&installed);
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
        std::fs::write(&installed, &lock).expect("mark the install");
    }
    // Written whole, then renamed: another test's node may be reading it.
    let script = std::fs::read(src.join("run.mjs")).expect("tests/web/run.mjs");
    if std::fs::read(dir.join("run.mjs")).ok() != Some(script.clone()) {
        let next = dir.join("run.mjs.next");
        std::fs::write(&next, &script).expect("write run.mjs");
        std::fs::rename(&next, dir.join("run.mjs")).expect("move run.mjs");
    }
    (chromium().expect("chromium is installed"), dir)
}

/// Runs `run.mjs` (in `dir`) on `plan`; what it printed.
pub(super) async fn run(dir: PathBuf, plan: &Value, plan_file: PathBuf) -> Value {
    std::fs::write(&plan_file, plan.to_string()).expect("plan");
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(dir.join("run.mjs"))
            .arg(&plan_file)
            .current_dir(&dir)
            .output()
            .expect("node runs")
    })
    .await
    .expect("browser task");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "run.mjs failed: {stderr}\n{stdout}");
    serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("run.mjs printed no results ({e}): {stdout}\n{stderr}"))
}

/// A fresh directory under the system's temp dir.
pub(super) fn tempdir(name: &str) -> PathBuf {
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
