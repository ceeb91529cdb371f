//! The rulebook's pictures, played through: the fourth build leaving the
//! stone fields, a ritual down a settlement, the next player's turn.

use super::*;

#[test]
fn example_03_rulebook_fourth_hut_druid_leaves_the_stone_fields_to_a_lone_hut() {
    // The rulebook's picture: three huts stand (the first three builds), the 4th
    // hut is built away from them; the druid leaves stone field 3 and walks from
    // field 0 to the nearest hut, light-green's, which stands alone.
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    st.druid = DruidPos::StoneField(3);
    hut(st, 10, GREEN); // Splash: wool, stone
    hut(st, 20, PURPLE);
    hut(st, 30, RED);
    st.built = [1, 0, 1, 1];
    set_goods(st, BLUE, g(&[(Stone, 1), (Wool, 1)]));
    set_goods(st, GREEN, g(&[(Wool, 1), (Wood, 2)]));
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 25, // Wave: stone, wool
            payment: g(&[(Stone, 1), (Wool, 1)]),
        },
    );
    assert!(!ev.contains(&Event::RiverCrossed));
    assert_eq!(game.state().druid, DruidPos::Field(10));
    assert_eq!(
        game.decision(),
        Some(Decision::Offering {
            field: 10,
            last_round: false
        })
    );
    assert_eq!(game.to_act(), Some(GREEN));
    let (g0, b0) = (score(&game, GREEN), score(&game, BLUE));
    play(&mut game, GREEN, offer(g(&[(Wool, 1)])));
    assert_eq!(score(&game, GREEN), g0 + 1, "one good: +1");
    assert_eq!(score(&game, BLUE), b0);
    assert_eq!(game.goods(GREEN), g(&[(Wood, 2)]));
    // The lone hut ends the ritual: the next player's turn.
    assert_eq!(game.state().druid, DruidPos::Field(10));
    assert_eq!(game.active(), GREEN);
    assert_eq!(game.turn(), 2);
}

#[test]
fn example_04_rulebook_fields_third_hut_ritual_down_the_settlement() {
    // 4-player board: blue builds on 22 (wood, stone) in front of red's huts on
    // 23 (copper, wool) and 24 (stone, wood); a temple on 25 ends the settlement.
    let mut game = bare(4, BLUE);
    let st = game.state_mut();
    hut(st, 15, PURPLE);
    st.druid = DruidPos::Field(15);
    hut(st, 23, RED);
    hut(st, 24, RED);
    temple(st, 25, PURPLE);
    st.runes[Area::Wave.index()] = Some(RED);
    set_goods(st, BLUE, g(&[(Stone, 4), (Wood, 4)]));
    // Red has neither wool nor copper (but could replace one by three goods).
    set_goods(st, RED, g(&[(Wood, 1), (Stone, 2)]));
    let (b0, r0) = (score(&game, BLUE), score(&game, RED));
    // The 3rd hut of the settlement: 3 stone + 3 wood, not less.
    reject(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 22,
            payment: g(&[(Stone, 2), (Wood, 2)]),
        },
    );
    let ev = play(
        &mut game,
        BLUE,
        Action::BuildHut {
            field: 22,
            payment: g(&[(Stone, 3), (Wood, 3)]),
        },
    );
    assert!(matches!(ev[0], Event::HutBuilt { settlement: 3, .. }));
    assert_eq!(game.goods(BLUE), g(&[(Stone, 1), (Wood, 1)]));
    assert_eq!(game.state().runes[Area::Wave.index()], Some(BLUE));
    // The new hut is the nearest: the ritual starts there.
    assert_eq!(game.state().druid, DruidPos::Field(22));
    play(&mut game, BLUE, offer(g(&[(Stone, 1), (Wood, 1)])));
    assert_eq!(score(&game, BLUE), b0 + 3);
    assert_eq!(game.goods(BLUE), Goods::EMPTY);
    assert_eq!(game.state().druid, DruidPos::Field(23));
    assert_eq!(game.to_act(), Some(RED));
    play(&mut game, RED, offer(Goods::EMPTY));
    assert_eq!(score(&game, RED), r0 - 1);
    assert_eq!(game.state().druid, DruidPos::Field(24));
    play(&mut game, RED, offer(g(&[(Wood, 1)])));
    assert_eq!(score(&game, RED), r0);
    assert_eq!(game.goods(RED), g(&[(Stone, 2)]));
    // The temple on 25 ends the settlement and the ritual: next player.
    assert_eq!(game.state().druid, DruidPos::Field(24));
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.active(), GREEN);
}

#[test]
fn example_05_after_the_ritual_the_next_player_plays() {
    let mut game = bare(4, RED);
    let st = game.state_mut();
    st.druid = DruidPos::Field(38);
    hut(st, 38, PURPLE);
    hut(st, 1, GREEN); // Serpent: stone, wood
    st.runes[Area::Serpent.index()] = Some(GREEN);
    set_goods(st, RED, g(&[(Stone, 1), (Copper, 1)]));
    set_goods(st, GREEN, g(&[(Stone, 1), (Wood, 1)]));
    let g0 = score(&game, GREEN);
    play(
        &mut game,
        RED,
        Action::BuildTemple {
            field: 9,
            payment: g(&[(Stone, 1), (Copper, 1)]),
        },
    );
    assert_eq!(score(&game, GREEN), g0 + 1, "interim rune scoring");
    assert_eq!(game.active(), RED, "the ritual belongs to red's turn");
    play(&mut game, GREEN, offer(g(&[(Stone, 1), (Wood, 1)])));
    assert_eq!(
        score(&game, GREEN),
        g0 + 2,
        "a lone hut: both goods score 1"
    );
    assert_eq!(game.decision(), Some(Decision::Turn));
    assert_eq!(game.active(), PURPLE);
}
