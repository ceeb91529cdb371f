//! The end: the end trigger, the owed final turns, the druid's last round, the safeguard.

use super::*;

/// Plays the current turn to its end with "offer nothing" and the first big yield.
fn finish_turn_quietly(game: &mut Meduris) {
    let start = game.turn();
    while game.turn() == start
        && !matches!(
            game.decision(),
            None | Some(Decision::Offering {
                last_round: true,
                ..
            })
        )
    {
        let seat = game.to_act().unwrap();
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        let action = legal
            .iter()
            .copied()
            .find(|a| matches!(a, Action::BigYield { .. } | Action::Offer { .. }))
            .unwrap_or(legal[0]);
        play(game, seat, action);
    }
}

#[test]
fn end_trigger_gives_every_other_player_one_turn_then_the_last_round() {
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    stack(st, Wood, &[PURPLE, BLUE, GREEN]);
    st.seats[BLUE.index()].huts_left = 1;
    st.seats[BLUE.index()].temples_left = 0;
    hut(st, 20, GREEN);
    hut(st, 10, PURPLE);
    st.druid = DruidPos::Field(20);
    set_goods(st, BLUE, g(&[(Wood, 1), (Wool, 1)]));
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 5,
            payment: g(&[(Wood, 1), (Wool, 1)]),
        },
    );
    // Druid walks from 20 across the river to 5: blue's ritual first.
    assert!(!ev.iter().any(|e| matches!(e, Event::EndTriggered { .. })));
    play(&mut game, BLUE, offer(Goods::EMPTY));
    // Only now (after the ritual) the end is triggered.
    assert_eq!(game.state().end_trigger, Some(BLUE));
    assert_eq!(game.active(), GREEN);
    finish_turn_quietly(&mut game);
    assert_eq!(game.active(), PURPLE);
    finish_turn_quietly(&mut game);
    // No more turns: the druid's last round from his position (beside hut 5): 10, 20, 5.
    let mut order = Vec::new();
    while let Some(Decision::Offering { field, last_round }) = game.decision() {
        assert!(last_round);
        order.push(field);
        let seat = game.to_act().unwrap();
        play(&mut game, seat, offer(Goods::EMPTY));
    }
    assert_eq!(
        order,
        vec![10, 20, 5],
        "every hut exactly once, ending at the marked hut"
    );
    assert_eq!(game.to_act(), None);
    assert!(game.outcome().is_some());
}

#[test]
fn last_round_from_the_stone_fields_starts_at_field_zero_without_river_scoring() {
    let mut game = bare(2, PURPLE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(2);
    for f in [0, 1, 2, 17, 31] {
        hut(st, f, BLUE);
    }
    st.runes[Area::Serpent.index()] = Some(BLUE);
    let mut ev = Vec::new();
    st.options.max_turns = 1;
    // Regular play ends by the safeguard at the end of this turn.
    apply::tests_end_turn(st, &mut ev);
    assert!(ev.contains(&Event::SafeguardReached { turns: 1 }));
    let mut order = Vec::new();
    let mut all = ev;
    while let Some(Decision::Offering { field, .. }) = game.decision() {
        order.push(field);
        all.extend(play(&mut game, BLUE, offer(Goods::EMPTY)));
    }
    assert_eq!(order, vec![0, 1, 2, 17, 31]);
    assert!(
        !all.contains(&Event::RiverCrossed),
        "no interim scoring in the last round"
    );
    let o = game.outcome().unwrap();
    assert!(o.by_safeguard);
}

/// \[ruling\] The safeguard applies only while no end has been triggered: once
/// a player has built everything, the owed final turns are played and then the
/// last round, even past `max_turns`.
#[test]
fn the_safeguard_never_cuts_the_owed_final_turns_short() {
    let mut game = bare(3, BLUE);
    let st = game.state_mut();
    st.turn = 5;
    st.options.max_turns = 5;
    st.end_trigger = Some(PURPLE);
    st.last_turns_left = 2;
    let mut ev = Vec::new();
    apply::tests_end_turn(st, &mut ev);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::SafeguardReached { .. })),
        "{ev:?}"
    );
    assert!(ev.contains(&Event::TurnStarted {
        seat: Seat(2),
        turn: 6
    }));
    assert_eq!(game.view(crate::Viewer::Spectator).last_turns_left, 1);
    let mut ev = Vec::new();
    let st = game.state_mut();
    st.phase = Phase::Turn;
    apply::tests_end_turn(st, &mut ev);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::SafeguardReached { .. }))
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::LastRoundStarted { .. }))
    );
    assert!(!game.state().by_safeguard);
}
