//! The list of games, kept in one place.
//!
//! Everything in druids that does something per game (the host, the CLI, the
//! bots over the network, the fuzz tests, local self-play) dispatches through
//! [`with_game!`], which binds the engine type of a [`pb::GameKind`], as
//! OpenSpiel's `REGISTER_SPIEL_GAME` does. A new game adds one arm there; the
//! kinds themselves come from the contract's `GameKind` enum.

use crate::pb;

/// Runs `$body` with the type name `$g` bound to the engine of `$kind` (a
/// [`pb::GameKind`]); `None` for `GAME_KIND_UNSPECIFIED`.
///
/// ```
/// use druids_contract::{pb, with_game};
/// use druids_engine::Game;
/// let name = with_game!(pb::GameKind::Dolmen, |G| G::NAME);
/// assert_eq!(name, Some("dolmen"));
/// ```
#[macro_export]
macro_rules! with_game {
    ($kind:expr, |$g:ident| $body:expr) => {{
        match $kind {
            $crate::pb::GameKind::Meduris => {
                #[allow(dead_code)]
                type $g = $crate::engine::meduris::Meduris;
                Some($body)
            }
            $crate::pb::GameKind::Dolmen => {
                #[allow(dead_code)]
                type $g = $crate::engine::dolmen::Dolmen;
                Some($body)
            }
            $crate::pb::GameKind::Unspecified => None,
        }
    }};
}

/// Every game the contract knows, in the order of `GameKind`.
pub fn kinds() -> impl Iterator<Item = pb::GameKind> {
    (1..).map_while(|n| pb::GameKind::try_from(n).ok())
}

/// The engine's short name of `kind` ("meduris", "dolmen").
pub fn name(kind: pb::GameKind) -> Option<&'static str> {
    use druids_engine::Game;
    with_game!(kind, |G| G::NAME)
}

/// Whether rated play of `kind` uses duplicate matches (its engine's
/// [`druids_engine::Game::DICE_DRIVEN`]).
pub fn rated_as_duplicates(kind: pb::GameKind) -> bool {
    use druids_engine::Game;
    with_game!(kind, |G| G::DICE_DRIVEN).unwrap_or(false)
}

/// The kind whose short name is `name`.
pub fn by_name(name: &str) -> Option<pb::GameKind> {
    kinds().find(|&k| self::name(k) == Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_engine_and_a_unique_name() {
        let names: Vec<_> = kinds().map(|k| name(k).expect("registered")).collect();
        assert_eq!(names, ["meduris", "dolmen"]);
        for k in kinds() {
            assert_eq!(by_name(name(k).unwrap()), Some(k));
        }
        assert_eq!(by_name("chess"), None);
        assert_eq!(name(pb::GameKind::Unspecified), None);
    }
}
