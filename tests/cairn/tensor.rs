//! Cairn's fixed action space (five actions: hide 1, 2 or 3, roll, stop) and
//! its observation tensor, seats counted from the viewer:
//!
//! | section | shape | values |
//! |---|---|---|
//! | `cairns` | players × 1 | each seat's cairn / 20 |
//! | `offerings` | players × 4 | hidden; worth 1, 2, 3 (known only to its owner) |
//! | `to_act` | 1 × players | the seat to act |
//! | `turn` | 1 × 4 | hiding; turning; pile / 20; last face / 6 |

use super::{Action, Cairn, Decision, OFFERINGS, TARGET, View};
use crate::{Seat, Section, Tensors, Viewer};

impl Tensors for Cairn {
    fn action_count(_players: usize) -> usize {
        OFFERINGS.len() + 2
    }

    fn action_index(_players: usize, action: &Action) -> Option<usize> {
        match *action {
            Action::Hide { value: Some(v) } if OFFERINGS.contains(&v) => {
                Some(usize::from(v - OFFERINGS.start()))
            }
            Action::Hide { .. } => None,
            Action::Roll => Some(OFFERINGS.len()),
            Action::Stop => Some(OFFERINGS.len() + 1),
        }
    }

    fn observation_layout(players: usize) -> Vec<Section> {
        vec![
            Section {
                name: "cairns",
                shape: [players, 1],
            },
            Section {
                name: "offerings",
                shape: [players, 1 + OFFERINGS.len()],
            },
            Section {
                name: "to_act",
                shape: [1, players],
            },
            Section {
                name: "turn",
                shape: [1, 4],
            },
        ]
    }

    fn view_players(view: &View) -> usize {
        view.seats.len()
    }

    fn observe(view: &View, out: &mut [f32]) {
        let players = view.seats.len();
        let first = match view.viewer {
            Viewer::Seat(s) => usize::from(s.0),
            Viewer::Spectator => 0,
        };
        let seat_at = |k: usize| (first + k) % players;
        let rel = |s: Seat| (usize::from(s.0) + players - first) % players;
        out.fill(0.0);
        let target = TARGET as f32;
        let (cairns, rest) = out.split_at_mut(players);
        let width = 1 + OFFERINGS.len();
        let (offerings, rest) = rest.split_at_mut(players * width);
        let (to_act, turn) = rest.split_at_mut(players);
        for k in 0..players {
            let seat = &view.seats[seat_at(k)];
            cairns[k] = seat.cairn as f32 / target;
            let row = &mut offerings[k * width..(k + 1) * width];
            row[0] = f32::from(u8::from(seat.hidden));
            if let Some(v) = seat.offering {
                row[usize::from(v)] = 1.0;
            }
        }
        if let Some(s) = view.to_act {
            to_act[rel(s)] = 1.0;
        }
        turn[0] = f32::from(u8::from(view.decision == Some(Decision::Hide)));
        turn[1] = f32::from(u8::from(view.decision == Some(Decision::Turn)));
        turn[2] = view.pile as f32 / target;
        turn[3] = f32::from(view.last_die.unwrap_or(0)) / 6.0;
    }
}
