//! A test game's plan as attached, with its counters and its ledger: every
//! call the game receives with its answer, each fault that fired and each
//! event stream that ended, read back in pages by the test ([`Faults::ledger`]).

use std::collections::HashMap;
use std::time::Instant;

use druids_contract::pb;
use druids_engine::Seat;
use tokio::sync::watch;

use super::Faults;
use super::firing::Window;
use super::plan::{Method, Plan};
use crate::auth::TokenHash;
use crate::error::ServiceError;

/// Most entries a ledger keeps (later ones are counted as dropped).
pub const MAX_LEDGER: usize = 20_000;
/// Most entries in one GetLedger answer.
pub const MAX_PAGE: usize = 1000;

/// A game's plan with its counters and ledger.
pub(super) struct Attached {
    pub(super) key: TokenHash,
    pub(super) plan: Plan,
    started: Instant,
    pub(super) counts: HashMap<(Seat, Method), u32>,
    pub(super) windows: HashMap<(Seat, Method), Window>,
    /// Until when the game's server is "restarting", and by which fault.
    pub(super) down: Option<(Instant, u32)>,
    /// Counts the game's restarts: every stream of the game watches it.
    pub(super) restarts: watch::Sender<u64>,
    ledger: Vec<pb::LedgerEntry>,
    dropped: u64,
}

impl Attached {
    pub(super) fn new(key: TokenHash, plan: Plan) -> Attached {
        Attached {
            key,
            plan,
            started: Instant::now(),
            counts: HashMap::new(),
            windows: HashMap::new(),
            down: None,
            restarts: watch::Sender::new(0),
            ledger: Vec::new(),
            dropped: 0,
        }
    }

    pub(super) fn push(
        &mut self,
        seat: Option<Seat>,
        at: (u64, u64),
        entry: pb::ledger_entry::Entry,
    ) {
        if self.ledger.len() >= MAX_LEDGER {
            self.dropped += 1;
            return;
        }
        self.ledger.push(pb::LedgerEntry {
            index: self.ledger.len() as u64,
            at_ms: self.started.elapsed().as_millis() as u64,
            last_seq: at.0,
            version: at.1,
            seat: seat.map(|s| s.0.into()),
            entry: Some(entry),
        });
    }

    pub(super) fn fired(&mut self, index: u32, seat: Seat, at: (u64, u64), description: String) {
        self.plan.faults[index as usize].fired = true;
        self.push(
            Some(seat),
            at,
            pb::ledger_entry::Entry::Fault(pb::LedgerFault {
                fault: index,
                description,
            }),
        );
    }
}

impl Faults {
    /// A page of the ledger of `game_id`.
    pub fn ledger(
        &self,
        game_id: &str,
        key: &TokenHash,
        from: u64,
        page_size: u32,
    ) -> Result<pb::GetLedgerResponse, ServiceError> {
        let size = match page_size as usize {
            0 => MAX_PAGE,
            n => n.min(MAX_PAGE),
        };
        let mut games = self.lock();
        let attached = Self::owned(&mut games, game_id, key)?;
        let held = attached.ledger.len();
        // Past the end is a client's mistake (its next page would skip the
        // entries in between), as a stream's from_seq past its log is.
        let start = usize::try_from(from)
            .ok()
            .filter(|&start| start <= held)
            .ok_or_else(|| {
                ServiceError::invalid(
                    "from_index",
                    format!(
                        "from_index {from} is past the ledger's end: it holds {held} entries; resume from the next_index last answered"
                    ),
                )
            })?;
        let entries: Vec<_> = attached.ledger[start..]
            .iter()
            .take(size)
            .cloned()
            .collect();
        Ok(pb::GetLedgerResponse {
            next_index: (start + entries.len()) as u64,
            entries,
            dropped: attached.dropped,
        })
    }

    /// Records a call of the game and its answer.
    pub fn record_call(
        &self,
        game_id: &str,
        seat: Option<Seat>,
        at: (u64, u64),
        call: pb::LedgerCall,
    ) {
        if let Some(a) = self.lock().get_mut(game_id) {
            a.push(seat, at, pb::ledger_entry::Entry::Call(call));
        }
    }

    /// Records that an event stream of the game ended.
    pub fn record_stream_end(
        &self,
        game_id: &str,
        seat: Option<Seat>,
        at: (u64, u64),
        end: pb::LedgerStreamEnd,
    ) {
        if let Some(a) = self.lock().get_mut(game_id) {
            a.push(seat, at, pb::ledger_entry::Entry::StreamEnd(end));
        }
    }
}
