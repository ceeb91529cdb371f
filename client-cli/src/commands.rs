//! The subcommands that ask the server one thing and print the answer: create,
//! join, list, state, watch, export, health, and `replay` (which checks a file
//! offline). Playing a seat is in `play`.

use std::path::Path;

use druids_contract::pb;
use prost::Message;

use crate::cli::{CreateArgs, GameArgs, ListArgs, status_name};
use crate::connect::{self, CliError, Client, ServerAddr, authed};
use crate::follow::{AsyncEventFn, follow};
use crate::output::Style;
use crate::{outln, output, render};

/// `druids create`.
pub async fn create(server: &ServerAddr, args: CreateArgs) -> Result<(), CliError> {
    let claimed = (0..args.players)
        .filter(|s| !args.open_seats.contains(s))
        .count();
    if !args.names.is_empty()
        && args.names.len() != claimed
        && args.names.len() != args.players as usize
    {
        return Err(CliError::Usage(format!(
            "{} --name given: give one per claimed seat ({claimed}) or one per seat ({})",
            args.names.len(),
            args.players
        )));
    }
    let mut client = connect::connect(server).await?;
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind: args.game as i32,
            players: args.players,
            seed: args.seed,
            options: Some(pb::GameOptions {
                start_seat: args.start_seat,
                max_turns: args.max_turns,
                decision_ms: args.decision_ms,
                time_bank_ms: args.time_bank_ms,
                autopilot_after: args.autopilot_after,
            }),
            // Passed as given: the server takes one name per claimed seat or
            // one per seat.
            seat_names: args.names,
            open_seats: args.open_seats,
            request_id: String::new(),
            start_from: None,
        })
        .await?
        .into_inner();
    if args.json {
        let seats: Vec<_> = reply
            .seats
            .iter()
            .map(|s| serde_json::json!({"seat": s.seat, "name": s.name, "token": s.token}))
            .collect();
        outln!(
            "{}",
            serde_json::json!({"game_id": reply.game_id, "seats": seats})
        )?;
    } else {
        outln!("game {}", reply.game_id)?;
        for s in &reply.seats {
            outln!("  seat {} ({}): token {}", s.seat, s.name, s.token)?;
        }
    }
    Ok(())
}

/// `druids join`: claims an open seat and prints it.
pub async fn join(
    server: &ServerAddr,
    game_id: String,
    seat: Option<u32>,
    name: String,
) -> Result<(), CliError> {
    let reply = connect::connect(server)
        .await?
        .join_game(pb::JoinGameRequest {
            game_id,
            seat,
            name,
            request_id: String::new(),
        })
        .await?
        .into_inner();
    let s = reply.seat.unwrap_or_default();
    outln!("seat {} ({}): token {}", s.seat, s.name, s.token)?;
    if reply.started {
        outln!("every seat is claimed: the game has started")?;
    }
    Ok(())
}

/// `druids list`: a table (or JSON lines) of the server's games, one page or
/// all of them.
pub async fn list(server: &ServerAddr, args: ListArgs) -> Result<(), CliError> {
    let mut client = connect::connect(server).await?;
    let mut page_token = args.page_token.unwrap_or_default();
    if !args.json {
        outln!(
            "{:<16}  {:<8}  {:<19}  {:<16}  {:>7}  {:>7}  seats",
            "game id",
            "game",
            "status",
            "created (UTC)",
            "players",
            "version"
        )?;
    }
    loop {
        let page = client
            .list_games(pb::ListGamesRequest {
                kind: args.game.map_or(0, |k| k as i32),
                status: args.status.map_or(0, |s| s as i32),
                page_size: args.page_size.unwrap_or(0),
                page_token: page_token.clone(),
                ..Default::default()
            })
            .await?
            .into_inner();
        for g in &page.games {
            if args.json {
                outln!("{}", druids_contract::json::to_json(g))?;
            } else {
                outln!("{}", summary_line(g))?;
            }
        }
        page_token = page.next_page_token;
        if page_token.is_empty() {
            return Ok(());
        }
        if !args.all {
            // On stderr, so that --json output stays one object per line.
            eprintln!("more games: --page-token {page_token} (or --all)");
            return Ok(());
        }
    }
}

/// One row of `druids list`.
fn summary_line(g: &pb::GameSummary) -> String {
    let game = pb::GameKind::try_from(g.kind)
        .ok()
        .and_then(druids_contract::registry::name)
        .unwrap_or("?");
    let status = pb::GameStatus::try_from(g.status)
        .map(status_name)
        .unwrap_or_else(|_| "?".into());
    let seats: Vec<String> = g
        .seats
        .iter()
        .map(|s| {
            // The server names unnamed seats "seat N": shown as unnamed.
            let unnamed = s.name.is_empty() || s.name == format!("seat {}", s.seat);
            match (s.claimed, unnamed) {
                (false, _) => format!("{}: open", s.seat),
                (true, true) => format!("{}: -", s.seat),
                (true, false) => format!("{}: {}", s.seat, s.name),
            }
        })
        .collect();
    format!(
        "{:<16}  {game:<8}  {status:<19}  {:<16}  {:>7}  {:>7}  {}",
        g.game_id,
        utc_minute(g.created_unix_ms),
        g.players,
        g.version,
        seats.join(", ")
    )
}

/// `ms` since the Unix epoch as "YYYY-MM-DD HH:MM" in UTC (the proleptic
/// Gregorian calendar, by Howard Hinnant's days-to-civil algorithm; no date
/// crate is needed for one column).
pub(crate) fn utc_minute(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// The state of a game as `token`'s seat (or a spectator) sees it.
pub async fn get_state(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<pb::StateView, CliError> {
    let request = || {
        authed(
            token,
            pb::GetStateRequest {
                game_id: game_id.to_owned(),
            },
        )
    };
    request()?;
    let reply = connect::patiently(|| {
        let mut client = client.clone();
        let req = request().expect("checked above");
        async move { client.get_state(req).await }
    })
    .await?;
    Ok(reply.state.unwrap_or_default())
}

/// `druids state`: the board and whose decision it is.
pub async fn state(server: &ServerAddr, game: GameArgs) -> Result<(), CliError> {
    let mut client = connect::connect(server).await?;
    let view = get_state(&mut client, &game.game_id, game.token.as_deref()).await?;
    output::text(render::state(&view, Style::for_stdout()))
}

/// Prints every event as one line; the snapshot as a board, the end as the
/// final ranking.
struct Printer {
    style: Style,
    /// Seat names, for the final ranking.
    seats: Vec<pb::SeatInfo>,
    viewer: Option<u32>,
}

impl AsyncEventFn for Printer {
    async fn call(&mut self, _: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        if let Some(pb::game_event::Body::Snapshot(s)) = &e.body {
            let view = s.state.clone().unwrap_or_default();
            self.seats = view.seats.clone();
            self.viewer = view.viewer_seat;
        }
        outln!("{}", render::event(&e, self.style))?;
        if let Some(pb::game_event::Body::GameFinished(f)) = &e.body {
            let outcome = f.outcome.clone().unwrap_or_default();
            output::text(render::ranking(&outcome, &self.seats, self.viewer))?;
        }
        Ok(true)
    }
}

/// `druids watch`: the event stream, one line per event, until the game ends.
pub async fn watch(server: &ServerAddr, game: GameArgs, from_seq: u64) -> Result<(), CliError> {
    let mut client = connect::connect(server).await?;
    let token = game.token.as_deref();
    // Names for the final ranking (a stream from seq N >= 1 has no snapshot).
    let view = get_state(&mut client, &game.game_id, token).await?;
    let printer = Printer {
        style: Style::for_stdout(),
        seats: view.seats,
        viewer: view.viewer_seat,
    };
    follow(&mut client, &game.game_id, token, from_seq, printer).await
}

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

/// `druids health`: asks the server's gRPC health service about the druids
/// service.
pub async fn health(server: &ServerAddr) -> Result<(), CliError> {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let channel = connect::channel(server).await?;
    let status = HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: "druids.v1.DruidsService".into(),
        })
        .await?
        .into_inner()
        .status;
    if status == ServingStatus::Serving as i32 {
        outln!("serving")
    } else {
        Err(CliError::NotServing(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creation_times_read_as_utc_dates() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00");
        assert_eq!(utc_minute(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc_minute(1_795_447_920_000), "2026-11-23 15:32");
    }
}
