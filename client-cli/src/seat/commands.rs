//! `druids play` (a person at the terminal) and `druids bot` for one game's
//! seat (a built-in strategy or a program behind the bridge), and `druids
//! resign`, the seat giving up. The ladder's `druids bot --seek` is
//! [`crate::arena::ladder`].

use crate::args::{BotArgs, GameArgs};
use crate::connect::{self, CliError, ServerAddr};
use crate::output::outln;
use crate::output::{self, Style};
use crate::render;
use crate::retry::patiently;
use crate::seat::human::HumanChooser;
use crate::seat::keyboard;
use crate::seat::player::play_seat;
use crate::seat::result::outcome_line;
use crate::seat::strategy::SeatStrategy;
use druids_contract::pb;

/// The seat token `play` and `bot` need.
fn seat_token(game: &GameArgs, command: &str) -> Result<String, CliError> {
    game.token.clone().ok_or_else(|| {
        CliError::Usage(format!(
            "`druids {command}` needs a seat token: --token or DRUIDS_TOKEN"
        ))
    })
}

/// `druids play`: a person plays a seat in the terminal.
pub async fn play(server: &ServerAddr, game: GameArgs, compact: bool) -> Result<(), CliError> {
    let token = seat_token(&game, "play")?;
    let mut client = connect::connect(server).await?;
    let style = Style {
        compact,
        ..Style::for_stdout()
    };
    let (keys, left) = keyboard::start();
    let human = HumanChooser::new(client.clone(), &game.game_id, &token, style, keys);
    let r = tokio::select! {
        r = play_seat(&mut client, &game.game_id, &token, human, Some(style)) => r?,
        () = left.wait() => {
            // Left while another seat decides: there is no decision of this
            // seat's to describe, so the words cover both kinds of game.
            output::line(
                "you left the game. If it has a turn clock, the clock plays your seat when it \
                 must decide; if not, the game waits for it. Come back with `druids play` and \
                 the same --game-id and --token.",
            )?;
            return Ok(());
        }
    };
    match (&r.outcome, r.actions) {
        // Nothing was played here (the ranking above says how it ended).
        (Some(_), 0) => outln!("the game was already over; you made no decision"),
        _ => outln!("you made {} decisions", r.actions),
    }
}

/// `druids bot` for one game's seat: a built-in strategy or a program
/// (`--exec`) plays it until the game ends; the end is the one line every
/// way of playing prints ([`outcome_line`]).
pub async fn bot(server: &ServerAddr, args: BotArgs) -> Result<(), CliError> {
    let game = GameArgs {
        game_id: args.game_id.clone().ok_or_else(|| {
            CliError::Usage(
                "`druids bot` needs --game-id and a seat token, or --seek and an API key".into(),
            )
        })?,
        token: args.token.clone(),
    };
    let token = seat_token(&game, "bot")?;
    let mut client = connect::connect(server).await?;
    let game_id = &game.game_id;
    let r = SeatStrategy::of(&args)
        .play(server, &mut client, game_id, &token, 0)
        .await?;
    eprintln!("seat {} made {} decisions", r.seat, r.actions);
    outln!("{}", outcome_line(game_id, &r))
}

/// `druids resign`: the seat gives up, which ends the game; prints what
/// happened and the final ranking. The idempotency key is the same for every
/// call (a seat resigns once), so a retry, or running the command again
/// within the game's grace period, gets the first answer.
pub async fn resign(server: &ServerAddr, game: GameArgs) -> Result<(), CliError> {
    let token = seat_token(&game, "resign")?;
    let client = connect::connect(server).await?;
    let request = || {
        connect::authed(
            Some(&token),
            pb::ResignRequest {
                game_id: game.game_id.clone(),
                idempotency_key: "druids-resign".into(),
            },
        )
    };
    request()?;
    let reply = patiently("", || {
        let mut client = client.clone();
        let req = request().expect("checked above");
        async move { client.resign(req).await }
    })
    .await?;
    let style = Style::for_stdout();
    for e in &reply.events {
        outln!("{}", render::event(e, style))?;
        if let Some(pb::game_event::Body::GameFinished(f)) = &e.body {
            let outcome = f.outcome.clone().unwrap_or_default();
            output::text(render::ranking(&outcome, &[], None))?;
        }
    }
    Ok(())
}
