//! `druids state` and `druids watch`: a game as its board, and its events as
//! they happen, one line each.

use druids_contract::pb;

use crate::args::GameArgs;
use crate::connect::{self, CliError, Client, ServerAddr};
use crate::output::outln;
use crate::output::{self, Style};
use crate::render;
use crate::seat::follow::{AsyncEventFn, follow, get_state};

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
