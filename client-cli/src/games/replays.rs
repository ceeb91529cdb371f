//! `druids export` writes a finished game's replay to a file; `druids
//! replay` re-runs a replay file (binary or JSON) through the engine (no server) and checks
//! its recorded result.

use std::path::Path;

use druids_contract::pb;
use prost::Message;

use crate::connect::{self, CliError, ServerAddr};
use crate::output::outln;
use crate::render;

/// `druids export`: writes the replay of a finished game to `path`.
pub async fn export(server: &ServerAddr, game_id: String, path: &Path) -> Result<(), CliError> {
    let replay = connect::connect(server)
        .await?
        .export_replay(pb::ExportReplayRequest { game_id })
        .await?
        .into_inner();
    std::fs::write(path, replay.encode_to_vec()).map_err(|e| CliError::file(path, e))?;
    outln!(
        "{} actions written to {}",
        replay.actions.len(),
        path.display()
    )
}

/// A replay file: the binary `Replay` (`druids export`), or the same
/// message in proto3 JSON (ExportReplay over HTTP, `druids match
/// --replays`, a line of `druids-server export-all`).
fn read_replay(bytes: &[u8]) -> Result<pb::Replay, String> {
    if bytes.trim_ascii_start().starts_with(b"{") {
        let json: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        return druids_contract::json::from_json(&json).map_err(|e| e.to_string());
    }
    pb::Replay::decode(bytes).map_err(|e| e.to_string())
}

/// The replay in the file at `path` (binary or JSON).
pub fn read_replay_file(path: &Path) -> Result<pb::Replay, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::file(path, e))?;
    read_replay(&bytes).map_err(|reason| CliError::NotAReplay {
        path: path.to_owned(),
        reason,
    })
}

/// `druids replay`: re-runs a replay file through the engine and checks its
/// recorded result.
pub fn replay(path: &Path) -> Result<(), CliError> {
    let replay = read_replay_file(path)?;
    match druids_contract::replay::verify(&replay) {
        Ok(outcome) => outln!(
            "ok: {} actions reproduce the recorded result: {}",
            replay.actions.len(),
            match outcome {
                Some(o) => render::outcome_summary(&o),
                None => "the game was abandoned".into(),
            }
        ),
        Err(source) => Err(CliError::Replay {
            path: path.to_owned(),
            source,
        }),
    }
}
