//! A position's legal-action list, built once outside the room's lock and
//! read in pages ([`super::LegalList`]).
//!
//! The list with every payment can hold over 100,000 entries; encoding and
//! wording them is most of its cost, so the list keeps the engine's compact
//! actions and a page encodes only its own entries.

use std::collections::HashMap;
use std::ops::Range;

use druids_contract::codec::ProtoGame;
use druids_contract::pb;
use prost::Message;

use super::LegalList;

/// The legal actions of one position, in the engine's form.
pub(super) struct Built<G: ProtoGame> {
    actions: Vec<G::Action>,
    /// The list's ids ([`super::HostedGame::legal_source`]): by position
    /// for the default list (`None`), looked up in it for the list with
    /// every payment.
    ids: Option<Vec<Option<u32>>>,
}

impl<G: ProtoGame> Built<G> {
    /// The list of `position` (none before the game starts).
    pub(super) fn of(position: Option<&G>, all_payments: bool) -> Self {
        let mut actions = Vec::new();
        let Some(game) = position else {
            return Built { actions, ids: None };
        };
        game.legal_actions(&mut actions);
        if !all_payments {
            return Built { actions, ids: None };
        }
        let default: HashMap<Vec<u8>, u32> = actions
            .iter()
            .enumerate()
            .map(|(i, a)| (G::encode_action(a).encode_to_vec(), i as u32))
            .collect();
        let mut all = Vec::new();
        game.legal_actions_all_payments(&mut all);
        let ids = all
            .iter()
            .map(|a| default.get(&G::encode_action(a).encode_to_vec()).copied())
            .collect();
        Built {
            actions: all,
            ids: Some(ids),
        }
    }
}

impl<G: ProtoGame> LegalList for Built<G> {
    fn len(&self) -> usize {
        self.actions.len()
    }

    fn entries(&self, range: Range<usize>) -> Vec<pb::LegalAction> {
        let end = range.end.min(self.actions.len());
        let start = range.start.min(end);
        (start..end)
            .map(|i| {
                let action = &self.actions[i];
                pb::LegalAction {
                    id: match &self.ids {
                        None => Some(i as u32),
                        Some(ids) => ids[i],
                    },
                    action: Some(G::encode_action(action)),
                    description: described(action),
                }
            })
            .collect()
    }
}

/// The engine's wording of `x`, written into a string sized for a typical
/// line at once (`to_string` grows it several times: descriptions are most
/// of what a legal-action list costs to build).
pub(super) fn described(x: &impl std::fmt::Display) -> String {
    use std::fmt::Write;
    let mut line = String::with_capacity(96);
    write!(line, "{x}").expect("writing to a String cannot fail");
    line
}
