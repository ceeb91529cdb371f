//! Complete random Die Dolmengötter games per second, for 2 to 5 players, plus
//! the cost of legal-action generation alone and its share of a random game's
//! engine time (see `common` for the groups).
//!
//! Run: `cargo bench -p druids-engine --bench dolmen`
//! (quick: `cargo bench -p druids-engine --bench dolmen -- --warm-up-time 1 --measurement-time 3`)

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use druids_engine::dolmen::Dolmen;

fn games(c: &mut Criterion) {
    common::games::<Dolmen>(c, &[2, 3, 4, 5]);
}

fn legal_actions(c: &mut Criterion) {
    common::legal_actions::<Dolmen>(c);
}

fn replay(c: &mut Criterion) {
    common::replay::<Dolmen>(c);
}

criterion_group!(benches, games, legal_actions, replay);
criterion_main!(benches);
