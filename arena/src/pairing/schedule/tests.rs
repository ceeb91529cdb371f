use super::*;

/// Games of 2 to 4 seats, as Meduris has.
const SEATS: Seats = Seats::new(2, 4);

fn ids(n: u64) -> Vec<BotId> {
    (1..=n).map(BotId).collect()
}

fn no_bot_twice_per_round(rounds: &[Round]) {
    for round in rounds {
        let mut seen = BTreeSet::new();
        for game in round {
            for b in game {
                assert!(seen.insert(*b), "{b:?} twice in {round:?}");
            }
        }
    }
}

fn groups(rounds: &[Round]) -> BTreeMap<BTreeSet<BotId>, Vec<Game>> {
    let mut out: BTreeMap<BTreeSet<BotId>, Vec<Game>> = BTreeMap::new();
    for game in rounds.iter().flatten() {
        out.entry(game.iter().copied().collect())
            .or_default()
            .push(game.clone());
    }
    out
}

#[test]
fn errors_are_clear() {
    assert_eq!(
        round_robin(&ids(5), 1, SEATS, 1),
        Err(ScheduleError::BadPlayers(1))
    );
    assert_eq!(
        round_robin(&ids(5), 5, SEATS, 1),
        Err(ScheduleError::BadPlayers(5))
    );
    assert_eq!(
        round_robin(&ids(3), 4, SEATS, 1),
        Err(ScheduleError::TooFewEntrants {
            entrants: 3,
            needed: 4
        })
    );
    assert_eq!(
        round_robin(&[BotId(1), BotId(1)], 2, SEATS, 1),
        Err(ScheduleError::Repeated(BotId(1)))
    );
    assert!(matches!(
        round_robin(&ids(40), 4, SEATS, 1),
        Err(ScheduleError::TooManyGames { games: 91_390, .. })
    ));
    assert_eq!(
        gauntlet(BotId(1), &ids(3), 2, SEATS),
        Err(ScheduleError::OpponentIsEntrant(BotId(1)))
    );
    assert!(gauntlet(BotId(9), &[], 2, SEATS).is_err());
    assert_eq!(
        schedule(&Format::Swiss { rounds: 3 }, &ids(8), 2, SEATS),
        Err(ScheduleError::RoundByRound)
    );
    assert!(swiss_round(&[], 2, SEATS, &Standings::new(), &[], &[]).is_err());
    assert!(round_robin(&[], 2, SEATS, 1).is_err());
}

#[test]
fn round_robin_of_two_uses_the_fewest_rounds() {
    for n in 2..=9u64 {
        let rounds = round_robin(&ids(n), 2, SEATS, 2).unwrap();
        no_bot_twice_per_round(&rounds);
        let per_cycle = if n % 2 == 0 { n - 1 } else { n };
        assert_eq!(rounds.len() as u64, 2 * per_cycle, "n = {n}");
        let g = groups(&rounds);
        assert_eq!(g.len() as u64, n * (n - 1) / 2);
        for games in g.values() {
            // Two games per pair, one with each bot first.
            assert_eq!(games.len(), 2);
            assert_ne!(games[0][0], games[1][0]);
        }
    }
}

#[test]
fn round_robin_plays_every_group_with_rotated_seats() {
    for (n, k) in [(5u64, 3u8), (6, 4), (8, 4), (7, 3), (4, 4)] {
        let ku = usize::from(k);
        let rounds = round_robin(&ids(n), k, SEATS, u32::from(k)).unwrap();
        no_bot_twice_per_round(&rounds);
        let g = groups(&rounds);
        assert_eq!(g.len() as u128, choose(n as usize, ku));
        for games in g.values() {
            assert_eq!(games.len(), ku);
            // k games per group, k rotations: each member in each seat once.
            for seat in 0..ku {
                let sitters: BTreeSet<_> = games.iter().map(|game| game[seat]).collect();
                assert_eq!(sitters.len(), ku);
            }
        }
        // Rounds are reasonably full: at least half the bots play in each
        // but the last few.
        let full = rounds
            .iter()
            .filter(|r| r.len() * ku * 2 >= n as usize)
            .count();
        assert!(
            full * 10 >= rounds.len() * 7,
            "n={n} k={k}: {full}/{}",
            rounds.len()
        );
    }
}

#[test]
fn round_robin_with_no_games_is_empty() {
    assert_eq!(round_robin(&ids(6), 3, SEATS, 0), Ok(vec![]));
}

#[test]
fn gauntlet_meets_the_opponent_equally() {
    let opp = BotId(100);
    for k in 2..=4u8 {
        for n in u64::from(k - 1)..=7 {
            let rounds = schedule(&Format::Gauntlet { opponent: opp }, &ids(n), k, SEATS).unwrap();
            no_bot_twice_per_round(&rounds);
            assert_eq!(rounds.len() as u64, n);
            let mut meets: BTreeMap<BotId, usize> = BTreeMap::new();
            let mut opp_seats = BTreeSet::new();
            for game in rounds.iter().flatten() {
                assert_eq!(game.len(), usize::from(k));
                let distinct: BTreeSet<_> = game.iter().collect();
                assert_eq!(distinct.len(), usize::from(k));
                opp_seats.insert(game.iter().position(|&b| b == opp).unwrap());
                for b in game.iter().filter(|&&b| b != opp) {
                    *meets.entry(*b).or_default() += 1;
                }
            }
            assert_eq!(meets.len() as u64, n);
            assert!(
                meets.values().all(|&m| m == usize::from(k - 1)),
                "{meets:?}"
            );
            assert_eq!(opp_seats.len(), usize::from(k).min(n as usize));
        }
    }
}

#[test]
fn game_points_share_ties() {
    let b = |i| BotId(i);
    assert_eq!(
        game_points(&[(b(1), 2), (b(2), 1), (b(3), 3), (b(4), 4)]),
        vec![(b(2), 3.0), (b(1), 2.0), (b(3), 1.0), (b(4), 0.0)]
    );
    assert_eq!(
        game_points(&[(b(1), 1), (b(2), 1), (b(3), 3), (b(4), 3)]),
        vec![(b(1), 2.5), (b(2), 2.5), (b(3), 0.5), (b(4), 0.5)]
    );
    // Dense ranks (1, 1, 2) mean the same as competition ranks (1, 1, 3).
    assert_eq!(
        game_points(&[(b(1), 1), (b(2), 1), (b(3), 2)]),
        game_points(&[(b(1), 1), (b(2), 1), (b(3), 3)])
    );
    assert!(game_points(&[]).is_empty());
    assert_eq!(bye_points(4), 1.5);
    assert_eq!(bye_points(2), 0.5);
}

#[test]
fn standings_accumulate_results_and_byes() {
    let (a, b, c) = (BotId(1), BotId(2), BotId(3));
    let games: Vec<Vec<(BotId, u8)>> = vec![
        vec![(a, 1), (b, 2)],
        vec![(b, 1), (c, 2)],
        vec![(a, 1), (c, 1)],
    ];
    let mut s = Standings::from_results(games.iter().map(|g| g.as_slice()));
    s.record_bye(c, 2);
    assert_eq!(s.points(a), 1.5);
    assert_eq!(s.points(b), 1.0);
    assert_eq!(s.points(c), 1.0);
    assert_eq!(s.points(BotId(9)), 0.0);
    assert_eq!(s.table(), vec![(a, 1.5), (b, 1.0), (c, 1.0)]);
}

#[test]
fn swiss_groups_by_points_and_gives_byes() {
    let bots = ids(10);
    let mut s = Standings::new();
    for (i, &b) in bots.iter().enumerate() {
        // Bot 1 has the most points, bot 10 the fewest.
        for _ in 0..10 - i {
            s.record_bye(b, 3);
        }
    }
    let r = swiss_round(&bots, 3, SEATS, &s, &[], &[]).unwrap();
    assert_eq!(r.byes, vec![BotId(10)]);
    let sets: Vec<BTreeSet<u64>> = r
        .games
        .iter()
        .map(|g| g.iter().map(|b| b.0).collect())
        .collect();
    assert_eq!(
        sets,
        vec![
            BTreeSet::from([1, 2, 3]),
            BTreeSet::from([4, 5, 6]),
            BTreeSet::from([7, 8, 9])
        ]
    );
    // Bot 10 has had its bye; the next lowest without one sits out.
    let r = swiss_round(&bots, 3, SEATS, &s, &[], &[BotId(10)]).unwrap();
    assert_eq!(r.byes, vec![BotId(9)]);
}

#[test]
fn swiss_avoids_repeated_meetings() {
    let bots = ids(8);
    let mut history: Vec<Game> = Vec::new();
    let mut standings = Standings::new();
    let mut pairs = BTreeSet::new();
    // Seven rounds of pairs among 8 bots: the search finds a round without
    // repeats each time, so the Swiss becomes a full round-robin.
    let mut repeats = 0;
    for round in 0..7 {
        let r = swiss_round(&bots, 2, SEATS, &standings, &history, &[]).unwrap();
        assert!(r.byes.is_empty());
        assert_eq!(r.games.len(), 4);
        for g in &r.games {
            let key = (g[0].min(g[1]), g[0].max(g[1]));
            if !pairs.insert(key) {
                repeats += 1;
                assert!(round > 1, "repeat in round {round}");
            }
            // The lower id wins: standings diverge.
            standings.record_game(&[(key.0, 1), (key.1, 2)]);
            history.push(g.clone());
        }
    }
    assert_eq!(repeats, 0);
}

#[test]
fn swiss_is_deterministic() {
    let bots = ids(13);
    let s = Standings::new();
    let a = swiss_round(&bots, 4, SEATS, &s, &[], &[]).unwrap();
    let mut reversed = bots.clone();
    reversed.reverse();
    let b = swiss_round(&reversed, 4, SEATS, &s, &[], &[]).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.games.len(), 3);
    assert_eq!(a.byes.len(), 1);
}

#[test]
fn swiss_of_three_avoids_repeated_meetings() {
    // Nine bots in threes, four rounds: possible with no pair meeting twice
    // (the affine plane of order 3), and the search finds it.
    let bots = ids(9);
    let mut history: Vec<Game> = Vec::new();
    let mut standings = Standings::new();
    let mut seen = BTreeSet::new();
    for _ in 0..4 {
        let r = swiss_round(&bots, 3, SEATS, &standings, &history, &[]).unwrap();
        assert_eq!(r.games.len(), 3);
        for g in &r.games {
            for (i, a) in g.iter().enumerate() {
                for b in &g[i + 1..] {
                    assert!(
                        seen.insert((*a.min(b), *a.max(b))),
                        "{a:?} meets {b:?} again"
                    );
                }
            }
            let mut sorted = g.clone();
            sorted.sort();
            standings.record_game(&[(sorted[0], 1), (sorted[1], 2), (sorted[2], 3)]);
            history.push(g.clone());
        }
    }
}

#[test]
fn a_large_swiss_is_drawn_quickly() {
    // 202 bots in fours, 12 rounds: byes rotate, the search stays within
    // its budget, and every round seats everyone but the byes.
    let bots = ids(202);
    let mut history: Vec<Game> = Vec::new();
    let mut byes: Vec<BotId> = Vec::new();
    let mut standings = Standings::new();
    for _ in 0..12 {
        let r = swiss_round(&bots, 4, SEATS, &standings, &history, &byes).unwrap();
        assert_eq!(r.byes.len(), 2);
        assert_eq!(r.games.len(), 50);
        for &b in &r.byes {
            assert!(!byes.contains(&b), "{b:?} sits out twice");
            standings.record_bye(b, 4);
        }
        byes.extend(&r.byes);
        for g in &r.games {
            let ranks: Vec<(BotId, u8)> = g.iter().map(|&b| (b, (b.0 % 4) as u8 + 1)).collect();
            standings.record_game(&ranks);
            history.push(g.clone());
        }
    }
    // The search runs out of budget in the last rounds; the fallback still
    // keeps repeated meetings rare.
    let mut met = BTreeMap::<(BotId, BotId), u32>::new();
    for g in &history {
        for (i, a) in g.iter().enumerate() {
            for b in &g[i + 1..] {
                *met.entry((*a.min(b), *a.max(b))).or_default() += 1;
            }
        }
    }
    let repeats: u32 = met.values().map(|&n| n - 1).sum();
    assert!(
        repeats <= 30,
        "{repeats} repeated meetings of {}",
        history.len() * 6
    );
}
