//! `druids export` writes a finished game's replay to a file, `druids
//! export-games` a bot's finished games as JSON lines; `druids replay`
//! re-runs a replay file (binary or JSON) through the engine (no server) and
//! checks its recorded result.

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
    // The name says the format: a `.json` file holds what ExportReplay
    // answers over HTTP; any other the binary message.
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let bytes = if json {
        druids_contract::json::to_json(&replay)
            .to_string()
            .into_bytes()
    } else {
        replay.encode_to_vec()
    };
    std::fs::write(path, bytes).map_err(|e| CliError::file(path, e))?;
    outln!(
        "{} actions written to {}",
        replay.actions.len(),
        path.display()
    )
}

/// `druids export-games`: the finished games of bot `bot_id`, newest first,
/// one `ExportReplay` answer in proto3 JSON per line (what `GET
/// /api/v1/bots/{bot_id}/games` gives over HTTP), at most `max` of them,
/// read a page of `ListGames` at a time. Games in play are not exported, nor
/// the finished games of a duplicate match still being played.
pub async fn export_games(server: &ServerAddr, bot_id: String, max: usize) -> Result<(), CliError> {
    let mut client = connect::connect(server).await?;
    let (mut page_token, mut written) = (String::new(), 0);
    while written < max {
        let page = client
            .list_games(pb::ListGamesRequest {
                bot_id: bot_id.clone(),
                status: pb::GameStatus::Finished as i32,
                page_size: (max - written).min(100) as u32,
                page_token,
                ..Default::default()
            })
            .await?
            .into_inner();
        for game in page.games.into_iter().take(max - written) {
            let replay = match client
                .export_replay(pb::ExportReplayRequest {
                    game_id: game.game_id,
                })
                .await
            {
                Ok(replay) => replay.into_inner(),
                // Its duplicate match is still being played: withheld.
                Err(refused) if druids_contract::replay::withheld(&refused) => continue,
                Err(refused) => return Err(refused.into()),
            };
            outln!("{}", druids_contract::json::to_json(&replay))?;
            written += 1;
        }
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    Ok(())
}

/// A replay file: the binary `Replay` (`druids export`), or the same
/// message in proto3 JSON (ExportReplay over HTTP, `druids match
/// --replays`, a line of `druids-server export-all`).
fn read_replay(bytes: &[u8]) -> Result<pb::Replay, String> {
    // An empty message decodes (every field at its default); an empty file
    // is no replay.
    if bytes.trim_ascii().is_empty() {
        return Err("the file is empty".into());
    }
    if bytes.trim_ascii_start().starts_with(b"{") {
        // A field given twice is refused, as the server refuses it.
        let json = druids_contract::json::parse(bytes).map_err(|e| format!("not JSON: {e}"))?;
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

#[cfg(test)]
mod tests {
    use super::read_replay;

    #[test]
    fn an_empty_file_or_a_field_given_twice_is_no_replay() {
        assert_eq!(read_replay(b"").unwrap_err(), "the file is empty");
        assert_eq!(read_replay(b" \n").unwrap_err(), "the file is empty");
        let twice = read_replay(br#"{"kind": "GAME_KIND_MEDURIS", "kind": "GAME_KIND_DOLMEN"}"#);
        assert!(twice.unwrap_err().contains("twice"));
        assert!(read_replay(br#"{"kind": "GAME_KIND_DOLMEN"}"#).is_ok());
    }
}
