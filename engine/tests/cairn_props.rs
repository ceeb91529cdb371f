//! Cairn (`tests/cairn/`, the test-only third game) through the shared
//! conformance suite, like every game, plus its own law: scores are the
//! cairns plus the offerings, and a cairn only grows by stopped piles.

use druids_engine::cairn::{self, Action, Cairn, Event, Options};
use druids_engine::{Game, Seat, Viewer};

mod conformance;

use conformance::{Conformance, suite};

/// Cairn: each seat's offering.
impl Conformance for Cairn {
    /// Offerings are secret until the end, when all are shown.
    fn view_leaks(view: &cairn::View, viewer: Viewer) -> bool {
        let running = view.to_act.is_some();
        running
            && view
                .seats
                .iter()
                .enumerate()
                .any(|(i, s)| s.offering.is_some() && !viewer.sees(Seat(i as u8)))
    }

    fn event_leaks(event: &Event, viewer: Viewer) -> bool {
        matches!(*event, Event::Hidden { seat, value: Some(_) } if !viewer.sees(seat))
    }

    fn action_leaks(action: &Action, viewer: Viewer, actor: Seat) -> bool {
        matches!(action, Action::Hide { value: Some(_) }) && !viewer.sees(actor)
    }
}

#[test]
fn cairn_conforms() {
    suite::<Cairn>(60);
}

#[test]
fn scores_are_cairns_plus_offerings() {
    for seed in 0..200 {
        let mut events = Vec::new();
        let mut game = Cairn::new(3, seed, &Options::default(), &mut events).unwrap();
        let (mut cairns, mut offerings) = (vec![0u32; 3], vec![0u32; 3]);
        let mut legal = Vec::new();
        let mut step = 0usize;
        while let Some(seat) = game.to_act() {
            legal.clear();
            game.legal_actions(&mut legal);
            let a = legal[(seed as usize + step * 7) % legal.len()];
            events.clear();
            game.apply(seat, &a, &mut events).unwrap();
            for e in &events {
                match *e {
                    Event::Hidden { seat, value } => {
                        offerings[seat.index()] = u32::from(value.unwrap())
                    }
                    Event::Stopped { seat, added, cairn } => {
                        cairns[seat.index()] += added;
                        assert_eq!(cairns[seat.index()], cairn);
                    }
                    _ => {}
                }
            }
            step += 1;
        }
        let outcome = game.outcome().expect("over");
        let expected: Vec<i32> = (0..3).map(|s| (cairns[s] + offerings[s]) as i32).collect();
        assert_eq!(outcome.scores, expected, "seed {seed}");
        assert!(outcome.by_safeguard || cairns.iter().any(|&c| c >= cairn::TARGET));
    }
}
