//! CreateGame's `start_from`: a game set up as another game's replay and
//! played on from one of its steps. The replay fills the set-up, and its
//! actions are checked to play on a fresh game before anything is stored.

use druids_contract::{Kind, pb};
use druids_engine::Seat;

use crate::error::ServiceError;
use crate::hosted_game::Choice;

/// Takes a `start_from` out of `req`, filling the game's set-up from its
/// replay; returns the actions to apply (none without `start_from`).
pub(super) fn start_from(
    req: &mut pb::CreateGameRequest,
) -> Result<Vec<pb::ReplayAction>, ServiceError> {
    let Some(start) = req.start_from.take() else {
        return Ok(Vec::new());
    };
    let replay = start.replay.ok_or_else(|| {
        ServiceError::invalid("start_from.replay", "start_from.replay is required")
    })?;
    let clash = |field: &'static str| {
        ServiceError::invalid(
            field,
            format!("{field} differs from the replay's: leave it unset with start_from"),
        )
    };
    if req.kind != 0 && req.kind != replay.kind {
        return Err(clash("kind"));
    }
    if req.players != 0 && req.players != replay.players {
        return Err(clash("players"));
    }
    if req.seed.is_some_and(|s| s != replay.seed) {
        return Err(clash("seed"));
    }
    if !req.open_seats.is_empty() {
        return Err(ServiceError::invalid(
            "open_seats",
            "a game started from a replay has every seat claimed: leave open_seats empty",
        ));
    }
    // Within the replay's actions ([`crate::bounds`]).
    let n = start.actions as usize;
    req.kind = replay.kind;
    req.players = replay.players;
    req.seed = Some(replay.seed);
    // Options given replace the replay's, but its dice script is the
    // replay's dice: kept unless the options give one of their own.
    let replayed = replay.options.unwrap_or_default();
    req.options = Some(match req.options.take() {
        Some(mut options) => {
            if options.chance_script.is_empty() {
                options.chance_script = replayed.chance_script;
            }
            options
        }
        None => replayed,
    });
    let mut actions = replay.actions;
    actions.truncate(n);
    Ok(actions)
}

/// Checks that `prefix` plays on a fresh game of this set-up, before anything
/// is stored, so that a bad replay creates nothing.
pub(super) fn check_prefix(
    kind: Kind,
    players: usize,
    seed: u64,
    options: &pb::GameOptions,
    prefix: &[pb::ReplayAction],
) -> Result<(), ServiceError> {
    let mut game = crate::hosted_game::new_game(kind, players, seed, options)?;
    game.start();
    for (i, a) in prefix.iter().enumerate() {
        let action = a.action.as_ref().ok_or_else(|| {
            ServiceError::invalid(
                "start_from.replay",
                format!("replay action {i} has no action"),
            )
        })?;
        let seat = u8::try_from(a.seat)
            .map_err(|_| ServiceError::invalid("start_from.replay", "a seat is out of range"))?;
        game.apply(Seat(seat), &Choice::Action(action.clone()), None)
            .map_err(|e| {
                ServiceError::invalid(
                    "start_from.replay",
                    format!(
                        "replay action {i} does not apply: {e} (the replay is played on a game set up with its seed and the options in effect: options that change the rules or the dice make its actions differ)"
                    ),
                )
            })?;
    }
    Ok(())
}
