//! Fixed-seed fingerprints: random games of each player count, played from
//! fixed seeds by a fixed sequence of choices, hashed over every event and
//! every view. The numbers were taken before the chance mode was added and
//! must never change: they prove that a seeded game plays exactly as it
//! always did, so stored games replay to the same end.

use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use druids_engine::{Game, Seat, Viewer};

/// FNV-1a over the `Debug` text of everything that happened.
struct Fnv(u64);

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        Ok(())
    }
}

fn fingerprint<G: Game>(players: std::ops::RangeInclusive<usize>, seeds: u64) -> u64 {
    use std::fmt::Write;
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let (mut events, mut legal) = (Vec::new(), Vec::new());
    for n in players {
        for seed in 0..seeds {
            events.clear();
            let mut game = G::new(n, seed, &G::Options::default(), &mut events).unwrap();
            let mut step = 0usize;
            while let Some(seat) = game.to_act() {
                legal.clear();
                game.legal_actions(&mut legal);
                let a = legal[(step * 7919 + seed as usize) % legal.len()].clone();
                game.apply(seat, &a, &mut events).unwrap();
                step += 1;
            }
            let mut text = format!("{events:?}{:?}", game.outcome());
            for s in 0..n {
                write!(text, "{:?}", game.view(Viewer::Seat(Seat(s as u8)))).unwrap();
            }
            h.write_str(&without_tie_break_keys(&text).replace(", resigned: []", ""))
                .unwrap();
        }
    }
    h.0
}

/// `text` without the outcome's tie-break keys, which outcomes carry since
/// the numbers were taken (published, not new play): the last two fields of
/// every `Outcome`, `, tie_breaks: [..], tie_break_names: [..]` (and the
/// list of seats that resigned after them, always empty here).
fn without_tie_break_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(", tie_breaks: ") {
        out.push_str(&rest[..at]);
        let names = rest[at..]
            .find("tie_break_names: [")
            .expect("the names follow the keys")
            + at;
        let end = rest[names..].find(']').expect("the names' list ends") + names;
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn seeded_meduris_games_play_as_they_always_did() {
    assert_eq!(fingerprint::<Meduris>(2..=4, 30), 2477565941565259941);
}

#[test]
fn seeded_dolmen_games_play_as_they_always_did() {
    assert_eq!(fingerprint::<Dolmen>(2..=5, 10), 18045452052643093544);
}
