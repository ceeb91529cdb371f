//! What reading a long legal-action list page by page costs (issue 25,
//! "GetLegalActions rebuilds the whole list for every page"): the server's
//! way, the list generated once and each page encoding its own entries,
//! against the way before, the whole list generated and encoded for every
//! page. Both read the same list in pages of 1,000 (the most a page holds)
//! in the same run.
//!
//! The position: a 2-player Meduris game, seed 193, after 76 random actions
//! (`druids_tests::played_here`), whose seat to act has 13,406 entries with every
//! payment.
//!
//! Run: `cargo bench -p druids-server --bench legal_pages -- [MODE]` where
//! MODE is `both` (the default: times and ratio), `old`, `new` or `setup`
//! (one way only, or neither: for instruction counts under
//! `valgrind --tool=callgrind`).

use std::time::Instant;

use druids_contract::Kind;
use druids_server::hosted_game::HostedGame;

const SEED: u64 = 193;
const PREFIX: usize = 76;
const PAGE: usize = 1000;

fn position() -> Box<dyn HostedGame> {
    druids_tests::played_here(Kind::Meduris, 2, SEED, PREFIX)
}

/// Every page, the list built once: entries read.
fn new_way(game: &dyn HostedGame) -> usize {
    let list = game.legal_source(true)();
    (0..list.len())
        .step_by(PAGE)
        .map(|start| list.entries(start..start + PAGE).len())
        .sum()
}

/// Every page, the list built for each: entries read.
fn old_way(game: &dyn HostedGame) -> usize {
    let mut read = 0;
    let mut start = 0;
    loop {
        let mut all = game.legal_actions(true);
        let len = all.len();
        all.truncate(start + PAGE);
        all.drain(..start.min(all.len()));
        read += all.len();
        start += PAGE;
        if start >= len {
            return read;
        }
    }
}

fn main() {
    let mode = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| "both".into());
    let game = position();
    let timed = |f: fn(&dyn HostedGame) -> usize| {
        let t = Instant::now();
        let read = f(&*game);
        (read, t.elapsed())
    };
    match mode.as_str() {
        "setup" => {}
        "old" => println!("old: {} entries read", old_way(&*game)),
        "new" => println!("new: {} entries read", new_way(&*game)),
        _ => {
            let (read, new) = timed(new_way);
            let (read_old, old) = timed(old_way);
            assert_eq!(read, read_old);
            println!(
                "{read} entries in {} pages: new {:.1} ms, old {:.1} ms, old/new {:.1}",
                read.div_ceil(PAGE),
                new.as_secs_f64() * 1e3,
                old.as_secs_f64() * 1e3,
                old.as_secs_f64() / new.as_secs_f64()
            );
        }
    }
}
