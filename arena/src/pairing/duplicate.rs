//! Duplicate matches. Meduris has dice, and luck is the enemy of ratings:
//! one lucky roll says little about skill. A duplicate match plays the same
//! secret seed once per seat rotation with the same bots, so every bot faces
//! every seat with the same luck, and the match is rated as a single result
//! combined from all of its games.

use std::collections::{BTreeMap, BTreeSet};

use thiserror::Error;

use super::{BotId, Seats};

/// Why a duplicate match cannot be laid out or combined.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum DuplicateError {
    #[error("a duplicate match of {0} bots: its games do not seat that many")]
    BadSize(usize),
    #[error("{0:?} appears twice")]
    Repeated(BotId),
    #[error("{expected} games are needed (one per rotation), {got} were given")]
    GameCount { expected: usize, got: usize },
    #[error("game {game} does not seat exactly the match's bots")]
    OtherBots { game: usize },
}

/// One bot's outcome in one game of the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub bot: BotId,
    /// The final score in game points. A caller with ranks only may pass 0:
    /// the ranking then falls to the total of the ranks.
    pub score: i64,
    /// 1 for the winner; tied bots share a rank.
    pub rank: u8,
    /// The bot resigned this game: it concedes the match (see [`combine`]).
    pub resigned: bool,
}

/// A bot's place in the combined match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placing {
    pub bot: BotId,
    /// 1 for the best; bots equal on both totals share a rank, and the next
    /// rank skips accordingly (1, 1, 3).
    pub rank: u8,
    pub total_score: i64,
    pub total_rank: u32,
}

/// The seatings of a duplicate match: game `g` seats `bots[(s + g) % k]` in
/// seat `s`, so the k games form a Latin square and each bot sits in each
/// seat exactly once. Cyclic rotation keeps the bots' order around the table
/// (who plays after whom) in all but the starting seat; with k ≤ 4 that is
/// the simplest square to audit in a replay. The bots must fill a game of
/// `seats`.
pub fn rotations(bots: &[BotId], seats: Seats) -> Result<Vec<Vec<BotId>>, DuplicateError> {
    check_bots(bots, seats)?;
    let k = bots.len();
    Ok((0..k)
        .map(|g| (0..k).map(|s| bots[(s + g) % k]).collect())
        .collect())
}

fn check_bots(bots: &[BotId], seats: Seats) -> Result<(), DuplicateError> {
    if !seats.contains(bots.len()) {
        return Err(DuplicateError::BadSize(bots.len()));
    }
    let mut seen = BTreeSet::new();
    for &b in bots {
        if !seen.insert(b) {
            return Err(DuplicateError::Repeated(b));
        }
    }
    Ok(())
}

/// Combines the k games of a duplicate match into one ranking: by total
/// score across the games (higher first), then by the total of the ranks
/// (lower first); bots equal on both share a rank. A bot that resigned any
/// game of the match is placed after every bot that resigned none: a
/// resignation is a loss to every other seat, and a resigned game keeps the
/// resigner's score so far, which must not let it freeze a lead. The result
/// is sorted by rank, then bot id, and does not depend on the order of the
/// games or of the outcomes within a game.
pub fn combine(games: &[Vec<Outcome>], seats: Seats) -> Result<Vec<Placing>, DuplicateError> {
    let first = games.first().ok_or(DuplicateError::GameCount {
        expected: usize::from(seats.min()),
        got: 0,
    })?;
    let bots: Vec<BotId> = first.iter().map(|o| o.bot).collect();
    check_bots(&bots, seats)?;
    if games.len() != bots.len() {
        return Err(DuplicateError::GameCount {
            expected: bots.len(),
            got: games.len(),
        });
    }
    let members: BTreeSet<BotId> = bots.iter().copied().collect();
    let mut totals: BTreeMap<BotId, (i64, u32)> = BTreeMap::new();
    let mut resigned: BTreeSet<BotId> = BTreeSet::new();
    for (g, game) in games.iter().enumerate() {
        let seated: BTreeSet<BotId> = game.iter().map(|o| o.bot).collect();
        if seated != members || game.len() != members.len() {
            return Err(DuplicateError::OtherBots { game: g });
        }
        for o in game {
            let t = totals.entry(o.bot).or_default();
            t.0 = t.0.saturating_add(o.score);
            t.1 += u32::from(o.rank);
            if o.resigned {
                resigned.insert(o.bot);
            }
        }
    }
    let mut placings: Vec<Placing> = totals
        .into_iter()
        .map(|(bot, (total_score, total_rank))| Placing {
            bot,
            rank: 0,
            total_score,
            total_rank,
        })
        .collect();
    let key = |p: &Placing| {
        (
            resigned.contains(&p.bot),
            std::cmp::Reverse(p.total_score),
            p.total_rank,
        )
    };
    placings.sort_by_key(|p| (key(p), p.bot));
    for i in 0..placings.len() {
        placings[i].rank = if i > 0 && key(&placings[i]) == key(&placings[i - 1]) {
            placings[i - 1].rank
        } else {
            i as u8 + 1
        };
    }
    Ok(placings)
}

/// The combined ranking as (bot, rank) pairs, the shape a single game's
/// result has, for the ratings and for [`super::schedule::Standings`].
pub fn ranks(placings: &[Placing]) -> Vec<(BotId, u8)> {
    placings.iter().map(|p| (p.bot, p.rank)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games of 2 to 4 seats, as Meduris has.
    const SEATS: Seats = Seats::new(2, 4);

    fn ids(n: u64) -> Vec<BotId> {
        (1..=n).map(BotId).collect()
    }

    #[test]
    fn rotations_are_a_latin_square() {
        for k in 2..=4 {
            let bots = ids(k);
            let square = rotations(&bots, SEATS).unwrap();
            assert_eq!(square.len(), k as usize);
            for game in &square {
                let set: BTreeSet<_> = game.iter().collect();
                assert_eq!(set.len(), k as usize);
            }
            for seat in 0..k as usize {
                let set: BTreeSet<_> = square.iter().map(|g| g[seat]).collect();
                assert_eq!(set.len(), k as usize, "seat {seat} of {square:?}");
            }
        }
    }

    #[test]
    fn bad_sizes_and_repeats_are_refused() {
        assert_eq!(rotations(&ids(1), SEATS), Err(DuplicateError::BadSize(1)));
        assert_eq!(rotations(&ids(5), SEATS), Err(DuplicateError::BadSize(5)));
        assert_eq!(rotations(&[], SEATS), Err(DuplicateError::BadSize(0)));
        assert_eq!(
            rotations(&[BotId(1), BotId(2), BotId(1)], SEATS),
            Err(DuplicateError::Repeated(BotId(1)))
        );
        assert!(combine(&[], SEATS).is_err());
    }

    fn outcome(bot: u64, score: i64, rank: u8) -> Outcome {
        Outcome {
            bot: BotId(bot),
            score,
            rank,
            resigned: false,
        }
    }

    #[test]
    fn a_bot_that_resigned_a_game_is_placed_after_those_that_did_not() {
        // Bot 1 resigned the second game while ahead on the total: it still
        // comes after bot 2, whatever the totals.
        let games = vec![
            vec![outcome(1, 30, 1), outcome(2, 10, 2)],
            vec![
                Outcome {
                    resigned: true,
                    ..outcome(1, 12, 2)
                },
                outcome(2, 11, 1),
            ],
        ];
        let placed = combine(&games, SEATS).unwrap();
        assert_eq!(ranks(&placed), vec![(BotId(2), 1), (BotId(1), 2)]);
        assert_eq!(placed[1].total_score, 42);
    }

    fn three_games() -> Vec<Vec<Outcome>> {
        vec![
            vec![outcome(1, 30, 1), outcome(2, 20, 2), outcome(3, 10, 3)],
            vec![outcome(1, 10, 3), outcome(2, 25, 1), outcome(3, 15, 2)],
            vec![outcome(1, 20, 2), outcome(2, 5, 3), outcome(3, 40, 1)],
        ]
    }

    #[test]
    fn combining_ranks_by_total_score() {
        let p = combine(&three_games(), SEATS).unwrap();
        let order: Vec<(u64, u8, i64)> =
            p.iter().map(|p| (p.bot.0, p.rank, p.total_score)).collect();
        assert_eq!(order, vec![(3, 1, 65), (1, 2, 60), (2, 3, 50)]);
        assert_eq!(ranks(&p), vec![(BotId(3), 1), (BotId(1), 2), (BotId(2), 3)]);
    }

    #[test]
    fn combining_is_order_independent() {
        let games = three_games();
        let expected = combine(&games, SEATS).unwrap();
        let mut shuffled: Vec<Vec<Outcome>> = games.iter().rev().cloned().collect();
        for g in &mut shuffled {
            g.reverse();
        }
        shuffled.swap(0, 1);
        assert_eq!(combine(&shuffled, SEATS).unwrap(), expected);
    }

    #[test]
    fn ties_break_by_total_rank_then_share() {
        // Equal totals; bot 1 has the better ranks.
        let games = vec![
            vec![outcome(1, 10, 1), outcome(2, 10, 1)],
            vec![outcome(1, 10, 1), outcome(2, 10, 2)],
        ];
        let p = combine(&games, SEATS).unwrap();
        assert_eq!((p[0].bot, p[0].rank, p[1].rank), (BotId(1), 1, 2));
        // Equal on both: shared rank, and the next rank skips.
        let games = vec![
            vec![outcome(1, 10, 1), outcome(2, 10, 1), outcome(3, 0, 3)],
            vec![outcome(1, 10, 1), outcome(2, 10, 1), outcome(3, 0, 3)],
            vec![outcome(1, 10, 1), outcome(2, 10, 1), outcome(3, 0, 3)],
        ];
        let ranks: Vec<u8> = combine(&games, SEATS)
            .unwrap()
            .iter()
            .map(|p| p.rank)
            .collect();
        assert_eq!(ranks, vec![1, 1, 3]);
    }

    #[test]
    fn mismatched_games_are_refused() {
        let mut games = three_games();
        games[1][2].bot = BotId(9);
        assert_eq!(
            combine(&games, SEATS),
            Err(DuplicateError::OtherBots { game: 1 })
        );
        let games = three_games()[..2].to_vec();
        assert_eq!(
            combine(&games, SEATS),
            Err(DuplicateError::GameCount {
                expected: 3,
                got: 2
            })
        );
        let mut games = three_games();
        games[2].push(outcome(1, 0, 4));
        assert_eq!(
            combine(&games, SEATS),
            Err(DuplicateError::OtherBots { game: 2 })
        );
    }
}
