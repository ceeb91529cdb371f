//! What one viewer may see: everything on the table, plus the viewer's own goods.
//! Another player's goods are never in a view while the game runs; they are
//! revealed only when the game is over (they break ties).

use super::action::{Building, Chip, Decision, DruidPos};
use super::board::BoardKind;
use super::goods::Goods;
use super::rules;
use super::state::{Phase, State};
use crate::{Outcome, Seat, Viewer};

/// One field of the ring as seen at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldView {
    /// Building on it, if any.
    pub building: Option<Building>,
    /// Bonus chip on it (face up), if any; a druid chip may lie under a hut.
    pub chip: Option<Chip>,
}

/// One seat as seen by the viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatView {
    /// Score.
    pub score: i32,
    /// Huts in stock.
    pub huts_left: u8,
    /// Temples in stock.
    pub temples_left: u8,
    /// Buildings placed so far.
    pub buildings_placed: u8,
    /// Rune stones held.
    pub runes: u8,
    /// Goods behind the screen: only for the viewer's own seat, or after the game.
    pub goods: Option<Goods>,
}

/// A viewer's picture of a Meduris game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// Which board is in use.
    pub board: BoardKind,
    /// The ring, by field number.
    pub fields: Vec<FieldView>,
    /// Workers on each plateau (wood, wool, copper, stone), bottom first.
    pub plateaus: [Vec<Seat>; 4],
    /// The general supply.
    pub supply: Goods,
    /// Each seat, by seat number.
    pub seats: Vec<SeatView>,
    /// Holder of each area's rune stone, by area.
    pub runes: [Option<Seat>; 9],
    /// The druid.
    pub druid: DruidPos,
    /// Seat whose turn it is.
    pub active: Seat,
    /// Turns started so far.
    pub turn: u32,
    /// Seat that must decide now (None when the game is over).
    pub to_act: Option<Seat>,
    /// Kind of decision pending.
    pub decision: Option<Decision>,
    /// Player who triggered the end, if any.
    pub end_triggered_by: Option<Seat>,
    /// Result, once over.
    pub outcome: Option<Outcome>,
}

pub(crate) fn view(state: &State, viewer: Viewer) -> View {
    let over = state.phase == Phase::Over;
    let n = state.players as usize;
    View {
        viewer,
        board: state.board,
        fields: (0..state.len())
            .map(|i| FieldView {
                building: state.buildings[i],
                chip: state.chips[i],
            })
            .collect(),
        plateaus: std::array::from_fn(|p| state.plateaus[p].workers().collect()),
        supply: state.supply,
        seats: (0..n)
            .map(|i| {
                let s = &state.seats[i];
                let seat = Seat(i as u8);
                SeatView {
                    score: s.score,
                    huts_left: s.huts_left,
                    temples_left: s.temples_left,
                    buildings_placed: state.built[i],
                    runes: rules::runes_of(state, seat).count() as u8,
                    goods: (over || viewer.sees(seat)).then_some(s.goods),
                }
            })
            .collect(),
        runes: state.runes,
        druid: state.druid,
        active: state.active,
        turn: state.turn,
        to_act: rules::to_act(state),
        decision: rules::decision(state),
        end_triggered_by: state.end_trigger,
        outcome: super::scoring::outcome(state),
    }
}
