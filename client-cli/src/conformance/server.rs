//! The server a conformance run talks to: its own `druids-server
//! --test-faults` (in memory, on ports the system picks, without rate
//! limits), stopped when the run ends, or one given with `--server`.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::AsyncBufReadExt;

use crate::connect::{CliError, ServerAddr};

/// A `druids-server` this run started; killed when dropped.
pub struct OwnServer {
    _child: tokio::process::Child,
    pub addr: ServerAddr,
}

/// The server binary: `--server-bin` (or `DRUIDS_SERVER_BIN`), else the one
/// beside this program (cargo builds both into one folder), else
/// `druids-server` on the `PATH`.
pub fn binary(given: Option<PathBuf>) -> PathBuf {
    if let Some(b) = given {
        return b;
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|me| Some(me.parent()?.join("druids-server")))
        .filter(|p| p.is_file());
    beside.unwrap_or_else(|| PathBuf::from("druids-server"))
}

/// Starts `bin` in test-faults mode and reads its address from its first
/// line on stdout.
pub async fn start(bin: PathBuf) -> Result<OwnServer, CliError> {
    let mut child = tokio::process::Command::new(&bin)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--in-memory",
        ])
        .arg("--test-faults")
        // One address plays every seat of every scenario.
        .args([
            "--max-setups-per-second",
            "0",
            "--max-reads-per-second",
            "0",
        ])
        .args(["--max-anonymous-reads-per-second", "0"])
        .args(["--max-submits-per-second", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| CliError::file(&bin, e))?;
    let stdout = child.stdout.take().expect("piped");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let first = lines.next_line().await?.ok_or_else(|| {
        CliError::Protocol(format!(
            "{} exited before it said where it listens",
            bin.display()
        ))
    })?;
    let ready: serde_json::Value = serde_json::from_str(&first).map_err(|e| {
        CliError::Protocol(format!(
            "{}'s first line is not JSON ({e}): {first}",
            bin.display()
        ))
    })?;
    let grpc = ready["grpc"]
        .as_str()
        .ok_or_else(|| CliError::Protocol(format!("no \"grpc\" address in {first}")))?;
    // Keep reading its stdout so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(OwnServer {
        _child: child,
        addr: ServerAddr::parse(grpc, None)?,
    })
}
