//! The installed Python kit and its examples pass `mypy --strict`.

use std::process::Command;
use std::time::Duration;

use super::{kits_dir, python_dir, run_ok, venv_bin};

/// The Python kit's public API is typed: the installed package (generated
/// stubs excluded, as configured in its pyproject.toml) and the examples pass
/// `mypy --strict`.
#[test]
fn the_python_kit_type_checks_strictly() {
    let bin = venv_bin().unwrap_or_else(|e| panic!("Python kit: {e}"));
    let mut install = Command::new(bin.join("pip"));
    install
        .args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
            "mypy==2.4.1",
        ])
        .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
        .env("PIP_DEFAULT_TIMEOUT", "20");
    let installing = druids_tests::install::lock();
    run_ok(install, Duration::from_secs(180))
        .unwrap_or_else(|e| panic!("cannot install mypy: {e}"));
    drop(installing);
    let config = python_dir().join("pyproject.toml");
    for target in [
        vec!["-p".to_owned(), "druids_bot".to_owned()],
        std::fs::read_dir(python_dir().join("examples"))
            .expect("examples")
            .map(|e| e.expect("entry").path().display().to_string())
            .filter(|p| p.ends_with(".py"))
            .collect(),
    ] {
        let mut mypy = Command::new(bin.join("mypy"));
        // From outside the source tree, so the installed package is checked.
        mypy.current_dir(kits_dir())
            .arg("--config-file")
            .arg(&config)
            .args(&target)
            .env("MYPY_CACHE_DIR", kits_dir().join("mypy-cache"));
        run_ok(mypy, Duration::from_secs(180)).unwrap_or_else(|e| panic!("mypy {target:?}: {e}"));
    }
}
