//! The fixed action spaces and observation tensors: every default legal list
//! maps to distinct indices inside the space, observations have the layout's
//! length, and a seat's observation does not change when the secrets it may
//! not see are dealt again (a spectator's holds no secret at all).

use druids_engine::cairn::Cairn;
use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use druids_engine::{Determinize, Seat, Tensors, Viewer, legal_indices};

fn observation<G: Tensors>(game: &G, viewer: Viewer) -> Vec<f32> {
    let mut out = vec![f32::NAN; G::observation_len(game.players())];
    G::observe(&game.view(viewer), &mut out);
    out
}

fn check<G: Tensors + Determinize>(players: std::ops::RangeInclusive<usize>, seeds: u64) {
    let (mut events, mut legal, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    let mut secrets_seen = 0;
    for n in players {
        for seed in 0..seeds {
            let mut game = G::new(n, seed, &G::Options::default(), &mut events).unwrap();
            let mut step = 0usize;
            loop {
                for s in 0..n as u8 {
                    let viewer = Viewer::Seat(Seat(s));
                    let mine = observation(&game, viewer);
                    assert!(mine.iter().all(|v| v.is_finite()), "every value written");
                    // Deal the hidden information again, twice: the seat sees
                    // the same; another seat's observation may well differ.
                    let view = game.view(viewer);
                    let a = G::determinize(&view, seed * 31 + step as u64).unwrap();
                    let b = G::determinize(&view, seed * 37 + step as u64 + 1).unwrap();
                    assert_eq!(observation(&a, viewer), mine);
                    assert_eq!(observation(&b, viewer), mine);
                    let other = Viewer::Seat(Seat((s + 1) % n as u8));
                    secrets_seen += (observation(&a, other) != observation(&b, other)) as usize;
                }
                let spectator = observation(&game, Viewer::Spectator);
                let view = game.view(Viewer::Spectator);
                let dealt = G::determinize(&view, seed + step as u64).unwrap();
                assert_eq!(observation(&dealt, Viewer::Spectator), spectator);

                let Some(seat) = game.to_act() else { break };
                legal.clear();
                indices.clear();
                game.legal_actions(&mut legal);
                legal_indices::<G>(n, &legal, &mut indices);
                let mut sorted = indices.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), legal.len(), "distinct indices: {legal:?}");
                assert!(sorted.iter().all(|&i| i < G::action_count(n)));
                let a = legal[(step * 7919 + seed as usize) % legal.len()].clone();
                game.apply(seat, &a, &mut events).unwrap();
                step += 1;
            }
        }
    }
    assert!(
        secrets_seen > 0,
        "another seat's observation shows its secrets"
    );
}

#[test]
fn meduris_actions_have_distinct_indices_and_observations_keep_secrets() {
    check::<Meduris>(2..=4, 6);
}

#[test]
fn dolmen_actions_have_distinct_indices_and_observations_keep_secrets() {
    check::<Dolmen>(2..=5, 2);
}

#[test]
fn the_test_games_actions_and_observations_too() {
    check::<Cairn>(2..=4, 6);
}

/// `docs/observations.md`'s table of sizes is the engine's.
#[test]
fn the_documented_sizes_are_the_engines() {
    let doc = include_str!("../../docs/observations.md");
    let rows: Vec<String> = (2..=4)
        .map(|n| {
            (
                "meduris",
                n,
                Meduris::action_count(n),
                Meduris::observation_len(n),
            )
        })
        .chain((2..=5).map(|n| {
            (
                "dolmen",
                n,
                Dolmen::action_count(n),
                Dolmen::observation_len(n),
            )
        }))
        .map(|(game, n, actions, values)| format!("| {game} | {n} | {actions} | {values} |"))
        .collect();
    let documented: Vec<&str> = doc
        .lines()
        .filter(|l| l.starts_with("| meduris |") || l.starts_with("| dolmen |"))
        .collect();
    assert_eq!(documented, rows);
}

/// Per-seat rows start at the viewer's own seat: seat s sees its own goods in
/// row 0 and the score of seat s + k in row k.
#[test]
fn seats_are_counted_from_the_viewer() {
    use druids_engine::Game;
    let mut events = Vec::new();
    let mut game = Meduris::new(4, 4, &Default::default(), &mut events).unwrap();
    let mut legal = Vec::new();
    // Play to the end: the final scores tell the rows apart.
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        let a = legal[events.len() % legal.len()];
        game.apply(seat, &a, &mut events).unwrap();
    }
    let scores = game.outcome().unwrap().scores;
    let mut distinct = scores.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{scores:?}");
    let layout = Meduris::observation_layout(4);
    let start: usize = layout
        .iter()
        .take_while(|s| s.name != "seats")
        .map(|s| s.len())
        .sum();
    let seats = layout.iter().find(|s| s.name == "seats").unwrap();
    for s in 0..4u8 {
        let view = game.view(Viewer::Seat(Seat(s)));
        let obs = observation(&game, Viewer::Seat(Seat(s)));
        for k in 0..4 {
            let row = &obs[start + k * seats.shape[1]..start + (k + 1) * seats.shape[1]];
            let seat = (s as usize + k) % 4;
            assert_eq!(row[0], view.seats[seat].score as f32);
            assert_eq!(
                row[6],
                (k == 0) as u8 as f32,
                "only the viewer's own goods are known"
            );
        }
    }
}
