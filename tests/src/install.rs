//! Installing what a test needs, the way CI does (as root: apt-get for
//! Debian's packages, npm and pip for the kits' tools), with one lock for
//! every install: on a fresh machine several tests install at once
//! (PostgreSQL and Chromium from Debian, Buf and playwright-core from npm,
//! venvs from PyPI), and apt refuses a second install while one runs. Every
//! test that installs something holds [`lock`] while it does, across threads
//! and across the test binaries `cargo test` runs (and `.ci/under-load`).

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// Held while installing; the lock is released when it is dropped.
#[must_use = "the install lock is released when the guard is dropped"]
pub struct InstallLock(File);

impl Drop for InstallLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// The machine-wide lock file (one per machine, not per checkout: two
/// checkouts' tests share the same apt).
fn lock_path() -> PathBuf {
    std::env::temp_dir().join("druids-tests-install.lock")
}

/// Waits for the install lock (an advisory `flock` on a file in the temp
/// folder). Don't nest: a second `lock` in the same thread waits forever.
pub fn lock() -> InstallLock {
    let path = lock_path();
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("the install lock {}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("the install lock {}: {e}", path.display()));
    InstallLock(file)
}

/// Installs Debian package `package` (with the packages it recommends, or
/// not) unless `present()` says it is there (asked again under the lock:
/// another test may have installed it meanwhile). apt's package lists are
/// refreshed only when a first attempt fails. Returns whether `present()`
/// holds afterwards.
pub fn apt_install(package: &str, recommends: bool, present: impl Fn() -> bool) -> bool {
    if present() {
        return true;
    }
    let held = lock();
    if present() {
        return true;
    }
    eprintln!("{package} is missing: installing Debian's {package} package");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut install = vec!["install", "-y", "-q"];
    if !recommends {
        install.push("--no-install-recommends");
    }
    install.push(package);
    let installed = apt(&install) || (apt(&["update", "-q"]) && apt(&install));
    drop(held);
    installed && present()
}

/// The path of program `name` on `PATH`, if it is there.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Whether `program --version` runs and succeeds.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Makes sure `program` runs, installing Debian's `package` when it does
/// not. Panics, saying what to install, when it cannot.
pub fn command(program: &str, package: &str) {
    assert!(
        apt_install(package, false, || runs(program)),
        "the tests need {program}: `apt-get install {package}` failed (run them as root \
         with Debian's mirrors reachable, or install {package} first)"
    );
}

/// Makes sure `python3 -m venv` can make a virtualenv with pip (Debian
/// splits it into `python3-venv`).
pub fn python_venv() {
    command("python3", "python3");
    let has_venv = || {
        Command::new("python3")
            .args(["-c", "import ensurepip, venv"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    assert!(
        apt_install("python3-venv", false, has_venv),
        "the tests need python3's venv: `apt-get install python3-venv` failed"
    );
}

/// Makes sure Node.js and npm are there.
pub fn node_and_npm() {
    command("node", "nodejs");
    command("npm", "npm");
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};

    #[test]
    fn one_holder_at_a_time() {
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (inside, most, start) = (inside.clone(), most.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    for _ in 0..20 {
                        let _held = super::lock();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two holders at once");
    }
}
