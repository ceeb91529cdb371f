//! The server a conformance run talks to: its own `druids-server
//! --test-faults` (in memory, on ports the system picks, without rate
//! limits), stopped when the run ends, or one given with `--server`.

use std::path::PathBuf;
use std::process::Stdio;

use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use tokio::io::AsyncBufReadExt;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::connect::{CliError, ServerAddr, channel};

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

/// Makes sure the server given with `--server` serves the testing calls
/// before any scenario runs: a `GetLedger` without a key changes nothing,
/// and a server without `--test-faults` refuses it as it refuses every
/// testing call ([`not_serving`]).
pub async fn probe(addr: &ServerAddr) -> Result<(), CliError> {
    let mut testing = TestingServiceClient::new(channel(addr).await?);
    match testing.get_ledger(pb::GetLedgerRequest::default()).await {
        Err(s) => match not_serving(addr, &s) {
            Some(e) => Err(e),
            // Served: refused for the missing key and game, as asked.
            None => Ok(()),
        },
        Ok(_) => Ok(()),
    }
}

/// The error a testing call's refusal `s` makes when it says the server at
/// `addr` does not serve test faults (FAILED_PRECONDITION, reason
/// TEST_FAULTS_OFF; or no TestingService at all): the run cannot grade
/// anything there, so it stops at once rather than failing every scenario.
pub fn not_serving(addr: &ServerAddr, s: &Status) -> Option<CliError> {
    let why = match s.code() {
        Code::FailedPrecondition if reason(s) == "TEST_FAULTS_OFF" => {
            "it refuses the testing calls: FAILED_PRECONDITION, TEST_FAULTS_OFF"
        }
        Code::Unimplemented => "it has no TestingService: UNIMPLEMENTED",
        _ => return None,
    };
    Some(CliError::NoTestFaults {
        url: addr.url.clone(),
        why: why.into(),
    })
}

/// A refusal's reason: its `google.rpc.ErrorInfo`, else the server's
/// `druids-reason` trailer.
fn reason(s: &Status) -> String {
    if let Some(info) = s.get_details_error_info() {
        return info.reason;
    }
    s.metadata()
        .get("druids-reason")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::ErrorDetails;

    #[test]
    fn test_faults_off_is_told_from_its_reason_or_trailer() {
        let addr = ServerAddr::parse("127.0.0.1:1", None).unwrap();
        let off = Status::with_error_details(
            Code::FailedPrecondition,
            "the server runs without --test-faults",
            ErrorDetails::with_error_info("TEST_FAULTS_OFF", "druids", []),
        );
        let said = not_serving(&addr, &off).expect("refused").to_string();
        assert!(
            said.starts_with("the server at http://127.0.0.1:1 does not serve test faults")
                && said.contains("start it with --test-faults (never where people play)"),
            "{said}"
        );
        let mut trailer = Status::failed_precondition("off");
        trailer
            .metadata_mut()
            .insert("druids-reason", "TEST_FAULTS_OFF".parse().unwrap());
        assert!(not_serving(&addr, &trailer).is_some());
        assert!(not_serving(&addr, &Status::unimplemented("")).is_some());
        // Another precondition, or a refusal for the probe's missing key:
        // the server serves test faults.
        let illegal = Status::with_error_details(
            Code::FailedPrecondition,
            "illegal",
            ErrorDetails::with_error_info("ILLEGAL_ACTION", "druids", []),
        );
        assert!(not_serving(&addr, &illegal).is_none());
        assert!(not_serving(&addr, &Status::unauthenticated("no key")).is_none());
    }
}
