//! Complete random Meduris games per second, for 2, 3 and 4 players, plus the
//! cost of legal-action generation alone and its share of a random game's
//! engine time (see `common` for the groups).
//!
//! Run: `cargo bench -p druids-engine --bench meduris`
//! (quick: `cargo bench -p druids-engine --bench meduris -- --warm-up-time 1 --measurement-time 3`)

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use druids_engine::meduris::Meduris;

fn games(c: &mut Criterion) {
    common::games::<Meduris>(c, &[2, 3, 4]);
}

fn legal_actions(c: &mut Criterion) {
    common::legal_actions::<Meduris>(c);
}

fn replay(c: &mut Criterion) {
    common::replay::<Meduris>(c);
}

criterion_group!(benches, games, legal_actions, replay);
criterion_main!(benches);
