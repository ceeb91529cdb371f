//! `druids-server` as a separate process, for the tests that kill, pause and
//! restart servers: the binary (built once per run with this build's
//! profile) and a running server read from its ready line.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// The `druids-server` binary of this build's profile, built (or found fresh)
/// by cargo once per test run.
pub fn server_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        cargo_binary("druids-server", "druids-server").unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The binary `bin` of workspace package `package`, built (or found fresh) by
/// cargo with this build's profile: a binary of another crate has no
/// `CARGO_BIN_EXE_` in the tests. Build it once per run (keep the path).
pub fn cargo_binary(package: &str, bin: &str) -> Result<PathBuf, String> {
    // target/<profile>/deps/suite-…: build with the same profile.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let release = exe
        .parent()
        .and_then(Path::parent)
        .is_some_and(|p| p.ends_with("release"));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let mut build = Command::new(env!("CARGO"));
    // The test builds turn on druids-contract's `test-game` feature (a
    // dev-dependency of this crate): asking for it here too builds the
    // binary from the very same artifacts instead of a second copy.
    build
        .args(["build", "-p", package, "--bin", bin])
        .args(["--features", "druids-contract/test-game"])
        .args(["--message-format", "json-render-diagnostics"])
        .arg("--manifest-path")
        .arg(&manifest);
    if release {
        build.arg("--release");
    }
    let out = build.output().map_err(|e| format!("cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build of {package} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == bin)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("cargo named no {bin} executable"))
}

/// A running `druids-server` process; killed when dropped.
pub struct ServerProcess {
    child: Child,
    /// Its gRPC address, as the ready line gives it.
    pub addr: String,
    /// Its metrics address, if it serves metrics.
    pub metrics: Option<String>,
    /// Its HTTP face's address, if it serves one.
    pub http: Option<String>,
}

impl ServerProcess {
    /// Starts `druids-server` with `args` and `envs`, its log appended to
    /// `log`, and waits for its ready line.
    pub fn start(args: &[&str], envs: &[(&str, &str)], log: &Path) -> ServerProcess {
        let mut cmd = Command::new(server_binary());
        cmd.args(args).envs(envs.iter().copied());
        ServerProcess::start_command(cmd, log)
    }

    /// Starts `druids-server` with `args` under a limit of `files` open file
    /// descriptors (`ulimit -n`), its log appended to `log`.
    pub fn start_with_files(args: &[&str], files: u32, log: &Path) -> ServerProcess {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""))
            .arg(server_binary())
            .args(args);
        ServerProcess::start_command(cmd, log)
    }

    /// Runs `cmd` (which execs `druids-server`), its log appended to `log`,
    /// and waits for its ready line.
    pub fn start_command(mut cmd: Command, log: &Path) -> ServerProcess {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("log file");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("druids-server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the ready line");
        let ready: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not a ready line ({e}): {line:?}"));
        let addr = ready["grpc"].as_str().expect("grpc address").to_owned();
        let metrics = ready["metrics"].as_str().map(str::to_owned);
        let http = ready["http"].as_str().map(str::to_owned);
        ServerProcess {
            child,
            addr,
            metrics,
            http,
        }
    }

    /// Its URL for a client.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`KILL`, `STOP`, `CONT`, `TERM`) to the process.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Its exit status, once it has exited (without waiting).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().expect("the server process")
    }

    /// SIGKILLs the process and reaps it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // A paused process must run again to die cleanly.
        // (Silent: after `kill` the process is gone and reaped.)
        let _ = Command::new("kill")
            .arg("-CONT")
            .arg(self.child.id().to_string())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
