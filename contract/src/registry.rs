//! The list of games, kept in one place.
//!
//! A game is a [`Kind`]: parsed once at the edge (from a request's
//! `GameKind` number, or a name typed by a person) and carried as that
//! inward, so no raw number travels through the server and no unknown kind
//! can default to some game. Everything in druids that does something per
//! game (the host, the CLI, the bots over the network, the fuzz tests, local
//! self-play) dispatches through [`with_game!`], which binds the engine type
//! of a `Kind`, as OpenSpiel's `REGISTER_SPIEL_GAME` does; everything that
//! needs a fact about a game (its name, its player counts, whether dice
//! decide it, the strategies that play it) reads its [`Descriptor`], like
//! OpenSpiel's `GameType`. A new game adds one variant, one arm in
//! `with_game!` and its descriptor's words here.
//!
//! Test builds add the games of the test tree ([`TestGame`], behind the
//! `test-game` feature) the same way, as [`Kind::Testing`]: a server hosts
//! them only when told to, and [`Kind::ALL`] never lists them.

mod descriptor;

pub use descriptor::{About, Descriptor};

use crate::pb;

/// A game built into this build. The only way to name a game inward of the edge:
/// made from the wire's `GameKind` number by [`Kind::from_number`] (or
/// [`Kind::try_from`] a [`pb::GameKind`]), from a short name by
/// [`Kind::from_name`], so holding one means the game exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Meduris (HABA).
    Meduris,
    /// Die Dolmengötter (eggertspiele).
    Dolmen,
    /// A game of the test tree, in test builds only (with the `test-game`
    /// feature; without it [`TestGame`] has no value, so neither has this).
    Testing(TestGame),
}

/// The games of the test tree, registered like any game but built only with
/// the `test-game` feature (the test builds turn it on); none otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TestGame {
    /// Cairn (`tests/cairn/`): a few rules, one die, a hidden offering.
    #[cfg(feature = "test-game")]
    Cairn,
}

/// Runs `$body` with the type name `$g` bound to the engine of `$kind` (a
/// [`Kind`]), and gives what `$body` gives.
///
/// ```
/// use druids_contract::{registry::Kind, with_game};
/// use druids_engine::Game;
/// let name = with_game!(Kind::Dolmen, |G| G::NAME);
/// assert_eq!(name, "dolmen");
/// ```
#[macro_export]
macro_rules! with_game {
    ($kind:expr, |$g:ident| $body:expr) => {{
        match $kind {
            $crate::registry::Kind::Meduris => {
                #[allow(dead_code)]
                type $g = $crate::engine::meduris::Meduris;
                $body
            }
            $crate::registry::Kind::Dolmen => {
                #[allow(dead_code)]
                type $g = $crate::engine::dolmen::Dolmen;
                $body
            }
            $crate::registry::Kind::Testing(game) => {
                $crate::__with_test_game!(game, |$g| $body)
            }
        }
    }};
}

/// `with_game!` for the games of the test tree: one arm per [`TestGame`].
#[cfg(feature = "test-game")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_test_game {
    ($game:expr, |$g:ident| $body:expr) => {
        match $game {
            $crate::registry::TestGame::Cairn => {
                #[allow(dead_code)]
                type $g = $crate::engine::cairn::Cairn;
                $body
            }
        }
    };
}

/// Without the `test-game` feature there is no test game to bind.
#[cfg(not(feature = "test-game"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_test_game {
    ($game:expr, |$g:ident| $body:expr) => {
        match $game {}
    };
}

/// A `GameKind` number that names no game of this build (0: none given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", unknown_kind_message(*.0))]
pub struct UnknownKind(pub i32);

fn unknown_kind_message(kind: i32) -> String {
    if kind == 0 {
        return "kind is required: no game was named (ListGameTypes lists them)".to_owned();
    }
    format!("kind {kind} is not a game of this server (ListGameTypes lists them)")
}

impl Kind {
    /// The games of the contract, in the order of their `GameKind` numbers:
    /// what every server hosts and clients offer.
    pub const ALL: &'static [Kind] = &[Kind::Meduris, Kind::Dolmen];

    /// The games of the test tree built into this build (none without the
    /// `test-game` feature): hosted only by servers told to.
    pub const TESTING: &'static [Kind] = &[
        #[cfg(feature = "test-game")]
        Kind::Testing(TestGame::Cairn),
    ];

    /// The games of the contract (see [`Kind::ALL`]).
    pub fn all() -> impl Iterator<Item = Kind> {
        Kind::ALL.iter().copied()
    }

    /// Every game built into this build: the contract's, then the test
    /// tree's ([`Kind::TESTING`]).
    pub fn built() -> impl Iterator<Item = Kind> {
        Kind::ALL.iter().chain(Kind::TESTING).copied()
    }

    /// The game's `GameKind` number on the wire.
    pub fn number(self) -> i32 {
        about(self).number
    }

    /// The game built into this build whose `GameKind` number is `number`:
    /// the parse stored records and replays go through (a server parses
    /// requests against the games it hosts). `GAME_KIND_UNSPECIFIED` (0) is
    /// no game.
    pub fn from_number(number: i32) -> Result<Kind, UnknownKind> {
        Kind::built()
            .find(|k| k.number() == number)
            .ok_or(UnknownKind(number))
    }

    /// The game built into this build whose short name
    /// ([`Descriptor::name`]) is `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::built().find(|k| k.name() == name)
    }

    /// The game's value of the contract's `GameKind` enum; `None` for a game
    /// that has only its number (one without messages of its own, shown in
    /// the contract's generic messages).
    pub fn proto(self) -> Option<pb::GameKind> {
        pb::GameKind::try_from(self.number()).ok()
    }

    /// A stable label of the game (metrics, logs): its name in the contract's
    /// `GameKind` enum ("GAME_KIND_MEDURIS"), or its short name if it has
    /// only a number.
    pub fn label(self) -> &'static str {
        self.proto().map_or(self.name(), |k| k.as_str_name())
    }

    /// Everything known about the game.
    pub fn descriptor(self) -> Descriptor {
        with_game!(self, |G| Descriptor::of::<G>(self, about(self)))
    }

    /// The game's short stable name ("meduris", "dolmen"): its engine's
    /// `Game::NAME`.
    pub fn name(self) -> &'static str {
        self.descriptor().name()
    }
}

impl TryFrom<pb::GameKind> for Kind {
    type Error = UnknownKind;

    /// The game of an enum value of the contract (`Unspecified` is none).
    fn try_from(kind: pb::GameKind) -> Result<Kind, UnknownKind> {
        Kind::from_number(kind as i32)
    }
}

impl std::fmt::Display for Kind {
    /// The short name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The descriptors of every game of this build, in [`Kind::ALL`]'s order.
pub fn descriptors() -> impl Iterator<Item = Descriptor> {
    Kind::all().map(Kind::descriptor)
}

/// `ListGameTypes`' answer for a server hosting `kinds`.
pub fn game_types(kinds: impl IntoIterator<Item = Kind>) -> pb::ListGameTypesResponse {
    pb::ListGameTypesResponse {
        game_types: kinds
            .into_iter()
            .map(|k| k.descriptor().to_proto())
            .collect(),
    }
}

/// What the registry says of each game beyond its engine's facts.
fn about(kind: Kind) -> About {
    match kind {
        Kind::Meduris => About {
            number: pb::GameKind::Meduris as i32,
            display_name: "Meduris",
            summary: "Build huts and temples on the ring of fields around the druid's mountain. \
                Workers on the four high plateaus gather wood, wool, copper and stone; a die \
                gives everyone small yields each turn. Each hut takes its area's rune stone, and \
                the druid walks the ring asking the huts' owners for offerings, which score by \
                the size of the settlement. Goods in hand are secret.",
            rules: "README.md#meduris-rules-decisions",
        },
        Kind::Dolmen => About {
            number: pb::GameKind::Dolmen as i32,
            display_name: "Die Dolmengötter",
            summary: "Druids walk, jump and fly between the 28 stone circles of a board without \
                edges, leaving stones behind them. Whoever gains the majority of stones in a \
                circle may put a dolmen on its stack, and whoever equals it one under; a \
                complete circle scores every dolmen in its stack, its value times the \
                multiplier of its place. The values of a player's dolmens are secret until \
                they score. No dice.",
            rules: "README.md#die-dolmengötter-rules-decisions",
        },
        Kind::Testing(game) => match game {
            #[cfg(feature = "test-game")]
            TestGame::Cairn => About {
                number: 1000,
                display_name: "Cairn (a test game)",
                summary: "A game of the test tree, never hosted in earnest: each seat hides an \
                    offering worth 1 to 3, then rolls one die onto its pile as often as it \
                    dares, losing the pile on a 1, or stops to add it to its cairn. The first \
                    cairn of 20 ends the game; cairn plus offering scores.",
                rules: "tests/cairn/README.md#cairn-rules",
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_engine_and_a_unique_name() {
        let names: Vec<_> = Kind::all().map(Kind::name).collect();
        assert_eq!(names, ["meduris", "dolmen"]);
        for k in Kind::all() {
            assert_eq!(Kind::from_name(k.name()), Some(k));
            assert_eq!(Kind::from_number(k.number()), Ok(k));
            assert_eq!(k.proto().map(Kind::try_from), Some(Ok(k)));
        }
        assert_eq!(Kind::from_name("chess"), None);
        assert_eq!(
            Kind::try_from(pb::GameKind::Unspecified),
            Err(UnknownKind(0))
        );
        assert_eq!(Kind::from_number(7), Err(UnknownKind(7)));
    }

    #[test]
    fn descriptors_read_their_engines_and_the_strategy_list() {
        use druids_engine::Game;
        let d = Kind::Dolmen.descriptor();
        type D = druids_engine::dolmen::Dolmen;
        assert_eq!(d.kind(), Kind::Dolmen);
        assert_eq!((d.name(), d.display_name()), (D::NAME, "Die Dolmengötter"));
        assert_eq!(d.players(), D::MIN_PLAYERS..=D::MAX_PLAYERS);
        assert_eq!(d.players(), 2..=5);
        assert!(!d.dice_driven());
        let m = Kind::Meduris.descriptor();
        assert_eq!(m.players(), 2..=4);
        assert!(m.dice_driven());
        let proto = m.to_proto();
        assert_eq!(proto.kind, pb::GameKind::Meduris as i32);
        let names: Vec<_> = proto.strategies.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["random", "greedy", "mcts"]);
        // The arena pairs bots: every game seats two or more.
        for d in Kind::built().map(Kind::descriptor) {
            assert!(d.max_players() >= 2 && d.min_players() <= d.max_players());
            assert_eq!(d.strategies(), druids_bots::Strategy::ALL);
            assert!(!d.summary().is_empty());
        }
    }

    #[test]
    fn test_games_are_generic_numbered_apart_and_never_listed() {
        // This crate's tests build the test game (a dev-dependency turns the
        // feature on), so the checks below are never empty.
        assert!(!Kind::TESTING.is_empty());
        for &k in Kind::TESTING {
            assert!(!Kind::ALL.contains(&k));
            let d = k.descriptor();
            assert!(d.generic() && k.number() >= 1000 && k.proto().is_none());
            assert_eq!(Kind::from_number(k.number()), Ok(k));
            assert_eq!(Kind::from_name(d.name()), Some(k));
            assert_eq!(k.label(), d.name());
        }
        assert!(Kind::all().all(|k| !k.descriptor().generic()));
        let mut numbers: Vec<i32> = Kind::built().map(Kind::number).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), Kind::built().count());
    }

    /// GitHub's anchor of a Markdown heading.
    fn anchor(heading: &str) -> String {
        heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    #[test]
    fn every_rules_link_names_a_section_of_a_file_in_the_repository() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for d in Kind::built().map(Kind::descriptor) {
            let (file, section) = d.rules().split_once('#').expect("a file and a section");
            let text = std::fs::read_to_string(root.join(file))
                .unwrap_or_else(|e| panic!("{}: {file}: {e}", d.name()));
            let anchors: Vec<String> = text
                .lines()
                .filter_map(|l| l.strip_prefix('#'))
                .map(|h| anchor(h.trim_start_matches('#')))
                .collect();
            assert!(
                anchors.iter().any(|a| a == section),
                "{}: no section #{section} in {file}",
                d.name()
            );
        }
    }
}
