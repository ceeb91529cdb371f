//! One conformance suite for every game, generic over `druids_engine::Game` (after
//! OpenSpiel's `RandomSimTest`): random games of every player count, checking
//! at every position that
//! * every listed action applies, and the list has no duplicates;
//! * a refused action (another seat acting, actions listed in earlier
//!   positions) leaves the state equal and reports no event;
//! * the timeout action is always listed, and games of timeouts alone end;
//! * no view, redacted event or redacted action shows a viewer (a seat or a
//!   spectator) another seat's secret;
//! * determinizing any viewer's view gives a game whose view for that viewer
//!   is the original view;
//! * the same seed and actions give the same game and the same events.
//!
//! Each game states only where its secrets are ([`Conformance`]) and runs the
//! suite from its own test file (`<game>_props.rs`, which includes this module),
//! beside its own conservation laws: a new game adds its file and edits none.

use druids_engine::{Determinize, Seat, Viewer};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Where a game keeps its secrets: what the suite checks redaction against.
pub trait Conformance: Determinize {
    /// Whether `view`, made for `viewer`, shows a secret of a seat other than
    /// the viewer's own.
    fn view_leaks(view: &Self::View, viewer: Viewer) -> bool;
    /// Whether `event`, as redacted for `viewer`, shows another seat's secret.
    fn event_leaks(event: &Self::Event, viewer: Viewer) -> bool;
    /// Whether `action` of `actor`, as redacted for `viewer`, shows another
    /// seat's secret.
    fn action_leaks(action: &Self::Action, viewer: Viewer, actor: Seat) -> bool;
}

fn pick(rng: &mut Pcg64Mcg, n: usize) -> usize {
    rng.next_u32() as usize % n
}

/// Every seat and a spectator.
fn viewers(players: usize) -> impl Iterator<Item = Viewer> {
    (0..players as u8)
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
}

/// Checks that none of `events` shows any viewer another seat's secret once
/// redacted for it, and that redaction is stable.
fn check_events<G: Conformance>(events: &[G::Event], players: usize, at: &str) {
    for e in events {
        for viewer in viewers(players) {
            if let Some(r) = G::redact(e, viewer) {
                assert!(
                    !G::event_leaks(&r, viewer),
                    "{at}: {e:?} leaks to {viewer:?}"
                );
                assert_eq!(G::redact(&r, viewer).as_ref(), Some(&r), "{at}");
            }
        }
    }
}

/// Plays one random game of `players` from `seed`, checking every property
/// above at every position.
fn random_sim<G: Conformance>(players: usize, seed: u64) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0xc0f0);
    let mut setup = Vec::new();
    let mut game = G::new(players, seed, &G::Options::default(), &mut setup).unwrap();
    check_events::<G>(&setup, players, "setup");
    let mut log = setup.clone();
    let mut actions: Vec<(Seat, G::Action)> = Vec::new();
    let mut earlier: Vec<G::Action> = Vec::new();
    let mut legal = Vec::new();
    let mut events = Vec::new();
    let mut step = 0u64;
    loop {
        let at = format!("{} seed {seed}, {players} players, step {step}", G::NAME);
        // Views: no secret of another seat, and determinization round-trips.
        if step.is_multiple_of(3) || game.to_act().is_none() {
            for viewer in viewers(players) {
                let view = game.view(viewer);
                assert!(!G::view_leaks(&view, viewer), "{at}: view for {viewer:?}");
                let d = G::determinize(&view, seed ^ step)
                    .unwrap_or_else(|e| panic!("{at}: {viewer:?}: {e}"));
                assert_eq!(d.view(viewer), view, "{at}: determinized for {viewer:?}");
                assert_eq!(d.to_act(), game.to_act(), "{at}");
                let mut dealt = Vec::new();
                d.legal_actions(&mut dealt);
                assert_eq!(
                    dealt.is_empty(),
                    d.to_act().is_none(),
                    "{at}: determinized for {viewer:?}, a seat to act has a legal action"
                );
            }
        }
        let Some(seat) = game.to_act() else { break };
        assert!(step < 100_000, "{at}: the game must end");
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(
            !legal.is_empty(),
            "{at}: the seat to act has a legal action"
        );
        let timeout = game
            .timeout_action()
            .expect("a timeout action while the game runs");
        assert!(
            legal.contains(&timeout),
            "{at}: timeout {timeout:?} is listed"
        );

        // Every listed action applies, once listed; its events and the
        // action itself, redacted, show nobody another seat's secret.
        for (i, a) in legal.iter().enumerate() {
            assert!(!legal[..i].contains(a), "{at}: {a:?} listed twice");
            let mut probe = game.clone();
            events.clear();
            probe
                .apply(seat, a, &mut events)
                .unwrap_or_else(|e| panic!("{at}: listed {a:?} refused: {e}"));
            check_events::<G>(&events, players, &at);
            for viewer in viewers(players) {
                let r = G::redact_action(a, viewer, seat);
                assert!(
                    !G::action_leaks(&r, viewer, seat),
                    "{at}: {a:?} for {viewer:?}"
                );
            }
            assert_eq!(&G::redact_action(a, Viewer::Seat(seat), seat), a);
        }

        // Refused actions leave no trace: another seat acting, and actions
        // listed in earlier positions that the engine refuses here.
        let other = Seat((seat.0 + 1) % players as u8);
        let mut tries = vec![(other, legal[0].clone())];
        for _ in 0..4.min(earlier.len()) {
            tries.push((seat, earlier[pick(&mut rng, earlier.len())].clone()));
        }
        for (who, a) in tries {
            let mut probe = game.clone();
            events.clear();
            if probe.apply(who, &a, &mut events).is_err() {
                assert!(
                    probe == game,
                    "{at}: refused {a:?} by {who} changed the state"
                );
                assert!(events.is_empty(), "{at}: refused {a:?} reported events");
            } else {
                assert!(who == seat, "{at}: {who} acted out of turn");
            }
        }

        let a = legal[pick(&mut rng, legal.len())].clone();
        events.clear();
        game.apply(seat, &a, &mut events).unwrap();
        log.extend(events.iter().cloned());
        if earlier.len() < 64 {
            earlier.push(a.clone());
        } else {
            let i = pick(&mut rng, earlier.len());
            earlier[i] = a.clone();
        }
        actions.push((seat, a));
        step += 1;
    }
    assert!(game.outcome().is_some(), "finished games have an outcome");
    assert!(game.timeout_action().is_none());
    legal.clear();
    game.legal_actions(&mut legal);
    assert!(legal.is_empty());

    // The same seed and actions: the same game, the same events.
    let mut again = Vec::new();
    let mut replay = G::new(players, seed, &G::Options::default(), &mut again).unwrap();
    for (seat, a) in &actions {
        replay.apply(*seat, a, &mut again).unwrap();
    }
    assert!(replay == game, "{} seed {seed}: replay differs", G::NAME);
    assert!(
        again == log,
        "{} seed {seed}: replayed events differ",
        G::NAME
    );
}

/// Plays only timeout actions: the game ends (by the rules or the safeguard).
fn timeouts_end<G: Conformance>(players: usize, seed: u64) {
    let mut events = Vec::new();
    let mut game = G::new(players, seed, &G::Options::default(), &mut events).unwrap();
    let mut steps = 0;
    while let Some(seat) = game.to_act() {
        let a = game
            .timeout_action()
            .expect("a default while the game runs");
        game.apply(seat, &a, &mut events)
            .unwrap_or_else(|e| panic!("{} seed {seed}: timeout {a:?} refused: {e}", G::NAME));
        steps += 1;
        assert!(
            steps < 200_000,
            "{} seed {seed}: games of timeouts end",
            G::NAME
        );
    }
}

/// Runs the whole suite on `seeds` random games of every player count.
pub fn suite<G: Conformance>(seeds: u64) {
    for seed in 0..seeds {
        for players in G::MIN_PLAYERS..=G::MAX_PLAYERS {
            random_sim::<G>(players, seed);
        }
    }
    for seed in 0..3 {
        for players in G::MIN_PLAYERS..=G::MAX_PLAYERS {
            timeouts_end::<G>(players, seed);
        }
    }
}
