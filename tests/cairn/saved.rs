//! Cairn serialised and restored exactly (`druids-engine`'s `serde`
//! feature), the offerings and the die's generator included. What is
//! restored is untrusted input, checked to be a position the rules can play
//! on before it becomes a [`Cairn`], as every game's is.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Cairn, OFFERINGS};
use crate::{ChanceMode, Game};

impl Serialize for Cairn {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Cairn::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for Cairn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Cairn, D::Error> {
        let game = Cairn::deserialize(deserializer)?;
        check(&game)
            .map_err(|what| serde::de::Error::custom(format!("not a Cairn position: {what}")))?;
        Ok(game)
    }
}

/// Why `game` is no position the rules can play on, if it is not.
fn check(game: &Cairn) -> Result<(), &'static str> {
    let n = game.seats.len();
    if !(Cairn::MIN_PLAYERS..=Cairn::MAX_PLAYERS).contains(&n) {
        return Err("not 2 to 4 seats");
    }
    if game.active.index() >= n
        || usize::from(game.options.start_seat) >= n
        || game.options.max_turns == 0
    {
        return Err("a seat or an option out of range");
    }
    // Bounds far above any game's, so that no sum overflows.
    let small = |k: u32| k <= 1_000_000;
    if game.seats.iter().any(|&(cairn, offering)| {
        !small(cairn) || offering.is_some_and(|o| !OFFERINGS.contains(&o))
    }) || !small(game.pile)
        || !small(game.turns)
    {
        return Err("a cairn, an offering or a count out of range");
    }
    if game.last_die.is_some_and(|d| !(2..=6).contains(&d))
        || (game.rolling && (game.mode != ChanceMode::Explicit || game.over.is_some()))
    {
        return Err("the die is out of range");
    }
    Ok(())
}
