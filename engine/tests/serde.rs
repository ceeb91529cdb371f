//! The `serde` feature: a complete game (hidden information, the seed's
//! stream and the chance mode included) serialised and restored exactly, on
//! random positions of both games (and the test tree's Cairn) — mid-game, with a chance draw pending, and
//! resampled from a seat's view — and a restored game plays on exactly as the
//! original does. Tampered input is refused or, when it is still a position,
//! played without panicking.

use druids_engine::cairn::Cairn;
use druids_engine::dolmen::Dolmen;
use druids_engine::meduris::Meduris;
use druids_engine::{Chance, ChanceMode, Determinize, Game, Seat, Viewer};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A small deterministic stream of choices (splitmix64).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Plays up to `steps` random steps (actions, and chance outcomes when a
/// draw is pending); returns the events.
fn play<G: Chance>(game: &mut G, choices: &mut Choices, steps: usize) -> Vec<G::Event> {
    let (mut events, mut legal) = (Vec::new(), Vec::new());
    for _ in 0..steps {
        if let Some(draw) = game.pending_draw() {
            game.apply_chance(choices.below(draw.outcomes), &mut events)
                .unwrap();
            continue;
        }
        let Some(seat) = game.to_act() else { break };
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(!legal.is_empty(), "{seat} must act and has no legal action");
        let a = legal[choices.below(legal.len())].clone();
        game.apply(seat, &a, &mut events).unwrap();
    }
    events
}

/// A random position: `steps` into a game set up in either chance mode,
/// then possibly resampled from a seat's view.
fn position<G: Chance + Determinize>(
    players: usize,
    seed: u64,
    steps: usize,
    explicit: bool,
    resample: Option<usize>,
) -> G {
    let options = G::Options::default();
    let mut events = Vec::new();
    let mut game = if explicit {
        G::new_explicit(players, seed, &options, &mut events).unwrap()
    } else {
        G::new(players, seed, &options, &mut events).unwrap()
    };
    play(&mut game, &mut Choices(seed ^ 0x5eed), steps);
    match resample {
        // (A finished game is not resampled: its outcome's tie-breaks on
        // hidden goods can be too rare for determinize's deals to meet.)
        Some(s) if game.pending_draw().is_none() && game.outcome().is_none() => {
            let viewer = Viewer::Seat(Seat((s % players) as u8));
            G::determinize(&game.view(viewer), seed.wrapping_add(1)).unwrap()
        }
        _ => game,
    }
}

/// Serialises `game`, restores it, and checks that the copy is the same
/// game and plays on exactly as the original (to the end).
fn round_trip<G: Chance + Serialize + DeserializeOwned>(mut game: G, choose: u64) {
    let text = serde_json::to_string(&game).unwrap();
    let mut back: G = serde_json::from_str(&text).unwrap();
    assert_eq!(back, game);
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    assert_eq!(back.chance_mode(), game.chance_mode());
    assert_eq!(back.seed_draw(), game.seed_draw());
    // The seed's stream and every derived table came back: the same choices
    // give the same game, in either chance mode.
    if choose.is_multiple_of(2) {
        game.set_chance_mode(ChanceMode::Seeded, &mut Vec::new());
        back.set_chance_mode(ChanceMode::Seeded, &mut Vec::new());
    }
    let a = play(&mut game, &mut Choices(choose), 100_000);
    let b = play(&mut back, &mut Choices(choose), 100_000);
    assert_eq!(a, b);
    assert_eq!(back, game);
    assert_eq!(back.outcome(), game.outcome());
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn meduris_positions_round_trip(
        players in 2usize..=4,
        seed: u64,
        steps in 0usize..400,
        explicit: bool,
        resample in proptest::option::of(0usize..4),
        choose: u64,
    ) {
        round_trip(position::<Meduris>(players, seed, steps, explicit, resample), choose);
    }

    #[test]
    fn cairn_positions_round_trip(
        players in 2usize..=4,
        seed: u64,
        steps in 0usize..200,
        explicit: bool,
        resample in proptest::option::of(0usize..4),
        choose: u64,
    ) {
        round_trip(position::<Cairn>(players, seed, steps, explicit, resample), choose);
    }

    #[test]
    fn dolmen_positions_round_trip(
        players in 2usize..=5,
        seed: u64,
        steps in 0usize..400,
        resample in proptest::option::of(0usize..5),
        choose: u64,
    ) {
        round_trip(position::<Dolmen>(players, seed, steps, false, resample), choose);
    }
}

#[test]
fn a_pending_draw_survives_the_round_trip() {
    // Explicit chance: the set-up's first draw is pending, then a die roll.
    let mut game = Meduris::new_explicit(3, 17, &Default::default(), &mut Vec::new()).unwrap();
    assert!(game.pending_draw().is_some());
    round_trip(game.clone(), 1);
    while game.pending_draw().is_some() {
        game.apply_chance(0, &mut Vec::new()).unwrap();
    }
    let mut choices = Choices(3);
    while game.pending_draw().is_none() {
        play(&mut game, &mut choices, 1);
    }
    let back: Meduris = serde_json::from_str(&serde_json::to_string(&game).unwrap()).unwrap();
    assert_eq!(back.pending_draw(), game.pending_draw());
    assert_eq!(back.chance_mode(), ChanceMode::Explicit);
    round_trip(game, 2);
}

/// `text` with its first `from` replaced by `to` (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from} in {text}");
    text.replacen(from, to, 1)
}

#[test]
fn states_that_are_no_position_are_refused_with_the_reason() {
    let text = serde_json::to_string(&position::<Meduris>(4, 5, 60, false, None)).unwrap();
    for (from, to, reason) in [
        ("\"players\":4", "\"players\":9", "not 2 to 4 seats"),
        ("\"supply\":[", "\"supply\":[1", "goods are not conserved"),
        ("\"active\":", "\"active\":4", "no seat"),
        (
            "\"druid\":",
            "\"druid\":{\"Field\":200},\"x\":",
            "the druid stands nowhere",
        ),
    ] {
        let bad = edit(&text, from, to);
        let err = serde_json::from_str::<Meduris>(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains(reason), "{to}: {err}");
    }
    // The first plateau's stack, whatever it holds, replaced by a worker of seat 7.
    let start = text.find("\"plateaus\":[").unwrap() + "\"plateaus\":[".len();
    let end = start + text[start..].find('}').unwrap() + 1;
    let bad = format!(
        "{}{{\"workers\":[7,0,0],\"len\":1}}{}",
        &text[..start],
        &text[end..]
    );
    let err = serde_json::from_str::<Meduris>(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("a worker of no seat"), "{err}");
    let text = serde_json::to_string(&position::<Dolmen>(3, 5, 60, false, None)).unwrap();
    let bad = edit(&text, "\"stones_left\":", "\"stones_left\":1");
    let err = serde_json::from_str::<Dolmen>(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("pieces are not conserved"), "{err}");
}

/// Meduris positions no game reaches are refused: two of them the rules
/// cannot play to an end (the last round walks from hut to hut until it
/// comes back to its end, or to the druid's field, so these must hold
/// huts), the others contradict how the set-up and the rules leave the
/// board (the chips' mix, chips used or forbidden under a building, the
/// end's trigger, the safeguard), and some would panic or leave a seat to
/// act with nothing legal: the set-up's phases after play began, play before
/// every worker is placed, a die to supply without explicit chance, a good
/// to give back by a seat holding none.
#[test]
fn unreachable_meduris_positions_are_refused() {
    use serde_json::{Value, json};
    // (The seed's stream holds numbers past what a `Value` holds, so the
    // text is edited field by field: `key`'s value runs to `,"next"`.)
    fn range(text: &str, key: &str, next: &str) -> std::ops::Range<usize> {
        let start = text.find(&format!("\"{key}\":")).expect(key) + key.len() + 3;
        start..start + text[start..].find(&format!(",\"{next}\":")).expect(next)
    }
    fn read(text: &str, key: &str, next: &str) -> Value {
        serde_json::from_str(&text[range(text, key, next)]).unwrap()
    }
    fn set(text: &str, key: &str, next: &str, to: &Value) -> String {
        let r = range(text, key, next);
        format!("{}{to}{}", &text[..r.start], &text[r.end..])
    }
    let text = serde_json::to_string(&position::<Meduris>(2, 3, 120, false, None)).unwrap();
    let phase = read(&text, "phase", "active");
    assert!(phase.get("LastRound").is_none() && phase != json!("Over"));
    assert!(read(&text, "end_trigger", "last_turns_left").is_null());
    assert_ne!(read(&text, "seats", "runes")[0]["huts_left"], json!(0));
    let buildings = read(&text, "buildings", "chips");
    let chips: Value = {
        let r = range(&text, "chips", "plateaus");
        serde_json::from_str(&text[r.start..r.end - 1]).unwrap()
    };
    let fields = buildings.as_array().unwrap();
    let hut = fields.iter().position(|b| b.get("Hut").is_some()).unwrap();
    let temple = fields
        .iter()
        .position(|b| b.get("Temple").is_some())
        .unwrap();
    let empty: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].is_null() && chips[i].is_null())
        .collect();
    let with_chips = |at: &[usize], chip: &str| {
        let mut c = chips.clone();
        for &f in at {
            c[f] = json!(chip);
        }
        let r = range(&text, "chips", "plateaus");
        format!("{}{c}}}{}", &text[..r.start], &text[r.end..])
    };
    // The set-up's worker placement, and a turn at which a seat holds no good.
    let early = serde_json::to_string(&position::<Meduris>(2, 3, 0, false, None)).unwrap();
    assert!(
        read(&early, "phase", "active")
            .get("PlaceWorkers")
            .is_some()
    );
    let (poor, poor_seat) = (0..2000)
        .find_map(|steps| {
            let t = serde_json::to_string(&position::<Meduris>(4, 7, steps, false, None)).unwrap();
            if read(&t, "phase", "active") != json!("Turn") {
                return None;
            }
            let seats = read(&t, "seats", "runes");
            (0..4)
                .find(|&s| seats[s]["goods"] == json!([0, 0, 0, 0]))
                .map(|s| (t, s))
        })
        .expect("a seat without goods at a turn");
    for (bad, reason) in [
        (
            set(
                &set(&text, "druid", "phase", &json!({ "Field": hut })),
                "phase",
                "active",
                &json!({"LastRound": {"field": hut, "end": empty[0]}}),
            ),
            "a field without a hut or the druid",
        ),
        (
            set(&text, "druid", "phase", &json!({ "Field": empty[0] })),
            "the druid stands by no hut",
        ),
        (
            with_chips(&empty[..3], "PlusTwo"),
            "more bonus chips of a kind",
        ),
        (with_chips(&[hut], "FreeHut"), "under a building"),
        (with_chips(&[temple], "DruidOffering"), "under a building"),
        (
            set(
                &set(&text, "end_trigger", "last_turns_left", &json!(0)),
                "last_turns_left",
                "by_safeguard",
                &json!(1),
            ),
            "triggered by a seat with buildings left",
        ),
        (
            set(&text, "by_safeguard", "built", &json!(true)),
            "the safeguard ended a game",
        ),
        (
            set(&text, "phase", "active", &json!({"Chips": {"drawn": 0}})),
            "a set-up after turns were played",
        ),
        (
            set(&early, "phase", "active", &json!({"Chips": {"drawn": 0}})),
            "the chips' draws after the chips or workers were placed",
        ),
        (
            set(&early, "phase", "active", &json!({"TakeGood": {"seat": 0}})),
            "turns while workers are still to be placed",
        ),
        (
            set(&text, "turn", "end_trigger", &json!(1_000_000)),
            "the turn count is beyond the game's max_turns",
        ),
        (
            set(&text, "phase", "active", &json!("Roll")),
            "a die to supply in a game without explicit chance",
        ),
        (
            set(
                &poor,
                "phase",
                "active",
                &json!({"ReturnGood": {"seat": poor_seat}}),
            ),
            "a good to give back by a seat that holds none",
        ),
    ] {
        let err = serde_json::from_str::<Meduris>(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains(reason), "{reason}: {err}");
    }
}

/// Die Dolmengötter positions no game reaches, on which the rules would
/// panic or break a rule, are refused: a set-up decision by a seat with no
/// druid left, a stone owed by a seat with none, a dolmen decision on a
/// full stack.
#[test]
fn unreachable_dolmen_positions_are_refused() {
    use serde_json::{Value, json};
    let refused = |bad: Value, reason: &str| {
        let err = serde_json::from_value::<Dolmen>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains(reason), "{reason}: {err}");
    };
    // Right after the set-up (3 druids each), and later a turn of a seat
    // whose stones are all placed.
    let started = serde_json::to_value(position::<Dolmen>(2, 1, 6, false, None)).unwrap();
    assert_eq!(started["phase"], json!("Turn"));
    let stoneless = (0..40u64)
        .flat_map(|seed| (20..300).step_by(5).map(move |steps| (seed, steps)))
        .map(|(seed, steps)| serde_json::to_value(position::<Dolmen>(2, seed, steps, false, None)))
        .map(Result::unwrap)
        .find(|v| {
            let active = v["active"].as_u64().unwrap() as usize;
            v["phase"] == json!("Turn") && v["seats"][active]["stones_left"] == json!(0)
        })
        .expect("a turn of a seat without stones");

    let mut bad = started.clone();
    bad["phase"] = json!({"PlaceDruid": {"seat": 0}});
    refused(bad, "a druid to place by a seat that has none left");

    let free = stoneless["sites"]
        .as_array()
        .unwrap()
        .iter()
        .position(Value::is_null)
        .unwrap();
    let mut bad = stoneless.clone();
    bad["phase"] = json!({"Stone": {"site": free}});
    refused(bad, "a stone owed by a seat that has none left");

    // Square F (circle 5) full with 3 of seat 1's dolmens, and a decision
    // to place a fourth pending on it; then with a fourth placed.
    let hand = started["seats"][1]["hand"].as_array().unwrap();
    let value = hand
        .iter()
        .position(|k| k.as_u64() >= Some(4))
        .expect("4 alike")
        + 1;
    let full = |dolmens: usize| {
        let mut s = started.clone();
        for i in 0..dolmens {
            s["circles"][5]["stack"][i] = json!({"owner": 1, "value": value});
        }
        s["circles"][5]["len"] = json!(dolmens);
        let held = s["seats"][1]["hand"][value - 1].as_u64().unwrap();
        s["seats"][1]["hand"][value - 1] = json!(held - dolmens as u64);
        s["seats"][1]["placed"] = json!(dolmens);
        s
    };
    let mut bad = full(3);
    bad["queue"]["items"][0] = json!({"circle": 5, "seat": 0, "on_top": true});
    bad["queue"]["len"] = json!(1);
    bad["phase"] = json!("Dolmen");
    refused(bad, "a dolmen decision on a full stack");
    // (A stack past its shape's limit counts as pieces not conserved.)
    refused(full(4), "pieces are not conserved");
    // The full stack alone is a position.
    assert!(serde_json::from_value::<Dolmen>(full(3)).is_ok());

    // Turns far past the safeguard, which ends a game at `max_turns`.
    let mut bad = started.clone();
    bad["turn"] = json!(bad["max_turns"].as_u64().unwrap() + 1000);
    refused(bad, "the turn count or the safeguard is out of range");
}

/// Where the numbers of a JSON text are (byte ranges; keys hold no digits).
fn numbers(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() || bytes[i] == b'-' {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push(start..i);
        } else {
            i += 1;
        }
    }
    out
}

/// Changes one number of a serialised position to `to`: the result is
/// refused, or it is a position the rules play on without panicking.
fn tamper<G: Chance + Serialize + DeserializeOwned>(game: &G, pick: usize, to: u64) {
    let text = serde_json::to_string(game).unwrap();
    let spots = numbers(&text);
    let spot = spots[pick % spots.len()].clone();
    let text = format!("{}{to}{}", &text[..spot.start], &text[spot.end..]);
    let Ok(mut game) = serde_json::from_str::<G>(&text) else {
        return;
    };
    // Whatever the position, the engine answers every call without panicking.
    let (mut events, mut legal, mut choices) = (Vec::new(), Vec::new(), Choices(to));
    game.set_chance_mode(ChanceMode::Seeded, &mut events);
    for _ in 0..20_000 {
        let Some(seat) = game.to_act() else { break };
        for viewer in [Viewer::Spectator, Viewer::Seat(seat)] {
            let _ = game.view(viewer);
        }
        let _ = game.timeout_action();
        legal.clear();
        game.legal_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        let a = legal[choices.below(legal.len())].clone();
        if game.apply(seat, &a, &mut events).is_err() {
            break;
        }
    }
    let _ = game.outcome();
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn tampered_meduris_states_never_panic(
        seed: u64,
        steps in 0usize..300,
        explicit: bool,
        pick: usize,
        to in prop_oneof![0u64..6, 0u64..50, Just(255u64), any::<u64>()],
    ) {
        let game = position::<Meduris>(2 + (seed % 3) as usize, seed, steps, explicit, None);
        tamper(&game, pick, to);
    }

    #[test]
    fn tampered_cairn_states_never_panic(
        seed: u64,
        steps in 0usize..200,
        explicit: bool,
        pick: usize,
        to in prop_oneof![0u64..8, Just(255u64), any::<u64>()],
    ) {
        let game = position::<Cairn>(2 + (seed % 3) as usize, seed, steps, explicit, None);
        tamper(&game, pick, to);
    }

    #[test]
    fn tampered_dolmen_states_never_panic(
        seed: u64,
        steps in 0usize..300,
        pick: usize,
        to in prop_oneof![0u64..6, 0u64..80, Just(255u64), any::<u64>()],
    ) {
        let game = position::<Dolmen>(2 + (seed % 4) as usize, seed, steps, false, None);
        tamper(&game, pick, to);
    }
}

/// Every position of games cut short by a small `max_turns` (the safeguard,
/// and the owed last turns past it) is restored: the bound on the turn count
/// refuses no position the rules reach.
#[test]
fn positions_up_to_the_safeguard_are_restored() {
    fn each_step<G: Chance + Serialize + DeserializeOwned>(mut game: G, seed: u64) {
        let mut choices = Choices(seed);
        loop {
            let text = serde_json::to_string(&game).unwrap();
            if let Err(e) = serde_json::from_str::<G>(&text) {
                panic!("seed {seed}: a reached position is refused: {e}");
            }
            if game.outcome().is_some() {
                return;
            }
            play(&mut game, &mut choices, 1);
        }
    }
    for max_turns in 1..=12 {
        for seed in 0..8u64 {
            for players in 2..=4 {
                let options = druids_engine::meduris::Options {
                    max_turns,
                    ..Default::default()
                };
                each_step(
                    Meduris::new(players, seed, &options, &mut Vec::new()).unwrap(),
                    seed,
                );
            }
            for players in 2..=5 {
                let options = druids_engine::dolmen::Options {
                    max_turns,
                    ..Default::default()
                };
                each_step(
                    Dolmen::new(players, seed, &options, &mut Vec::new()).unwrap(),
                    seed,
                );
            }
        }
    }
}
