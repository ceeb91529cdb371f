//! `druids create` and `druids join`: a new game and its seats' tokens, or a
//! claimed open seat.

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
    /// Turn clock: milliseconds per decision.
    #[arg(long)]
    pub decision_ms: Option<u32>,
    /// Turn clock: reserve per seat, in milliseconds.
    #[arg(long)]
    pub time_bank_ms: Option<u32>,
    /// Turn clock: consecutive timeouts before autopilot.
    #[arg(long)]
    pub autopilot_after: Option<u32>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
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
