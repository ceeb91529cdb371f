//! Die Dolmengötter's fixed action space and observation tensor
//! ([`crate::Tensors`]); `docs/observations.md` documents both.
//!
//! Actions (the same for every player count, 5,847): placing a druid (73, by
//! site), collecting herbs (73, by site), a walk (365: site × direction), a
//! flight (5,329: from × to), leaving a stone, declining it, placing a dolmen
//! of value 1–4 (4), passing a dolmen.

use super::Dolmen;
use super::action::{Action, Decision};
use super::board::{CIRCLES, Dir, SITES};
use super::state::{MAX_STACK, Occupant};
use super::view::View;
use crate::tensor::{TurnFacts, Writer};
use crate::{Section, Tensors};

const PLACE: usize = 0;
const HERBS: usize = SITES;
const WALK: usize = 2 * SITES;
const FLY: usize = WALK + 5 * SITES;
const STONE: usize = FLY + SITES * SITES;
const DECLINE: usize = STONE + 1;
/// Value v (1–4) at `DOLMEN + v - 1`.
const DOLMEN: usize = DECLINE + 1;
const PASS: usize = DOLMEN + 4;
const ACTIONS: usize = PASS + 1;

fn decision_index(d: Decision) -> usize {
    match d {
        Decision::PlaceDruid => 0,
        Decision::Turn => 1,
        Decision::Stone {
            may_decline: false, ..
        } => 2,
        Decision::Stone {
            may_decline: true, ..
        } => 3,
        Decision::Dolmen { on_top: true, .. } => 4,
        Decision::Dolmen { on_top: false, .. } => 5,
    }
}

/// The observation's sections for `players` seats (see `docs/observations.md`).
fn layout(players: usize) -> [Section; 4] {
    let n = players;
    [
        Section {
            name: "sites",
            shape: [SITES, 3 * n + 1],
        },
        Section {
            name: "circles",
            shape: [CIRCLES, 2 * n + MAX_STACK * (n + 4) + 4],
        },
        Section {
            name: "seats",
            shape: [n, 14],
        },
        Section {
            name: "turn",
            shape: [1, 3 * n + 10],
        },
    ]
}

impl Tensors for Dolmen {
    fn action_count(_players: usize) -> usize {
        ACTIONS
    }

    fn action_index(_players: usize, action: &Action) -> Option<usize> {
        let site = |s: super::Site| (s.index() < SITES).then_some(s.index());
        Some(match *action {
            Action::PlaceDruid { site: s } => PLACE + site(s)?,
            Action::CollectHerbs { site: s } => HERBS + site(s)?,
            Action::Walk { from, dir } => {
                let d = Dir::ALL.iter().position(|&x| x == dir)?;
                WALK + site(from)? * 5 + d
            }
            Action::Fly { from, to } => FLY + site(from)? * SITES + site(to)?,
            Action::PlaceStone => STONE,
            Action::DeclineStone => DECLINE,
            Action::PlaceDolmen {
                value: Some(v @ 1..=4),
            } => DOLMEN + v as usize - 1,
            Action::PlaceDolmen { .. } => return None,
            Action::PassDolmen => PASS,
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
        let (stone_site, dolmen_circle) = match view.decision {
            Some(Decision::Stone { site, .. }) => (Some(site.index()), None),
            Some(Decision::Dolmen { circle, on_top }) => (None, Some((circle.index(), on_top))),
            _ => (None, None),
        };

        let mut rows = w.section("sites");
        for (i, occupant) in view.sites.iter().enumerate() {
            match *occupant {
                Some(Occupant::Druid { seat, lying: false }) => rows.one(i, rows.rel(seat)),
                Some(Occupant::Druid { seat, lying: true }) => rows.one(i, n + rows.rel(seat)),
                Some(Occupant::Stone(seat)) => rows.one(i, 2 * n + rows.rel(seat)),
                None => {}
            }
            rows.flag(i, 3 * n, stone_site == Some(i));
        }

        let mut rows = w.section("circles");
        let slot = |k: usize| 2 * n + k * (n + 4);
        let tail = slot(MAX_STACK);
        for (c, cv) in view.circles.iter().enumerate() {
            if let Some(s) = cv.leader {
                rows.one(c, rows.rel(s));
            }
            for (s, &k) in cv.stones.iter().enumerate() {
                rows.set(c, n + rows.rel(crate::Seat(s as u8)), k as f32);
            }
            for (k, d) in cv.stack.iter().enumerate().take(MAX_STACK) {
                rows.one(c, slot(k) + rows.rel(d.seat));
                if let Some(v @ 1..=4) = d.value {
                    rows.one(c, slot(k) + n + v as usize - 1);
                }
            }
            rows.flag(c, tail, cv.complete);
            if let Some((circle, on_top)) = dolmen_circle
                && circle == c
            {
                rows.one(c, tail + 1);
                rows.flag(c, tail + 2, on_top);
            }
        }
        for q in &view.queued_dolmens {
            let c = q.circle.index();
            if c < CIRCLES {
                rows.one(c, tail + 3);
            }
        }

        let mut rows = w.section("seats");
        for k in 0..n {
            let s = view.seats[rows.seat_at(k).index()];
            let values = [
                s.score as f32,
                s.stones_left as f32,
                s.dolmens_left as f32,
                s.dolmens_placed as f32,
                s.druids_to_place as f32,
                s.hand.is_some() as u8 as f32,
            ];
            for (col, v) in values.into_iter().enumerate() {
                rows.set(k, col, v);
            }
            for v in 0..4 {
                rows.set(k, 6 + v, s.hand.map_or(0, |h| h[v]) as f32);
                rows.set(k, 10 + v, s.scored[v] as f32);
            }
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
