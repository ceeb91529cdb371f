//! `druids export` writes a finished game's replay to a file; `druids
//! replay` re-runs a replay file through the engine (no server) and checks
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

/// `druids replay`: re-runs a replay file through the engine and checks its
/// recorded result.
pub fn replay(path: &Path) -> Result<(), CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::file(path, e))?;
    let replay = pb::Replay::decode(bytes.as_slice()).map_err(|source| CliError::NotAReplay {
        path: path.to_owned(),
        source,
    })?;
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
