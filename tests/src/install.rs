//! Installing what a test needs from Debian's packages, the way CI does (as
//! root, with apt-get): one install at a time across every test process,
//! under one lock file, since tests that install PostgreSQL and Chromium
//! run at once and apt refuses a second install while one runs.

use std::fs::File;
use std::process::Command;

/// The lock every apt-get of the tests takes.
const LOCK: &str = "/tmp/druids-tests-apt.lock";

/// Installs Debian package `package` (with the packages it recommends, or
/// not) unless `present()` says it is there (asked again under the lock:
/// another test may have installed it meanwhile). apt's package lists are
/// refreshed only when a first attempt fails. Returns whether `present()`
/// holds afterwards.
pub fn apt_install(package: &str, recommends: bool, present: impl Fn() -> bool) -> bool {
    if present() {
        return true;
    }
    let lock = File::create(LOCK).expect("the apt lock file");
    lock.lock().expect("the apt lock");
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
    drop(lock);
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
