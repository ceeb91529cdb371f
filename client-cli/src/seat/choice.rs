//! What a seat's chooser (a person, a built-in bot, a random seat) is and
//! what it answers, apart from the loop that asks it, so that choosers and
//! the loop depend on this and not on each other.

use druids_contract::pb;

use crate::connect::CliError;

/// What a chooser submits.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// An entry of the default legal list, by its id.
    Id(u32),
    /// A full action (e.g. a payment found only in the `all_payments` list).
    Action(pb::Action),
}

/// How a seat chooses among its legal actions.
pub trait Chooser {
    /// Whether [`Chooser::choose`] needs the seat's state (else it may get a
    /// default `StateView`). A chooser that needs it gets the state of the
    /// same version as the legal actions.
    const NEEDS_STATE: bool = false;

    /// What to submit for the decision `legal` (never empty) of `version`,
    /// `None` to quit.
    fn choose(
        &mut self,
        state: &pb::StateView,
        version: u64,
        legal: &[pb::LegalAction],
    ) -> impl std::future::Future<Output = Result<Option<Choice>, CliError>>;

    /// Told when the seat starts deciding (its legal list is read next) and
    /// when it is done (its choice submitted, or none).
    fn deciding(&mut self, _now: bool) {}
}

/// The id of entry `i` of the default list (ids number it from 0; an entry
/// without one is submitted as its action).
pub fn choice_of(legal: &[pb::LegalAction], i: usize) -> Choice {
    match legal[i].id {
        Some(id) => Choice::Id(id),
        None => Choice::Action(legal[i].action.clone().unwrap_or_default()),
    }
}
