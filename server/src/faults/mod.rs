//! Faults on cue (`--test-faults`): the fault plans attached to test games
//! and their ledgers.
//!
//! A plan is keyed to a seat's call counts and to event seqs, never to the
//! wall clock, so that it fires at the same points on every run. It lives in
//! memory beside its game and touches nothing else: a call of a game without
//! a plan (every game when the mode is off) finds no entry here and goes on
//! as if this module did not exist. The ledger records every call the plan's
//! game receives with its answer, each fault that fired and each event stream
//! that ended, so that a test asserts on what the client did.
//!
//! [`plan`] checks a plan, [`firing`] decides when its faults fire (and
//! [`point`] where in a stream),
//! [`ledger`] keeps what happened; this module is the registry of them.

mod firing;
mod ledger;
mod plan;
mod point;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use firing::Cue;
pub use ledger::{MAX_LEDGER, MAX_PAGE};
pub use plan::{MAX_FAULTS, Method, Plan, Point, StreamEnd};

use crate::auth::TokenHash;
use crate::error::{ServiceError, clip};
use crate::resets::Resets;
use ledger::Attached;

/// The plans of this server's test games (empty unless `--test-faults`).
pub struct Faults {
    enabled: bool,
    games: Mutex<HashMap<String, Attached>>,
    resets: Arc<Resets>,
}

impl Faults {
    /// The registry; `enabled` is `--test-faults`.
    pub fn new(enabled: bool) -> Faults {
        Faults {
            enabled,
            games: Mutex::new(HashMap::new()),
            resets: Arc::default(),
        }
    }

    /// The gRPC connections a plan may reset (`None` unless `--test-faults`).
    pub fn resets(&self) -> Option<Arc<Resets>> {
        self.enabled.then(|| Arc::clone(&self.resets))
    }

    /// Whether the server runs in test-faults mode.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Refuses every call when the mode is off.
    pub fn check_enabled(&self) -> Result<(), ServiceError> {
        match self.enabled {
            true => Ok(()),
            false => Err(ServiceError::TestFaultsOff),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Attached>> {
        // A panic while holding the lock leaves whole entries: keep serving.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `game_id` has a plan (the fast check before any ledger work).
    pub fn has_plan(&self, game_id: &str) -> bool {
        self.enabled && self.lock().contains_key(game_id)
    }

    /// Attaches the first plan of a game just created by its test key's
    /// holder; a retried create (the same key) leaves the plan and its
    /// ledger as they stand.
    pub fn attach_new(&self, game_id: &str, key: TokenHash, plan: Plan) {
        let mut games = self.lock();
        if games
            .get(game_id)
            .is_none_or(|attached| attached.key != key)
        {
            games.insert(game_id.to_owned(), Attached::new(key, plan));
        }
    }

    /// Replaces the plan of a test game (its ledger starts again).
    pub fn replace(&self, game_id: &str, key: &TokenHash, plan: Plan) -> Result<(), ServiceError> {
        let mut games = self.lock();
        let attached = Self::owned(&mut games, game_id, key)?;
        *attached = Attached::new(attached.key, plan);
        Ok(())
    }

    /// Checks that `key` is the test key of game `game_id`.
    pub fn check_key(&self, game_id: &str, key: &TokenHash) -> Result<(), ServiceError> {
        Self::owned(&mut self.lock(), game_id, key).map(|_| ())
    }

    fn owned<'a>(
        games: &'a mut HashMap<String, Attached>,
        game_id: &str,
        key: &TokenHash,
    ) -> Result<&'a mut Attached, ServiceError> {
        // One answer whether the game is no test game or the key is not
        // its test key: a stranger's token learns nothing of which games
        // are test games.
        match games.get_mut(game_id) {
            Some(attached) if attached.key.matches(key) => Ok(attached),
            _ => Err(ServiceError::TestKeyUnknown(clip(game_id))),
        }
    }
}

#[cfg(test)]
mod tests {
    use druids_contract::pb;
    use druids_engine::Seat;

    use super::*;

    #[test]
    fn the_nth_call_of_its_seat_fires_once() {
        let faults = Faults::new(true);
        let p = pb::FaultPlan {
            faults: vec![pb::Fault {
                seat: 1,
                kind: Some(pb::fault::Kind::LoseAnswer(pb::LoseAnswerFault { nth: 2 })),
            }],
        };
        let key = TokenHash::of("k");
        faults.attach_new("g", key, Plan::parse(&p, 2).unwrap());
        let seat = Some(Seat(1));
        let cue = |seat, method| faults.cue("g", seat, method, (0, 0));
        assert!(matches!(cue(Some(Seat(0)), Method::Submit), Cue::Pass));
        assert!(matches!(cue(seat, Method::Submit), Cue::Pass));
        assert!(matches!(cue(seat, Method::Legal), Cue::Pass));
        assert!(matches!(cue(seat, Method::Submit), Cue::LoseAnswer(0)));
        assert!(matches!(cue(seat, Method::Submit), Cue::Pass));
        assert!(matches!(
            faults.cue("other", seat, Method::Submit, (0, 0)),
            Cue::Pass
        ));
        let ledger = faults.ledger("g", &TokenHash::of("k"), 0, 0).unwrap();
        assert_eq!(ledger.entries.len(), 1);
        assert!(faults.ledger("g", &TokenHash::of("x"), 0, 0).is_err());
    }
}
