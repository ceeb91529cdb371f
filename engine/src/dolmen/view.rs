//! What one viewer may see: the whole board, every score and count, and the
//! values of the viewer's own dolmens. Another player's dolmen values are never
//! in a view until scored (then they are in the seat's `scored` counts).

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::action::Decision;
use super::board::{Circle, SITES, Site};
use super::state::{
    MAX_SEATS, Occupant, Pending, Phase, StackDolmen, State, starting_dolmens, starting_stones,
};
use crate::{Outcome, Seat, Viewer};

/// A dolmen in a stack as the viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DolmenView {
    /// Owner.
    pub seat: Seat,
    /// Value: only for the owner's own view.
    pub value: Option<u8>,
}

/// One circle as seen at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircleView {
    /// The colour that most recently gained sole majority, if any.
    pub leader: Option<Seat>,
    /// Stones on the circle by seat.
    pub stones: Vec<u8>,
    /// The stack, top first (empty once scored).
    pub stack: Vec<DolmenView>,
    /// True once every site holds a stone (its stack has scored).
    pub complete: bool,
}

/// One seat as seen by the viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Score.
    pub score: i32,
    /// Stones in stock.
    pub stones_left: u8,
    /// Dolmens in hand (the count is public, the values are not).
    pub dolmens_left: u8,
    /// Dolmens placed so far (the first tie-break).
    pub dolmens_placed: u8,
    /// Druids still to be placed at setup.
    pub druids_to_place: u8,
    /// Dolmens of value 1, 2, 3, 4 in hand: only in the seat's own view.
    pub hand: Option<[u8; 4]>,
    /// Dolmens of value 1, 2, 3, 4 that have scored (public).
    pub scored: [u8; 4],
}

/// A viewer's picture of a Die Dolmengötter game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// What stands on each site, by site number.
    pub sites: Vec<Option<Occupant>>,
    /// Each circle, by circle number.
    pub circles: Vec<CircleView>,
    /// Each seat, by seat number.
    pub seats: Vec<SeatView>,
    /// Seat whose turn it is.
    pub active: Seat,
    /// Turns started so far.
    pub turn: u32,
    /// Seat that must decide now (None when the game is over).
    pub to_act: Option<Seat>,
    /// Kind of decision pending.
    pub decision: Option<Decision>,
    /// The seat that placed its last dolmen, once one has.
    pub end_triggered_by: Option<Seat>,
    /// Turns still to be played after the end was triggered.
    pub last_turns_left: u8,
    /// The `max_turns` safeguard of this game.
    pub max_turns: u32,
    /// Result, once over.
    pub outcome: Option<Outcome>,
    /// The dolmen decisions triggered by the last stone that wait behind the
    /// current one (`decision`), in the order they come up; public, since
    /// everyone saw the stone. Each may still be skipped when it comes up (full
    /// stack, or its seat has no dolmen left by then). Empty unless a dolmen
    /// decision is pending.
    pub queued_dolmens: Vec<QueuedDolmen>,
}

/// A dolmen decision waiting behind the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueuedDolmen {
    /// The circle.
    pub circle: Circle,
    /// The seat that may place a dolmen there.
    pub seat: Seat,
    /// True: on top of the stack (the seat gained the majority); false: under
    /// it (the seat equalised the leader).
    pub on_top: bool,
}

/// The site a view shows for `site` (convenience for clients of the engine).
impl View {
    /// What stands on `site`.
    pub fn at(&self, site: Site) -> Option<Occupant> {
        self.sites[site.index()]
    }
}

/// What `viewer` may see of `state`: everything except other seats' hands and
/// the values of other seats' dolmens on the board.
pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let n = state.n();
    let circles = state
        .circles
        .iter()
        .map(|c| CircleView {
            leader: c.leader,
            stones: c.stones[..n].to_vec(),
            stack: c
                .dolmens()
                .iter()
                .map(|d| DolmenView {
                    seat: Seat(d.owner),
                    value: viewer.sees(Seat(d.owner)).then_some(d.value),
                })
                .collect(),
            complete: c.complete,
        })
        .collect();
    let seats = state.seats[..n]
        .iter()
        .enumerate()
        .map(|(s, st)| SeatView {
            score: st.score,
            stones_left: st.stones_left,
            dolmens_left: st.dolmens_left(),
            dolmens_placed: st.placed,
            druids_to_place: st.druids_to_place,
            hand: viewer.sees(Seat(s as u8)).then_some(st.hand),
            scored: st.scored,
        })
        .collect();
    let queued_dolmens = match state.phase {
        Phase::Dolmen => state.queue.as_slice()[1..]
            .iter()
            .map(|p| QueuedDolmen {
                circle: p.circle,
                seat: p.seat,
                on_top: p.on_top,
            })
            .collect(),
        _ => Vec::new(),
    };
    View {
        viewer,
        sites: state.sites().to_vec(),
        circles,
        seats,
        active: state.active,
        turn: state.turn,
        to_act: super::rules::to_act(state),
        decision: super::rules::decision(state),
        end_triggered_by: state.end_triggered_by,
        last_turns_left: state.last_turns_left,
        max_turns: state.max_turns,
        outcome: super::scoring::outcome(state),
        queued_dolmens,
    }
}

/// A complete state consistent with `view`: the public state is copied, the
/// viewer's own dolmen values are known, and for every other seat (every seat
/// for a spectator) the values it may still hold — its starting dolmens minus
/// those that have scored — are shuffled with `seed` and dealt, first to its
/// dolmens on the board (circle letter order, top to bottom), the rest to its
/// hand. The result passes `pieces_conserved` and play continues legally
/// from it; where nothing is hidden it is the true state.
pub(crate) fn determinize(view: &View, seed: u64) -> State {
    let n = view.seats.len().clamp(2, MAX_SEATS);
    let mut st = State::new(n, view.active, view.max_turns);
    st.turn = view.turn;
    for (i, &occ) in view.sites.iter().take(SITES).enumerate() {
        st.set_site(Site(i as u8), occ);
    }
    // Dolmens on the board whose value is hidden: (circle, depth) per seat.
    let mut unknown: [Vec<(usize, usize)>; MAX_SEATS] = Default::default();
    // Values of each seat that are accounted for (known on board or in hand).
    let mut known = [[0u8; 4]; MAX_SEATS];
    for (c, cv) in view.circles.iter().enumerate().take(st.circles.len()) {
        let cs = &mut st.circles[c];
        cs.leader = cv.leader;
        for (s, &k) in cv.stones.iter().enumerate().take(n) {
            cs.stones[s] = k;
        }
        cs.filled = cv.stones.iter().sum();
        cs.complete = cv.complete;
        for (i, d) in cv.stack.iter().enumerate().take(cs.stack.len()) {
            let owner = d.seat.index().min(n - 1);
            let value = match d.value {
                Some(v @ 1..=4) => {
                    known[owner][v as usize - 1] += 1;
                    v
                }
                _ => {
                    unknown[owner].push((c, i));
                    0
                }
            };
            cs.stack[i] = StackDolmen {
                owner: owner as u8,
                value,
            };
            cs.len += 1;
        }
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let start = starting_dolmens(n);
    for (s, sv) in view.seats.iter().enumerate().take(n) {
        let seat = &mut st.seats[s];
        seat.score = sv.score;
        seat.stones_left = sv.stones_left.min(starting_stones(n));
        seat.placed = sv.dolmens_placed;
        seat.druids_to_place = sv.druids_to_place;
        seat.scored = sv.scored;
        if let Some(hand) = sv.hand {
            seat.hand = hand;
            for v in 0..4 {
                known[s][v] += hand[v];
            }
        } else {
            seat.hand = [0; 4];
        }
        // The values still unaccounted for, as a list to shuffle.
        let mut pool = [0u8; 16];
        let mut len = 0;
        for v in 0..4 {
            let left = start[v]
                .saturating_sub(sv.scored[v])
                .saturating_sub(known[s][v]);
            for _ in 0..left {
                if len < pool.len() {
                    pool[len] = v as u8 + 1;
                    len += 1;
                }
            }
        }
        for i in (1..len).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            pool.swap(i, j);
        }
        let mut values = pool[..len].iter().copied();
        for &(c, i) in &unknown[s] {
            // A well-formed view never runs short; value 1 keeps a malformed
            // one playable.
            st.circles[c].stack[i].value = values.next().unwrap_or(1);
        }
        if sv.hand.is_none() {
            for v in values.take(sv.dolmens_left as usize) {
                st.seats[s].hand[v as usize - 1] += 1;
            }
        }
    }
    st.phase = match (view.decision, view.to_act) {
        (None, _) | (_, None) => Phase::Over,
        (Some(Decision::PlaceDruid), Some(seat)) => Phase::PlaceDruid { seat },
        (Some(Decision::Turn), _) => Phase::Turn,
        (Some(Decision::Stone { site, .. }), _) => Phase::Stone { site },
        (Some(Decision::Dolmen { circle, on_top }), Some(seat)) => {
            st.queue.push(Pending {
                circle,
                seat,
                on_top,
            });
            for q in view.queued_dolmens.iter().take(st.queue.items.len() - 1) {
                st.queue.push(Pending {
                    circle: q.circle,
                    seat: q.seat,
                    on_top: q.on_top,
                });
            }
            Phase::Dolmen
        }
    };
    st.end_triggered_by = view.end_triggered_by;
    st.last_turns_left = view.last_turns_left;
    st.by_safeguard = view.outcome.as_ref().is_some_and(|o| o.by_safeguard);
    // The circles were copied field by field: what is derived from them is
    // rebuilt.
    st.with_masks()
}
