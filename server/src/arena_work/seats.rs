//! Whose key acts for which seat of an arena game, on a node that does not
//! hold the arena: read from the database ([`crate::store::ArenaLease`]) off
//! the async workers before a call is served, then answered from memory. A
//! bot's key is read again after [`KEY_FRESH`] (so a revocation reaches
//! every node within it); a match's seating never changes, whether it is
//! over is read again at each look-up until it is.

use std::time::{Duration, Instant};

use dashmap::DashMap;
use druids_engine::Seat;
use std::sync::Arc;

use crate::auth::TokenHash;
use crate::store::{ArenaLease, MatchGame};

/// How long a key's bot is trusted without reading it again.
const KEY_FRESH: Duration = Duration::from_secs(1);
/// Entries not used for this long are forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(60);

/// What this node read of the arena's seats.
pub(super) struct Seats {
    lease: Arc<dyn ArenaLease>,
    /// The bot of each key looked up (none: no bot, or revoked).
    keys: DashMap<TokenHash, (Option<String>, Instant)>,
    /// The match of each game looked up (none: not an arena game).
    games: DashMap<String, (Option<MatchGame>, Instant)>,
}

impl Seats {
    pub(super) fn new(lease: Arc<dyn ArenaLease>) -> Seats {
        Seats {
            lease,
            keys: DashMap::new(),
            games: DashMap::new(),
        }
    }

    /// Reads game `game_id`'s match (unless known to be over) and key
    /// `token`'s bot (unless read lately). A failed read leaves nothing: the
    /// key acts for no seat, the seed stays secret. Blocks on the database.
    pub(super) fn look_up(&self, game_id: &str, token: Option<&TokenHash>) {
        let over = self
            .games
            .get(game_id)
            .is_some_and(|g| g.0.as_ref().is_none_or(|m| m.finished));
        if !over {
            match self.lease.match_of_game(game_id) {
                Ok(m) => {
                    self.games.insert(game_id.to_owned(), (m, Instant::now()));
                }
                Err(e) => {
                    tracing::warn!(game_id, "cannot read an arena game's match: {e}");
                    self.games.remove(game_id);
                }
            }
        }
        let Some(token) = token else { return };
        if self
            .keys
            .get(token)
            .is_some_and(|k| k.1.elapsed() < KEY_FRESH)
        {
            return;
        }
        match self.lease.bot_of_key(token) {
            Ok(bot) => {
                self.keys.insert(*token, (bot, Instant::now()));
            }
            Err(e) => {
                tracing::warn!("cannot read a bot's key: {e}");
                self.keys.remove(token);
            }
        }
    }

    /// The seat `token`'s bot plays in game `game_id`, as last read.
    pub(super) fn seat_in(&self, game_id: &str, token: &TokenHash) -> Option<Seat> {
        let bot = self.keys.get(token)?.0.clone()?;
        let game = self.games.get(game_id)?;
        let m = game.0.as_ref()?;
        let k = m.bots.len();
        let first = m.bots.iter().position(|b| *b == bot)?;
        // Game i seats the first game's seat order rotated by i.
        let seat = (first + k - m.index as usize % k) % k;
        Some(Seat(seat as u8))
    }

    /// Whether key `token` was last read as a bot's.
    pub(super) fn known_live(&self, token: &TokenHash) -> bool {
        self.keys.get(token).is_some_and(|k| k.0.is_some())
    }

    /// Whether key `token` was last read as no bot's (rotated or revoked).
    pub(super) fn known_dead(&self, token: &TokenHash) -> bool {
        self.keys.get(token).is_some_and(|k| k.0.is_none())
    }

    /// Whether game `game_id`'s match is still being played (or unknown).
    pub(super) fn hides_seed(&self, game_id: &str) -> bool {
        match self.games.get(game_id) {
            Some(g) => g.0.as_ref().is_some_and(|m| !m.finished),
            None => true,
        }
    }

    /// Forgets entries unused for a while.
    pub(super) fn forget_old(&self) {
        self.keys.retain(|_, k| k.1.elapsed() < FORGET_AFTER);
        self.games.retain(|_, g| g.1.elapsed() < FORGET_AFTER);
    }
}
