//! A fingerprint of the observations of fixed-seed random games (every seat
//! and a spectator at every position), so that a change of the tensors'
//! code that changes a value is seen (docs/observations.md is the contract).

use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use druids_engine::{Seat, Tensors, Viewer};

fn fingerprint<G: Tensors>(players: std::ops::RangeInclusive<usize>, seeds: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let (mut events, mut legal) = (Vec::new(), Vec::new());
    for n in players {
        let mut out = vec![0.0f32; G::observation_len(n)];
        for seed in 0..seeds {
            let mut game = G::new(n, seed, &G::Options::default(), &mut events).unwrap();
            let mut step = 0usize;
            loop {
                let viewers = (0..n as u8)
                    .map(|s| Viewer::Seat(Seat(s)))
                    .chain([Viewer::Spectator]);
                for viewer in viewers {
                    G::observe(&game.view(viewer), &mut out);
                    for v in &out {
                        for b in v.to_bits().to_le_bytes() {
                            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
                        }
                    }
                }
                let Some(seat) = game.to_act() else { break };
                legal.clear();
                game.legal_actions(&mut legal);
                let a = legal[(step * 7919 + seed as usize) % legal.len()].clone();
                game.apply(seat, &a, &mut events).unwrap();
                step += 1;
            }
        }
    }
    h
}

#[test]
fn meduris_observations_are_as_documented() {
    assert_eq!(fingerprint::<Meduris>(2..=4, 3), 8115731936108670088);
}

#[test]
fn dolmen_observations_are_as_documented() {
    assert_eq!(fingerprint::<Dolmen>(2..=5, 1), 7049735036347263857);
}
