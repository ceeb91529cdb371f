//! One descriptor per game, as OpenSpiel's `GameType`: what clients, the
//! arena, practice games and the CLI need to know about a game without
//! playing it. The engine's own facts (name, player counts, whether dice
//! decide it) are read from its `impl Game`; the strategies from the one
//! list in `druids-bots`; only the words for people are written here.

use std::ops::RangeInclusive;

use druids_bots::{Searchable, Strategy};

use super::Kind;
use crate::pb;

/// What the registry writes about a game beyond its engine's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct About {
    /// Its number in the contract's `GameKind`.
    pub number: i32,
    /// Its name for people ("Die Dolmengötter").
    pub display_name: &'static str,
    /// What it is about, in a few sentences.
    pub summary: &'static str,
    /// Where its rules, with the project's decisions on what the rulebook
    /// leaves open, are written down: a path in the druids repository with
    /// the section's anchor.
    pub rules: &'static str,
}

/// Everything known about one game (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    kind: Kind,
    name: &'static str,
    min_players: usize,
    max_players: usize,
    dice_driven: bool,
    about: About,
}

impl Descriptor {
    /// The descriptor of game `kind`, whose engine is `G`. Registering a
    /// game needs an engine the search bots can play, so every built-in
    /// strategy plays every game.
    pub(super) fn of<G: Searchable>(kind: Kind, about: About) -> Descriptor {
        Descriptor {
            kind,
            name: G::NAME,
            min_players: G::MIN_PLAYERS,
            max_players: G::MAX_PLAYERS,
            dice_driven: G::DICE_DRIVEN,
            about,
        }
    }

    /// The game.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its `GameKind` number on the wire.
    pub fn number(&self) -> i32 {
        self.about.number
    }

    /// Its short stable name ("meduris", "dolmen"), the engine's `Game::NAME`:
    /// what people type (`druids create --game`, `meduris:4` pools, practice
    /// games).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its name for people.
    pub fn display_name(&self) -> &'static str {
        self.about.display_name
    }

    /// The fewest seats, the engine's `Game::MIN_PLAYERS`.
    pub fn min_players(&self) -> usize {
        self.min_players
    }

    /// The most seats, the engine's `Game::MAX_PLAYERS`.
    pub fn max_players(&self) -> usize {
        self.max_players
    }

    /// Every number of seats it is played with.
    pub fn players(&self) -> RangeInclusive<usize> {
        self.min_players..=self.max_players
    }

    /// Whether dice decide so much of a result that one game says little about
    /// the players (the engine's `Game::DICE_DRIVEN`): its rated arena matches
    /// are duplicate matches.
    pub fn dice_driven(&self) -> bool {
        self.dice_driven
    }

    /// What it is about, in a few sentences.
    pub fn summary(&self) -> &'static str {
        self.about.summary
    }

    /// Where its rules are written down (see [`About::rules`]).
    pub fn rules(&self) -> &'static str {
        self.about.rules
    }

    /// The built-in strategies that play it: all of them (see
    /// [`Descriptor::of`]).
    pub fn strategies(&self) -> &'static [Strategy] {
        &Strategy::ALL
    }

    /// Whether it has no messages of its own in the contract and is shown in
    /// the generic ones (`GenericValue`): the games whose kind the
    /// `GameKind` enum does not name.
    pub fn generic(&self) -> bool {
        self.kind.proto().is_none()
    }

    /// The descriptor as the contract's `GameType`.
    pub fn to_proto(&self) -> pb::GameType {
        pb::GameType {
            kind: self.number(),
            name: self.name.to_owned(),
            display_name: self.display_name().to_owned(),
            min_players: self.min_players as u32,
            max_players: self.max_players as u32,
            dice_driven: self.dice_driven,
            summary: self.summary().to_owned(),
            rules: self.rules().to_owned(),
            strategies: self
                .strategies()
                .iter()
                .map(|s| pb::BuiltInStrategy {
                    name: s.name().to_owned(),
                    description: s.description().to_owned(),
                })
                .collect(),
            generic: self.generic(),
        }
    }
}
