//! `druids create` and `druids join`: a new game and its seats' tokens, or a
//! claimed open seat; each with the web viewer's page of the seat.
//!
//! A game created here has a turn clock unless `--decision-ms 0` says
//! otherwise ([`DEFAULT_DECISION_MS`] a decision, a bank of
//! [`DEFAULT_TIME_BANK_MS`], the autopilot after [`DEFAULT_AUTOPILOT_AFTER`]
//! timeouts in a row): a seat whose person leaves `druids play` is then
//! played by the clock's default actions instead of stalling the game.

use clap::Args;
use druids_contract::pb;

use crate::args::game_kind;
use crate::connect::{self, CliError, ServerAddr};
use crate::output::outln;

#[derive(Args)]
pub struct CreateArgs {
    /// Which game.
    #[arg(long, value_parser = game_kind(), default_value = "meduris")]
    pub game: pb::GameKind,
    /// Number of seats.
    #[arg(long)]
    pub players: u32,
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
    /// Turn clock: milliseconds per decision (0: no clock; the game then
    /// waits for ever for a seat whose player left).
    #[arg(long, default_value_t = DEFAULT_DECISION_MS)]
    pub decision_ms: u32,
    /// Turn clock: reserve per seat, in milliseconds.
    #[arg(long, default_value_t = DEFAULT_TIME_BANK_MS)]
    pub time_bank_ms: u32,
    /// Turn clock: consecutive timeouts before the autopilot plays the seat
    /// (until its player answers again; 0: never).
    #[arg(long, default_value_t = DEFAULT_AUTOPILOT_AFTER)]
    pub autopilot_after: u32,
    /// The web viewer's address, for the seats' pages [default: the
    /// server's host, port 8080, as `druids-server` serves it].
    #[arg(long, env = "DRUIDS_VIEWER")]
    pub viewer: Option<String>,
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
                decision_ms: (args.decision_ms > 0).then_some(args.decision_ms),
                time_bank_ms: (args.decision_ms > 0).then_some(args.time_bank_ms),
                autopilot_after: (args.decision_ms > 0 && args.autopilot_after > 0)
                    .then_some(args.autopilot_after),
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
    if args.decision_ms > 0 {
        eprintln!(
            "turn clock: {} s a decision and a {} s bank per seat{}; a seat its player leaves \
             is played by the clock's default actions (--decision-ms 0: no clock)",
            args.decision_ms.div_ceil(1000),
            args.time_bank_ms / 1000,
            if args.autopilot_after > 0 {
                format!(
                    ", the autopilot after {} timeouts in a row",
                    args.autopilot_after
                )
            } else {
                String::new()
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
