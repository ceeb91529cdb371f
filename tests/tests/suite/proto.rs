//! The contract's own checks, with Buf's CLI (installed from the npm registry
//! into `target/tools/` on first use): `buf lint` (the rules in `buf.yaml`)
//! and `buf breaking` against `contract/landed.binpb`, the contract as last
//! released, so that no change can break existing clients unnoticed.
//! Refresh the baseline on purpose only: `buf build -o contract/landed.binpb`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Buf's CLI, installed once per checkout.
fn buf() -> &'static Path {
    static BUF: OnceLock<PathBuf> = OnceLock::new();
    BUF.get_or_init(|| {
        let dir = root().join("target/tools/buf");
        let bin = dir.join("node_modules/.bin/buf");
        druids_tests::install::node_and_npm();
        let _installing = druids_tests::install::lock();
        if !bin.exists() {
            std::fs::create_dir_all(&dir).unwrap();
            let status = Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&dir)
                .arg("@bufbuild/buf@1.75.0")
                .status()
                .expect("npm is needed to install Buf's CLI (Node.js 20 with npm)");
            assert!(status.success(), "npm install @bufbuild/buf failed");
        }
        bin
    })
}

fn run_buf(args: &[&str]) {
    let out = Command::new(buf())
        .args(args)
        .current_dir(root())
        .output()
        .expect("run buf");
    assert!(
        out.status.success(),
        "buf {}:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_protos_pass_buf_lint() {
    run_buf(&["lint"]);
}

#[test]
fn the_contract_does_not_break_the_landed_one() {
    run_buf(&["breaking", "--against", "contract/landed.binpb"]);
}
