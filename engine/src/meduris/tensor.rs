//! Meduris's fixed action space and observation tensor ([`crate::Tensors`]);
//! `docs/observations.md` documents both.
//!
//! Actions (F = fields of the board in use: 32 for 2–3 players, 40 for 4):
//! placing a worker (4, by plateau), taking a good (4), returning a good (4),
//! a big yield (36: from, height, and to among the three other plateaus), a
//! hut (F, by field) and a temple (F) with the default payment, and the
//! offerings (8: the chip, nothing, one good given as itself (4, by good),
//! one good replaced by three, both goods). 56 + 2F in all.

use super::Meduris;
use super::action::{Action, Building, Chip, Decision, DruidPos};
use super::board::BoardKind;
use super::goods::Good;
use super::view::View;
use crate::tensor::{TurnFacts, Writer};
use crate::{Section, Tensors};

const PLACE: usize = 0;
const TAKE: usize = 4;
const RETURN: usize = 8;
const YIELD: usize = 12;
const HUT: usize = 48;

/// The offerings, after the temples: chip, nothing, one good (4), one by
/// three, both.
const OFFER_CHIP: usize = 0;
const OFFER_NOTHING: usize = 1;
const OFFER_ONE: usize = 2;
const OFFER_BY_THREE: usize = 6;
const OFFER_BOTH: usize = 7;
const OFFERS: usize = 8;

fn fields(players: usize) -> usize {
    BoardKind::for_players(players).field_count()
}

/// Decisions as the tensor numbers them.
fn decision_index(d: Decision) -> usize {
    match d {
        Decision::PlaceWorker => 0,
        Decision::TakeGood => 1,
        Decision::ReturnGood => 2,
        Decision::Turn => 3,
        Decision::Offering {
            last_round: false, ..
        } => 4,
        Decision::Offering {
            last_round: true, ..
        } => 5,
    }
}

/// The observation's sections for `players` seats (see `docs/observations.md`).
fn layout(players: usize) -> [Section; 7] {
    let n = players;
    [
        Section {
            name: "fields",
            shape: [fields(players), 2 * n + 7],
        },
        Section {
            name: "plateaus",
            shape: [12, n],
        },
        Section {
            name: "supply",
            shape: [1, 4],
        },
        Section {
            name: "seats",
            shape: [n, 11],
        },
        Section {
            name: "runes",
            shape: [9, n],
        },
        Section {
            name: "druid",
            shape: [1, 4],
        },
        Section {
            name: "turn",
            shape: [1, 3 * n + 10],
        },
    ]
}

impl Tensors for Meduris {
    fn action_count(players: usize) -> usize {
        HUT + 2 * fields(players) + OFFERS
    }

    fn action_index(players: usize, action: &Action) -> Option<usize> {
        let f = fields(players);
        let offers = HUT + 2 * f;
        Some(match *action {
            Action::PlaceWorker { plateau } => PLACE + plateau.index(),
            Action::TakeGood { good } => TAKE + good.index(),
            Action::ReturnGood { good } => RETURN + good.index(),
            Action::BigYield { from, height, to } => {
                let (from, to) = (from.index(), to.index());
                if from == to || !(1..=3).contains(&height) {
                    return None;
                }
                let to_rank = to - (to > from) as usize;
                YIELD + from * 9 + (height as usize - 1) * 3 + to_rank
            }
            Action::BuildHut { field, .. } if (field as usize) < f => HUT + field as usize,
            Action::BuildTemple { field, .. } if (field as usize) < f => HUT + f + field as usize,
            Action::BuildHut { .. } | Action::BuildTemple { .. } => return None,
            Action::OfferChip => offers + OFFER_CHIP,
            // The default list offers each shape of payment at most once:
            // nothing, one good as itself, one good replaced by three goods,
            // both goods (2, or 4 or 6 with replacements).
            Action::Offer { payment } => match payment.total() {
                0 => offers + OFFER_NOTHING,
                1 => {
                    let good = Good::ALL.into_iter().find(|&g| payment.get(g) == 1)?;
                    offers + OFFER_ONE + good.index()
                }
                3 => offers + OFFER_BY_THREE,
                _ => offers + OFFER_BOTH,
            },
        })
    }

    fn observation_layout(players: usize) -> Vec<Section> {
        layout(players).to_vec()
    }

    fn view_players(view: &View) -> usize {
        view.seats.len()
    }

    fn observe(view: &View, out: &mut [f32]) {
        let n = view.seats.len();
        let sections = layout(n);
        let mut w = Writer::new(out, &sections, view.viewer, n);

        let offering = match view.decision {
            Some(Decision::Offering { field, .. }) => Some(field as usize),
            _ => None,
        };
        let druid_field = match view.druid {
            DruidPos::Field(f) => Some(f as usize),
            _ => None,
        };
        let cols = 2 * n;
        let mut rows = w.section("fields");
        for (i, f) in view.fields.iter().enumerate() {
            match f.building {
                Some(Building::Hut(s)) => rows.one(i, rows.rel(s)),
                Some(Building::Temple(s)) => rows.one(i, n + rows.rel(s)),
                None => {}
            }
            match f.chip {
                Some(Chip::PlusTwo) => rows.one(i, cols),
                Some(Chip::FreeHut) => rows.one(i, cols + 1),
                Some(Chip::DruidOffering) => rows.one(i, cols + 2),
                None => {}
            }
            rows.flag(i, cols + 3, druid_field == Some(i));
            rows.flag(i, cols + 4, offering == Some(i));
            rows.flag(i, cols + 5, view.ritual_start == Some(i as u8));
            rows.flag(i, cols + 6, view.last_round_end == Some(i as u8));
        }

        let mut rows = w.section("plateaus");
        for (p, stack) in view.plateaus.iter().enumerate() {
            for (h, &s) in stack.iter().enumerate() {
                rows.one(p * 3 + h, rows.rel(s));
            }
        }

        let mut rows = w.section("supply");
        for g in Good::ALL {
            rows.set(0, g.index(), view.supply.get(g) as f32);
        }

        let mut rows = w.section("seats");
        for k in 0..n {
            let s = view.seats[rows.seat_at(k).index()];
            let values = [
                s.score as f32,
                s.huts_left as f32,
                s.temples_left as f32,
                s.buildings_placed as f32,
                s.runes as f32,
                s.workers_to_place as f32,
                s.goods.is_some() as u8 as f32,
            ];
            for (c, v) in values.into_iter().enumerate() {
                rows.set(k, c, v);
            }
            if let Some(goods) = s.goods {
                for g in Good::ALL {
                    rows.set(k, 7 + g.index(), goods.get(g) as f32);
                }
            }
        }

        let mut rows = w.section("runes");
        for (area, owner) in view.runes.iter().enumerate() {
            if let Some(s) = *owner {
                rows.one(area, rows.rel(s));
            }
        }

        let mut rows = w.section("druid");
        match view.druid {
            DruidPos::Temple => rows.one(0, 0),
            DruidPos::StoneField(k) => rows.one(0, (k as usize).min(3)),
            DruidPos::Field(_) => {}
        }

        w.section("turn").turn(
            n,
            TurnFacts {
                active: view.active,
                to_act: view.to_act,
                end_triggered_by: view.end_triggered_by,
                decision: view.decision.map(decision_index),
                turn: view.turn,
                last_turns_left: view.last_turns_left,
                over: view.outcome.is_some(),
                viewer: view.viewer,
            },
        );
        w.finish();
    }
}
