//! `druids create` and `druids join`: a new game and its seats' tokens, or a
//! claimed open seat; each with the web viewer's page of the seat.
//!
//! A game created here has a turn clock unless `--decision-ms 0` says
//! otherwise ([`DEFAULT_DECISION_MS`] a decision, a bank of
//! [`DEFAULT_TIME_BANK_MS`], the autopilot after [`DEFAULT_AUTOPILOT_AFTER`]
//! timeouts in a row): a seat whose person leaves `druids play` is then
//! played by the clock's default actions instead of stalling the game.

use std::path::PathBuf;

use clap::Args;
use druids_contract::pb;

use crate::args::game_kind;
use crate::connect::{self, CliError, ServerAddr};
use crate::games::replays::read_replay_file;
use crate::output::outln;

#[derive(Args)]
pub struct CreateArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: druids_contract::Kind,
    /// Number of seats.
    #[arg(long, required_unless_present = "from_replay")]
    pub players: Option<u32>,
    /// RNG seed (the server picks a secret one if not given).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Leave this seat open for `druids join` (repeatable).
    #[arg(long = "open-seat")]
    pub open_seats: Vec<u32>,
    /// Seat names: once per claimed seat, or once per seat (repeatable).
    #[arg(long = "name")]
    pub names: Vec<String>,
    /// Seat that starts.
    #[arg(long)]
    pub start_seat: Option<u32>,
    /// Safeguard: regular play ends after this many turns.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Turn clock: milliseconds per decision [default: 60000, with a bank
    /// of 120000 and the autopilot after 2 timeouts in a row, each unless
    /// given]. Given (N > 0), the clock is only what the flags say: no bank
    /// without --time-bank-ms, no autopilot without --autopilot-after. 0: no
    /// clock (the game then waits for ever for a seat whose player left).
    #[arg(long)]
    pub decision_ms: Option<u32>,
    /// Turn clock: reserve per seat, in milliseconds.
    #[arg(long)]
    pub time_bank_ms: Option<u32>,
    /// Turn clock: consecutive timeouts before the autopilot plays the seat
    /// (until its player answers again).
    #[arg(long)]
    pub autopilot_after: Option<u32>,
    /// The web viewer's address, for the seats' pages [default: the
    /// server's host, port 8080, as `druids-server` serves it].
    #[arg(long, env = "DRUIDS_VIEWER")]
    pub viewer: Option<String>,
    /// Start from a replay file (`druids export`, `druids match --replays`):
    /// its game, seats and seed, with its actions applied (all, or
    /// --actions), so that the web viewer shows it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["seed", "open_seats"])]
    pub from_replay: Option<PathBuf>,
    /// With --from-replay: how many of its actions to apply [default: all].
    #[arg(long, requires = "from_replay")]
    pub actions: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The turn clock of a game `druids create` makes: a minute a decision.
pub const DEFAULT_DECISION_MS: u32 = 60_000;
/// ... and two minutes' reserve per seat.
pub const DEFAULT_TIME_BANK_MS: u32 = 120_000;
/// ... and the autopilot after two timeouts in a row.
pub const DEFAULT_AUTOPILOT_AFTER: u32 = 2;

/// The web viewer's address for a server: `given`, else the server's host
/// on port 8080 (`druids-server`'s default `--http-listen`).
pub fn viewer_base(server: &ServerAddr, given: Option<&str>) -> String {
    if let Some(v) = given {
        return v.trim_end_matches('/').to_owned();
    }
    let host = server
        .url
        .parse::<tonic::codegen::http::Uri>()
        .ok()
        .and_then(|u| u.host().map(str::to_owned))
        .unwrap_or_else(|| "127.0.0.1".into());
    format!("http://{host}:8080")
}

/// A seat's page in the web viewer (the token stays in the fragment, which
/// browsers never send to a server).
pub fn seat_page(viewer: &str, game_id: &str, token: &str) -> String {
    format!("{viewer}/games/{game_id}#token={token}")
}

/// The turn clock of `druids create`'s flags: the defaults when
/// `--decision-ms` is not given, none with `--decision-ms 0`.
fn clock(args: &CreateArgs) -> Option<pb::GameOptions> {
    let options = match args.decision_ms {
        Some(0) => return None,
        Some(ms) => pb::GameOptions {
            decision_ms: Some(ms),
            time_bank_ms: args.time_bank_ms,
            autopilot_after: args.autopilot_after,
            ..Default::default()
        },
        None => pb::GameOptions {
            decision_ms: Some(DEFAULT_DECISION_MS),
            time_bank_ms: Some(args.time_bank_ms.unwrap_or(DEFAULT_TIME_BANK_MS)),
            autopilot_after: Some(args.autopilot_after.unwrap_or(DEFAULT_AUTOPILOT_AFTER)),
            ..Default::default()
        },
    };
    Some(options)
}

/// "seat 2" and its name, unless the server only named it "seat 2".
fn seat_text(seat: u32, name: &str) -> String {
    if name.is_empty() || name == format!("seat {seat}") {
        format!("seat {seat}")
    } else {
        format!("seat {seat} ({name})")
    }
}

/// `druids create`.
pub async fn create(server: &ServerAddr, args: CreateArgs) -> Result<(), CliError> {
    let start_from = match &args.from_replay {
        Some(path) => {
            let replay = read_replay_file(path)?;
            let actions = args.actions.unwrap_or(replay.actions.len() as u32);
            Some(pb::StartFrom {
                replay: Some(replay),
                actions,
            })
        }
        None => None,
    };
    let from = start_from.as_ref().and_then(|s| s.replay.as_ref());
    let (kind, players) = match from {
        Some(r) => (r.kind, r.players),
        None => (args.game.number(), args.players.unwrap_or_default()),
    };
    let claimed = (0..players)
        .filter(|s| !args.open_seats.contains(s))
        .count();
    if !args.names.is_empty() && args.names.len() != claimed && args.names.len() != players as usize
    {
        return Err(CliError::Usage(format!(
            "{} --name given: give one per claimed seat ({claimed}) or one per seat ({})",
            args.names.len(),
            players
        )));
    }
    let clock = clock(&args);
    let mut client = connect::connect(server).await?;
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind,
            players,
            seed: args.seed,
            options: Some(pb::GameOptions {
                start_seat: args.start_seat,
                max_turns: args.max_turns,
                decision_ms: clock.as_ref().and_then(|c| c.decision_ms),
                time_bank_ms: clock.as_ref().and_then(|c| c.time_bank_ms),
                autopilot_after: clock.as_ref().and_then(|c| c.autopilot_after),
                chance_script: Vec::new(),
                match_dice_gate: false,
            }),
            // Passed as given: the server takes one name per claimed seat or
            // one per seat.
            seat_names: args.names,
            open_seats: args.open_seats,
            request_id: String::new(),
            start_from,
        })
        .await?
        .into_inner();
    if let Some(c) = clock {
        eprintln!(
            "turn clock: {} a decision and a {} bank per seat{}; a seat its player leaves \
             is played by the clock's default actions (--decision-ms 0: no clock)",
            seconds(c.decision_ms.unwrap_or_default()),
            seconds(c.time_bank_ms.unwrap_or_default()),
            match c.autopilot_after {
                Some(n) if n > 0 => format!(", the autopilot after {n} timeouts in a row"),
                _ => String::new(),
            }
        );
    }
    let viewer = viewer_base(server, args.viewer.as_deref());
    let id = &reply.game_id;
    if args.json {
        let seats: Vec<_> = reply
            .seats
            .iter()
            .map(|s| {
                serde_json::json!({"seat": s.seat, "name": s.name, "token": s.token,
                    "viewer_url": seat_page(&viewer, id, &s.token)})
            })
            .collect();
        return outln!(
            "{}",
            serde_json::json!({"game_id": id, "seats": seats,
                "watch_url": format!("{viewer}/games/{id}")})
        );
    }
    outln!("game {id}")?;
    for s in &reply.seats {
        outln!("  {}: token {}", seat_text(s.seat, &s.name), s.token)?;
        outln!("    {}", seat_page(&viewer, id, &s.token))?;
    }
    outln!("  spectators: {viewer}/games/{id}")?;
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
    outln!("{}: token {}", seat_text(s.seat, &s.name), s.token)?;
    if reply.started {
        outln!("every seat is claimed: the game has started")?;
    }
    Ok(())
}

/// `ms` as the clock's summary says it: "60 s", "1.5 s", "0.25 s".
fn seconds(ms: u32) -> String {
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn clock_seconds_keep_their_fraction() {
        let shown: Vec<String> = [0, 250, 1000, 1500, 60_000, 100_000]
            .into_iter()
            .map(super::seconds)
            .collect();
        assert_eq!(shown, ["0 s", "0.25 s", "1 s", "1.5 s", "60 s", "100 s"]);
    }
}
