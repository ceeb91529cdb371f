//! The games a server hosts: the contract's, and in test builds, when a test
//! asks for them, the games of the test tree (`druids_contract::registry`'s
//! `Kind::TESTING`). The kind of every request is parsed against them at
//! the edge, and `ListGameTypes` lists them; a stored game is rebuilt
//! whatever its kind, as long as this build has its engine.

use druids_contract::Kind;
use druids_contract::pb;
use druids_contract::registry::UnknownKind;

/// The games one server hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalog {
    kinds: Vec<Kind>,
}

impl Default for Catalog {
    /// The games of the contract.
    fn default() -> Self {
        Catalog {
            kinds: Kind::all().collect(),
        }
    }
}

impl Catalog {
    /// The games of the contract and those of the test tree built into this
    /// build (none without `druids-contract`'s `test-game` feature).
    pub fn with_test_games() -> Catalog {
        Catalog {
            kinds: Kind::built().collect(),
        }
    }

    /// The games, in the order of their kinds.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.kinds.iter().copied()
    }

    /// The hosted game whose `GameKind` number is `number`.
    pub fn parse(&self, number: i32) -> Result<Kind, UnknownKind> {
        Kind::from_number(number)
            .ok()
            .filter(|k| self.kinds.contains(k))
            .ok_or(UnknownKind(number))
    }

    /// The hosted game whose short name is `name`.
    pub fn by_name(&self, name: &str) -> Option<Kind> {
        self.kinds().find(|k| k.name() == name)
    }

    /// `ListGameTypes`' answer.
    pub fn game_types(&self) -> pb::ListGameTypesResponse {
        druids_contract::registry::game_types(self.kinds())
    }
}
