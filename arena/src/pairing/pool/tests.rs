use std::collections::BTreeSet;

use super::*;

const MEDURIS: u8 = 1;
const DOLMEN: u8 = 2;

/// The games' seats, as the server's descriptors give them.
fn seats(kind: &u8) -> Seats {
    match *kind {
        DOLMEN => Seats::new(2, 5),
        _ => Seats::new(2, 4),
    }
}

fn seek(id: u64, bot: u64, players: RangeInclusive<u8>, rating: f64, since_ms: u64) -> Seek<u8> {
    Seek {
        id: SeekId(id),
        bot: BotId(bot),
        kind: MEDURIS,
        players,
        rated: true,
        rating,
        since_ms,
    }
}

fn pool_of(seeks: Vec<Seek<u8>>) -> Pool<u8> {
    let mut pool = Pool::new(PoolConfig::default(), seats);
    for s in seeks {
        pool.add(s).unwrap();
    }
    pool
}

fn bots(m: &Match<u8>) -> BTreeSet<u64> {
    m.seats.iter().map(|(_, b)| b.0).collect()
}

#[test]
fn empty_pool_forms_nothing() {
    let mut pool: Pool<u8> = Pool::new(PoolConfig::default(), seats);
    assert!(pool.form(0).is_empty());
    assert!(pool.form(u64::MAX).is_empty());
}

#[test]
fn add_refuses_bad_seeks() {
    let mut pool = pool_of(vec![seek(1, 1, 2..=2, 1500.0, 0)]);
    assert_eq!(
        pool.add(seek(1, 2, 2..=2, 1500.0, 0)),
        Err(PoolError::DuplicateSeek(SeekId(1)))
    );
    #[allow(clippy::reversed_empty_ranges)] // an empty range is one of the bad inputs
    let ranges = [1..=2, 2..=5, 3..=2, 0..=0];
    for range in ranges {
        let r = pool.add(seek(2, 2, range, 1500.0, 0));
        assert!(matches!(r, Err(PoolError::BadPlayers { .. })), "{r:?}");
    }
    for rating in [f64::NAN, f64::INFINITY] {
        assert_eq!(
            pool.add(seek(2, 2, 2..=4, rating, 0)),
            Err(PoolError::BadRating(SeekId(2)))
        );
    }
    assert_eq!(pool.len(), 1);
}

#[test]
fn two_close_seeks_make_a_game_and_leave_the_pool() {
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 2, 2..=4, 1510.0, 0),
    ]);
    let ms = pool.form(0);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].players, 2);
    assert_eq!(ms[0].kind, MEDURIS);
    assert!(ms[0].rated);
    assert_eq!(bots(&ms[0]), BTreeSet::from([1, 2]));
    assert!(pool.is_empty());
    assert_eq!(
        pool.load(BotId(1)),
        Load {
            playing: 1,
            limit: 1
        }
    );
}

#[test]
fn a_bot_never_meets_itself() {
    // Bot 1 has three seeks open; only one other bot seeks.
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=4, 1500.0, 0),
        seek(2, 1, 2..=4, 1500.0, 1),
        seek(3, 1, 2..=4, 1500.0, 2),
        seek(4, 2, 2..=4, 1500.0, 3),
    ]);
    for b in [1, 2] {
        pool.set_load(BotId(b), 0, 10);
    }
    let ms = pool.form(10);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].players, 2);
    assert_eq!(bots(&ms[0]), BTreeSet::from([1, 2]));
    assert_eq!(pool.len(), 2);
}

#[test]
fn a_bot_at_its_limit_is_not_matched() {
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 2, 2..=2, 1500.0, 0),
    ]);
    pool.set_load(BotId(1), 2, 2);
    assert!(pool.form(0).is_empty());
    pool.set_load(BotId(1), 1, 2);
    assert_eq!(pool.form(0).len(), 1);
    assert_eq!(
        pool.load(BotId(1)),
        Load {
            playing: 2,
            limit: 2
        }
    );
}

#[test]
fn a_game_formed_counts_toward_the_limit_within_the_same_call() {
    // Bot 1 seeks twice and may play one game: only one of its seeks is
    // matched, though two partners wait.
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 1, 2..=2, 1500.0, 0),
        seek(3, 2, 2..=2, 1500.0, 0),
        seek(4, 3, 2..=2, 1500.0, 0),
    ]);
    let ms = pool.form(0);
    assert_eq!(ms.len(), 1);
    assert!(bots(&ms[0]).contains(&1));
    // Bot 1's other seek stays open, unmatched, as does one partner.
    assert_eq!(pool.len(), 2);
    assert!(pool.form(0).is_empty());
    // With a limit of two, bot 1 plays both.
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 1, 2..=2, 1500.0, 0),
        seek(3, 2, 2..=2, 1500.0, 0),
        seek(4, 3, 2..=2, 1500.0, 0),
    ]);
    pool.set_load(BotId(1), 0, 2);
    let ms = pool.form(0);
    assert_eq!(ms.len(), 2);
    assert!(ms.iter().all(|m| bots(m).contains(&1)));
}

#[test]
fn each_kind_is_bounded_by_its_own_seats() {
    // Five Dolmen seekers of 5..=5 form one five-player game; a Meduris
    // seek of 5 is refused.
    let mut pool: Pool<u8> = Pool::new(PoolConfig::default(), seats);
    for i in 1..=5 {
        let mut s = seek(i, i, 5..=5, 1500.0, 0);
        s.kind = DOLMEN;
        pool.add(s).unwrap();
    }
    let r = pool.add(seek(6, 6, 5..=5, 1500.0, 0));
    assert!(matches!(r, Err(PoolError::BadPlayers { .. })), "{r:?}");
    let ms = pool.form(0);
    assert_eq!(ms.len(), 1);
    assert_eq!((ms[0].kind, ms[0].players), (DOLMEN, 5));
    assert_eq!(bots(&ms[0]), BTreeSet::from([1, 2, 3, 4, 5]));
    // A 2..=6 Dolmen seek is outside its seats too.
    let mut s = seek(7, 7, 2..=6, 1500.0, 0);
    s.kind = DOLMEN;
    assert!(matches!(pool.add(s), Err(PoolError::BadPlayers { .. })));
}

#[test]
fn kinds_and_rated_flags_do_not_mix() {
    let mut a = seek(1, 1, 2..=2, 1500.0, 0);
    let mut b = seek(2, 2, 2..=2, 1500.0, 0);
    b.kind = DOLMEN;
    let mut pool = pool_of(vec![a.clone(), b.clone()]);
    assert!(pool.form(1_000_000).is_empty());
    a.id = SeekId(3);
    a.rated = false;
    b.id = SeekId(4);
    b.kind = MEDURIS;
    let mut pool = pool_of(vec![a, b]);
    assert!(pool.form(1_000_000).is_empty());
}

#[test]
fn ranges_must_contain_the_count() {
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 2, 3..=4, 1500.0, 0),
    ]);
    assert!(pool.form(1_000_000).is_empty());
    pool.add(seek(3, 3, 3..=4, 1500.0, 0)).unwrap();
    pool.add(seek(4, 4, 3..=3, 1500.0, 0)).unwrap();
    // Seek 1 (oldest, lowest id) cannot join a 3-player game; 2, 3, 4 can
    // (and 4 cannot join a 4-player one).
    let ms = pool.form(1_000_000);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].players, 3);
    assert_eq!(bots(&ms[0]), BTreeSet::from([2, 3, 4]));
}

#[test]
fn the_largest_count_available_is_preferred() {
    let seeks: Vec<_> = (1..=4).map(|i| seek(i, i, 2..=4, 1500.0, 0)).collect();
    let ms = pool_of(seeks).form(0);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].players, 4);
    // A 4-only seeker is served by flexible ones rather than them pairing off.
    let mut seeks: Vec<_> = (1..=3).map(|i| seek(i, i, 2..=4, 1500.0, 0)).collect();
    seeks.push(seek(4, 4, 4..=4, 1500.0, 5));
    let ms = pool_of(seeks).form(10);
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].players, 4);
}

#[test]
fn window_widening_lets_a_far_pair_meet_only_after_waiting() {
    let config = PoolConfig {
        base_window: 50.0,
        widen_per_second: 10.0,
        max_window: 1000.0,
        open_after_ms: None,
        default_limit: 1,
    };
    let mut pool = Pool::new(config, seats);
    pool.add(seek(1, 1, 2..=2, 1500.0, 0)).unwrap();
    pool.add(seek(2, 2, 2..=2, 1700.0, 0)).unwrap();
    // 200 apart: needs a window of 200, reached after 15 s.
    assert!(pool.form(0).is_empty());
    assert!(pool.form(14_999).is_empty());
    assert_eq!(pool.form(15_000).len(), 1);
}

#[test]
fn the_window_is_capped_and_then_opens() {
    let config = PoolConfig::default();
    assert_eq!(config.window(0), 50.0);
    assert_eq!(config.window(10_000), 100.0);
    assert_eq!(config.window(100_000), 400.0);
    assert_eq!(config.window(180_000), f64::INFINITY);
    assert_eq!(config.window(u64::MAX), f64::INFINITY);
}

#[test]
fn a_lone_long_waiter_is_eventually_matched() {
    // A bot 1500 points away from everyone: beyond the cap, so it meets
    // someone only once its window opens, whoever the others are.
    let mut pool = pool_of(vec![seek(1, 1, 2..=4, 3000.0, 0)]);
    for i in 2..=5 {
        pool.add(seek(i, i, 2..=2, 1500.0, 170_000 + i)).unwrap();
    }
    let ms = pool.form(170_100);
    // Only the newcomers' pairs form.
    assert_eq!(ms.len(), 2);
    assert!(ms.iter().all(|m| !bots(m).contains(&1)));
    pool.add(seek(6, 6, 2..=2, 1500.0, 175_000)).unwrap();
    assert!(pool.form(179_999).is_empty());
    let ms = pool.form(180_000);
    assert_eq!(ms.len(), 1);
    assert_eq!(bots(&ms[0]), BTreeSet::from([1, 6]));
}

#[test]
fn the_oldest_seek_is_served_first() {
    // Three equal seeks, room for one 2-player game: the oldest seek (the
    // first anchor) is in it, whatever the ids.
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 30),
        seek(2, 2, 2..=2, 1500.0, 10),
        seek(3, 3, 2..=2, 1500.0, 20),
    ]);
    let ms = pool.form(40);
    assert_eq!(ms.len(), 1);
    assert!(bots(&ms[0]).contains(&2));
    assert_eq!(pool.seeks().count(), 1);
}

#[test]
fn the_anchor_takes_the_closest_ratings() {
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 2, 2..=2, 1540.0, 1),
        seek(3, 3, 2..=2, 1480.0, 2),
        seek(4, 4, 2..=2, 1400.0, 3),
    ]);
    let ms = pool.form(5);
    assert_eq!(ms.len(), 1);
    assert_eq!(bots(&ms[0]), BTreeSet::from([1, 3]));
}

#[test]
fn remove_cancels_a_seek() {
    let mut pool = pool_of(vec![
        seek(1, 1, 2..=2, 1500.0, 0),
        seek(2, 2, 2..=2, 1500.0, 0),
    ]);
    assert_eq!(pool.remove(SeekId(2)).map(|s| s.bot), Some(BotId(2)));
    assert_eq!(pool.remove(SeekId(2)), None);
    assert!(pool.form(0).is_empty());
    pool.add(seek(3, 3, 2..=2, 1500.0, 0)).unwrap();
    pool.add(seek(4, 3, 2..=2, 1500.0, 0)).unwrap();
    assert_eq!(pool.remove_bot(BotId(3)).len(), 2);
    assert_eq!(pool.len(), 1);
}

/// Some member (the anchor) has every member's rating within its window.
fn has_anchor(pool: &Pool<u8>, members: &[&Seek<u8>], now: u64) -> bool {
    members.iter().any(|a| {
        let w = pool.config().window(now.saturating_sub(a.since_ms));
        members.iter().all(|s| (s.rating - a.rating).abs() <= w)
    })
}

fn crowd(n: u64) -> Vec<Seek<u8>> {
    (0..n)
        .map(|i| {
            let h = mix(i);
            let players = match h % 3 {
                0 => 4..=4,
                1 => 2..=4,
                _ => 3..=4,
            };
            let mut s = seek(
                i,
                h % (n / 2 + 1),
                players,
                1000.0 + (h >> 20) as f64 % 1000.0,
                h % 60_000,
            );
            s.rated = !h.is_multiple_of(7);
            s.kind = if h.is_multiple_of(5) { DOLMEN } else { MEDURIS };
            s
        })
        .collect()
}

#[test]
fn same_inputs_same_matches_whatever_the_insertion_order() {
    let seeks = crowd(300);
    let mut a = pool_of(seeks.clone());
    let mut b = pool_of(seeks.into_iter().rev().collect());
    let (ma, mb) = (a.form(60_000), b.form(60_000));
    assert!(!ma.is_empty());
    assert_eq!(ma, mb);
}

#[test]
fn every_rule_holds_in_a_crowd() {
    let seeks = crowd(1000);
    let mut pool = pool_of(seeks.clone());
    for b in (0..200).step_by(3) {
        pool.set_load(BotId(b), 1, 2);
    }
    let before = pool.clone();
    let now = 60_000;
    let ms = pool.form(now);
    assert!(ms.len() > 50, "{}", ms.len());
    let mut games = HashMap::<BotId, u32>::new();
    for m in &ms {
        let members: Vec<&Seek<u8>> = m
            .seats
            .iter()
            .map(|(id, _)| before.get(*id).unwrap())
            .collect();
        assert_eq!(members.len(), usize::from(m.players));
        let distinct: BTreeSet<_> = members.iter().map(|s| s.bot).collect();
        assert_eq!(distinct.len(), members.len(), "a bot twice in {m:?}");
        assert!(has_anchor(&before, &members, now), "{m:?}");
        for s in &members {
            assert_eq!((s.kind, s.rated), (m.kind, m.rated));
            assert!(s.players.contains(&m.players));
            assert!(pool.get(s.id).is_none());
            *games.entry(s.bot).or_default() += 1;
        }
    }
    for (bot, n) in games {
        let load = before.load(bot);
        assert!(load.playing + n <= load.limit, "{bot:?} over its limit");
        assert_eq!(pool.load(bot).playing, load.playing + n);
    }
}

#[test]
fn nobody_always_sits_first() {
    // Many identical 2-player situations with different seek ids: the oldest
    // seek, and the lowest bot id, each sit first only part of the time.
    let (mut oldest_first, mut lowest_first) = (0, 0);
    for i in 0..200 {
        let mut pool = pool_of(vec![
            seek(2 * i, 2 * i, 2..=2, 1500.0, 0),
            seek(2 * i + 1, 2 * i + 1, 2..=2, 1500.0, 1),
        ]);
        let ms = pool.form(1);
        assert_eq!(ms.len(), 1);
        oldest_first += usize::from(ms[0].seats[0].0 == SeekId(2 * i));
        lowest_first += usize::from(ms[0].seats[0].1 == BotId(2 * i));
    }
    assert!((60..=140).contains(&oldest_first), "{oldest_first}");
    assert!((60..=140).contains(&lowest_first), "{lowest_first}");
}

mod props {
    use proptest::prelude::*;

    use super::*;

    fn arb_seek(id: u64) -> impl Strategy<Value = Seek<u8>> {
        (
            0u64..12,
            2u8..=4,
            2u8..=4,
            1000.0f64..2000.0,
            0u64..200_000,
            0u8..2,
            any::<bool>(),
        )
            .prop_map(move |(bot, a, b, rating, since_ms, kind, rated)| Seek {
                id: SeekId(id),
                bot: BotId(bot),
                kind,
                players: a.min(b)..=a.max(b),
                rated,
                rating,
                since_ms,
            })
    }

    /// Seeks, and (bot, playing, limit) loads.
    type Setup = (Vec<Seek<u8>>, Vec<(u64, u32, u32)>);

    fn arb_pool() -> impl Strategy<Value = Setup> {
        let seeks = (0usize..40).prop_flat_map(|n| (0..n as u64).map(arb_seek).collect::<Vec<_>>());
        (
            seeks,
            prop::collection::vec((0u64..12, 0u32..3, 0u32..3), 0..12),
        )
    }

    proptest! {
        #[test]
        fn form_keeps_every_rule((seeks, loads) in arb_pool(), now in 0u64..400_000) {
            let mut pool = pool_of(seeks.clone());
            for &(bot, playing, limit) in &loads {
                pool.set_load(BotId(bot), playing, limit);
            }
            let before = pool.clone();
            let ms = pool.form(now);
            let mut again = before.clone();
            prop_assert_eq!(&again.form(now), &ms);
            let mut games = HashMap::<BotId, u32>::new();
            let mut matched = BTreeSet::new();
            for m in &ms {
                let members: Vec<&Seek<u8>> = m.seats.iter().map(|(id, _)| before.get(*id).unwrap()).collect();
                prop_assert_eq!(members.len(), usize::from(m.players));
                let distinct: BTreeSet<_> = members.iter().map(|s| s.bot).collect();
                prop_assert_eq!(distinct.len(), members.len());
                prop_assert!(has_anchor(&before, &members, now));
                for s in &members {
                    prop_assert_eq!((s.kind, s.rated), (m.kind, m.rated));
                    prop_assert!(s.players.contains(&m.players));
                    prop_assert!(matched.insert(s.id));
                    *games.entry(s.bot).or_default() += 1;
                }
            }
            for (bot, n) in games {
                let load = before.load(bot);
                prop_assert!(load.playing + n <= load.limit);
            }
            prop_assert_eq!(pool.len() + matched.len(), before.len());
        }
    }
}
