//! What each call costs whom: reads and setups charged to the caller's seat
//! token or address ([`crate::quota`]), once, on the node the call arrived
//! at. A made-up token buys no budget of its own, lists of games are no
//! seat's reads, and work done before a token or game is known to be real
//! (a refusal, a lookup in the store) costs the address.

use super::{Caller, Result, Service};
use crate::auth::TokenHash;
use crate::quota::Read;

impl Service {
    /// Charges a read to `caller` (a forwarded call was charged where it
    /// arrived): to its token's budget if the token is one this node knows
    /// (a seat's, or a bot's key), else to its address's, so that a made-up
    /// token buys no budget of its own.
    pub(super) fn read(&self, read: Read, caller: &Caller) -> Result<()> {
        let known = |t: &&TokenHash| self.rooms.knows_token(t) || self.arena.is_bot_key(t);
        self.charge(read, caller, caller.token.as_ref().filter(known))
    }

    /// Charges a read of no game in particular (ListGames, ListGameTypes) to
    /// `caller`'s address, whatever token it sends: a seat's budget is for
    /// its game, and tokens are cheap to make by creating games.
    pub(super) fn read_of_no_game(&self, read: Read, caller: &Caller) -> Result<()> {
        self.charge(read, caller, None)
    }

    /// Charges a read of a game served by another node to `caller`'s token
    /// as it stands: that node checks the token.
    pub(super) fn read_elsewhere(&self, read: Read, caller: &Caller) -> Result<()> {
        self.charge(read, caller, caller.token.as_ref())
    }

    /// Charges the address of `caller` a read for work done before its
    /// token or game is known to be real: a game read back from the store,
    /// or a token refused.
    pub(super) fn lookup(&self, caller: &Caller) -> Result<()> {
        self.charge(Read::One, caller, None)
    }

    fn charge(&self, read: Read, caller: &Caller, token: Option<&TokenHash>) -> Result<()> {
        if caller.forwarded {
            return Ok(());
        }
        self.quotas
            .read(read, caller.peer, token, self.clock.now_ms())
    }

    /// Charges a CreateGame or JoinGame to `caller`.
    pub(super) fn setup(&self, caller: &Caller) -> Result<()> {
        if caller.forwarded {
            return Ok(());
        }
        self.quotas.setup(caller.peer, self.clock.now_ms())
    }
}
