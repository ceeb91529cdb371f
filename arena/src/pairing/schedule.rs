//! Tournament schedules: which groups of bots play in which round. The arena
//! runs round-robins (everyone meets everyone), Swiss tournaments (bots with
//! similar scores meet, round by round) and gauntlets (one fixed opponent,
//! say a reference bot, against every entrant). Games seat `k` players, one
//! of the counts the game's [`Seats`] allow; a game is a list of bots in seat
//! order.
//!
//! Points: in a game of `k`, the bot in position `p` (0 for the winner)
//! scores `k - 1 - p`; tied bots share the points of the positions they
//! span (two tied winners of a 4-player game score 2.5 each). A Swiss bye
//! scores [`bye_points`], the mean of a game, `(k - 1) / 2`: neither a
//! reward nor a penalty for sitting out.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use thiserror::Error;

use super::{BotId, Seats, mix, shuffle_seats};

#[cfg(test)]
mod tests;

/// Bots in seat order.
pub type Game = Vec<BotId>;
/// Games that can run at the same time: no bot twice.
pub type Round = Vec<Game>;

/// The most games a round-robin may have. C(N, k) grows fast (C(30, 4) is
/// 27,405); past this the arena should run a Swiss tournament instead.
pub const MAX_ROUND_ROBIN_GAMES: usize = 10_000;

/// A tournament's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every group of `k` entrants plays `games_per_group` games.
    RoundRobin { games_per_group: u32 },
    /// `rounds` rounds, each drawn from the standings by [`swiss_round`].
    Swiss { rounds: u32 },
    /// `opponent` plays every entrant; see [`gauntlet`].
    Gauntlet { opponent: BotId },
}

/// Why a schedule cannot be drawn.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ScheduleError {
    #[error("the game is not played by {0} players")]
    BadPlayers(u8),
    #[error("{entrants} entrants are too few: {needed} are needed")]
    TooFewEntrants { entrants: usize, needed: usize },
    #[error("{0:?} is entered twice")]
    Repeated(BotId),
    #[error("a round-robin of {games} games is more than the {max} allowed")]
    TooManyGames { games: u128, max: usize },
    #[error("the gauntlet's opponent {0:?} is also an entrant")]
    OpponentIsEntrant(BotId),
    #[error("a Swiss tournament is drawn round by round, from the standings")]
    RoundByRound,
}

/// The whole schedule of a round-robin or a gauntlet. Swiss rounds depend
/// on results, so they come from [`swiss_round`] instead.
pub fn schedule(
    format: &Format,
    entrants: &[BotId],
    k: u8,
    seats: Seats,
) -> Result<Vec<Round>, ScheduleError> {
    match *format {
        Format::RoundRobin { games_per_group } => round_robin(entrants, k, seats, games_per_group),
        Format::Gauntlet { opponent } => gauntlet(opponent, entrants, k, seats),
        Format::Swiss { .. } => Err(ScheduleError::RoundByRound),
    }
}

/// Checks a tournament of games of `k` (one of `seats`) among `entrants`
/// (all different, at least `needed`).
fn check(entrants: &[BotId], k: u8, seats: Seats, needed: usize) -> Result<(), ScheduleError> {
    if !seats.contains(k.into()) {
        return Err(ScheduleError::BadPlayers(k));
    }
    let mut seen = BTreeSet::new();
    for &b in entrants {
        if !seen.insert(b) {
            return Err(ScheduleError::Repeated(b));
        }
    }
    if entrants.len() < needed {
        return Err(ScheduleError::TooFewEntrants {
            entrants: entrants.len(),
            needed,
        });
    }
    Ok(())
}

/// The games of a round robin of `n` entrants in groups of `k`, each group
/// playing `games_per_group` (saturating; [`MAX_ROUND_ROBIN_GAMES`] at most
/// are scheduled).
pub fn round_robin_games(n: usize, k: u8, games_per_group: u32) -> u128 {
    choose(n, usize::from(k).min(n)).saturating_mul(u128::from(games_per_group))
}

/// C(n, k), saturating.
fn choose(n: usize, k: usize) -> u128 {
    (0..k).fold(1u128, |acc, i| {
        acc.saturating_mul((n - i) as u128) / (i as u128 + 1)
    })
}

/// A round-robin: every k-subset of the entrants plays `games_per_group`
/// games. The g-th game of the j-th group (in lexicographic order of the
/// entrants' positions) rotates the group's seats by `j + g`, so with
/// `games_per_group` a multiple of `k` every member sits in every seat
/// equally often.
///
/// Rounds: for `k = 2`, the circle method gives the optimal N − 1 rounds
/// (N if N is odd, one bot sitting out each round) per cycle. For `k > 2`,
/// games are packed greedily, first fit, into rounds in which no bot plays
/// twice; this is not always the fewest rounds.
///
/// Refuses more than [`MAX_ROUND_ROBIN_GAMES`] games.
pub fn round_robin(
    entrants: &[BotId],
    k: u8,
    seats: Seats,
    games_per_group: u32,
) -> Result<Vec<Round>, ScheduleError> {
    check(entrants, k, seats, usize::from(k))?;
    let (n, ku) = (entrants.len(), usize::from(k));
    let games = round_robin_games(n, k, games_per_group);
    if games > MAX_ROUND_ROBIN_GAMES as u128 {
        return Err(ScheduleError::TooManyGames {
            games,
            max: MAX_ROUND_ROBIN_GAMES,
        });
    }
    if k == 2 {
        return Ok(circle(entrants, games_per_group));
    }
    let mut all = Vec::with_capacity(games as usize);
    let groups = subsets(n, ku);
    for g in 0..games_per_group as usize {
        for (j, group) in groups.iter().enumerate() {
            let shift = (j + g) % ku;
            all.push((0..ku).map(|s| entrants[group[(s + shift) % ku]]).collect());
        }
    }
    Ok(pack(entrants, all, n / ku))
}

/// The k-subsets of 0..n in lexicographic order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.clone());
        // Advance the rightmost index that can still move.
        let Some(i) = (0..k).rev().find(|&i| idx[i] < n - k + i) else {
            return out;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Berger tables for two-player games: position `n' - 1` stays put while the
/// others rotate. Seats swap on odd cycles, and the fixed bot alternates
/// seats by round, so over an even number of cycles all is balanced.
fn circle(entrants: &[BotId], cycles: u32) -> Vec<Round> {
    let n = entrants.len() + entrants.len() % 2;
    let m = n - 1;
    let at = |p: usize| entrants.get(p).copied();
    let mut rounds = Vec::new();
    for c in 0..cycles {
        for r in 0..m {
            let mut round = Vec::new();
            let mut pairs = vec![(m, r, r % 2 == 1)];
            pairs.extend((1..n / 2).map(|i| ((r + i) % m, (r + m - i) % m, i % 2 == 1)));
            for (a, b, flip) in pairs {
                if let (Some(a), Some(b)) = (at(a), at(b)) {
                    round.push(if flip ^ (c % 2 == 1) {
                        vec![b, a]
                    } else {
                        vec![a, b]
                    });
                }
            }
            rounds.push(round);
        }
    }
    rounds
}

/// First-fit packing of games into rounds with no bot twice per round.
/// `per_round` (at most N / k games fit) lets full rounds be skipped.
fn pack(entrants: &[BotId], games: Vec<Game>, per_round: usize) -> Vec<Round> {
    let index: HashMap<BotId, usize> = entrants.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let words = entrants.len().div_ceil(64);
    let mut rounds: Vec<(Round, Vec<u64>)> = Vec::new();
    let mut first_open = 0;
    for game in games {
        let bits: Vec<usize> = game.iter().filter_map(|b| index.get(b).copied()).collect();
        let free = |busy: &[u64]| bits.iter().all(|&i| busy[i / 64] & (1 << (i % 64)) == 0);
        let slot = (first_open..rounds.len()).find(|&r| free(&rounds[r].1));
        let r = slot.unwrap_or_else(|| {
            rounds.push((Vec::new(), vec![0; words]));
            rounds.len() - 1
        });
        for &i in &bits {
            rounds[r].1[i / 64] |= 1 << (i % 64);
        }
        rounds[r].0.push(game);
        while first_open < rounds.len() && rounds[first_open].0.len() >= per_round.max(1) {
            first_open += 1;
        }
    }
    rounds.into_iter().map(|(round, _)| round).collect()
}

/// A gauntlet: `opponent` against every entrant. For `k = 2` that is one
/// game per entrant. For `k > 2`, game `i` seats the opponent with entrants
/// `i, i + 1, …, i + k − 2` (cyclically), so every entrant meets the
/// opponent in exactly `k − 1` games and meets each nearby entrant too. The
/// opponent's seat rotates with `i`. Needs at least `k − 1` entrants.
///
/// Every game includes the opponent, so each round holds one game; a server
/// that can run the opponent many times at once may run them all together.
pub fn gauntlet(
    opponent: BotId,
    entrants: &[BotId],
    k: u8,
    seats: Seats,
) -> Result<Vec<Round>, ScheduleError> {
    check(entrants, k, seats, usize::from(k.saturating_sub(1)))?;
    if entrants.contains(&opponent) {
        return Err(ScheduleError::OpponentIsEntrant(opponent));
    }
    let (n, ku) = (entrants.len(), usize::from(k));
    Ok((0..n)
        .map(|i| {
            let mut game: Game = (0..ku - 1).map(|j| entrants[(i + j) % n]).collect();
            game.insert(i % ku, opponent);
            vec![game]
        })
        .collect())
}

/// Points per bot, accumulated over games and byes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standings {
    points: BTreeMap<BotId, f64>,
}

/// The points of one game from the bots' ranks (1 = winner, equal ranks
/// for ties; gaps such as 1, 1, 3 or none such as 1, 1, 2 both work). In a
/// game of `k`, position `p` scores `k - 1 - p`; tied bots share the mean of
/// their positions' points. Returned in rank order, then bot id.
pub fn game_points(ranks: &[(BotId, u8)]) -> Vec<(BotId, f64)> {
    let mut sorted = ranks.to_vec();
    sorted.sort_by_key(|&(bot, rank)| (rank, bot));
    let k = sorted.len() as f64;
    let mut out = Vec::with_capacity(sorted.len());
    let mut start = 0;
    while start < sorted.len() {
        let end = start
            + sorted[start..]
                .iter()
                .take_while(|r| r.1 == sorted[start].1)
                .count();
        // Positions start..end score k-1-start down to k-end; the mean is:
        let share = k - 1.0 - (start + end - 1) as f64 / 2.0;
        out.extend(sorted[start..end].iter().map(|&(bot, _)| (bot, share)));
        start = end;
    }
    out
}

/// What a bye scores in a Swiss round of `k`-player games: the mean of a
/// game's points.
pub fn bye_points(k: u8) -> f64 {
    f64::from(k.saturating_sub(1)) / 2.0
}

impl Standings {
    pub fn new() -> Self {
        Self::default()
    }

    /// Standings from a list of games' ranks (see [`game_points`]).
    pub fn from_results<'a>(games: impl IntoIterator<Item = &'a [(BotId, u8)]>) -> Self {
        let mut s = Self::new();
        for g in games {
            s.record_game(g);
        }
        s
    }

    pub fn record_game(&mut self, ranks: &[(BotId, u8)]) {
        for (bot, p) in game_points(ranks) {
            *self.points.entry(bot).or_default() += p;
        }
    }

    pub fn record_bye(&mut self, bot: BotId, k: u8) {
        *self.points.entry(bot).or_default() += bye_points(k);
    }

    /// A bot's points; 0 if it has none yet.
    pub fn points(&self, bot: BotId) -> f64 {
        self.points.get(&bot).copied().unwrap_or(0.0)
    }

    /// The table: most points first, then lowest bot id.
    pub fn table(&self) -> Vec<(BotId, f64)> {
        let mut t: Vec<(BotId, f64)> = self.points.iter().map(|(&b, &p)| (b, p)).collect();
        t.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        t
    }
}

/// How many candidates the Swiss draw may weigh while looking for a round
/// in which nobody meets anybody again; it bounds the draw's time (about a
/// millisecond in a release build).
pub const SWISS_SEARCH_BUDGET: u32 = 100_000;

/// The depth-first search for a Swiss round without repeated meetings.
struct Fresh<'a> {
    /// Bots in standings order.
    order: &'a [BotId],
    k: usize,
    met: &'a HashMap<(BotId, BotId), u32>,
    used: Vec<bool>,
    budget: u32,
    groups: Vec<Game>,
}

impl Fresh<'_> {
    fn met(&self, a: usize, b: usize) -> bool {
        let (a, b) = (self.order[a], self.order[b]);
        self.met.contains_key(&(a.min(b), a.max(b)))
    }

    /// Groups every unused bot, the best placed first.
    fn solve(&mut self) -> bool {
        let Some(lead) = self.used.iter().position(|u| !u) else {
            return true;
        };
        self.used[lead] = true;
        if self.extend(&mut vec![lead], lead + 1) {
            return true;
        }
        self.used[lead] = false;
        false
    }

    /// Completes `group` from positions `from..`, then solves the rest.
    fn extend(&mut self, group: &mut Vec<usize>, from: usize) -> bool {
        if group.len() == self.k {
            self.groups
                .push(group.iter().map(|&i| self.order[i]).collect());
            if self.solve() {
                return true;
            }
            self.groups.pop();
            return false;
        }
        for i in from..self.order.len() {
            if self.used[i] {
                continue;
            }
            // Every candidate weighed costs a step, so the budget bounds time.
            if self.budget == 0 {
                return false;
            }
            self.budget -= 1;
            if group.iter().any(|&g| self.met(g, i)) {
                continue;
            }
            self.used[i] = true;
            group.push(i);
            if self.extend(group, i + 1) {
                return true;
            }
            group.pop();
            self.used[i] = false;
        }
        false
    }
}

/// The fallback draw: each group takes the best placed bot left, then, one
/// at a time, the bot left that has met the group's members least often.
fn fewest_meetings(
    mut left: Vec<BotId>,
    k: usize,
    met: &HashMap<(BotId, BotId), u32>,
) -> Vec<Game> {
    let meetings = |a: BotId, b: BotId| met.get(&(a.min(b), a.max(b))).copied().unwrap_or(0);
    let mut groups = Vec::with_capacity(left.len() / k.max(1));
    while !left.is_empty() {
        let mut game = vec![left.remove(0)];
        while game.len() < k {
            let best = (0..left.len())
                .min_by_key(|&i| (game.iter().map(|&g| meetings(g, left[i])).sum::<u32>(), i));
            let Some(i) = best else { break };
            game.push(left.remove(i));
        }
        groups.push(game);
    }
    groups
}

/// One Swiss round: the games, and who sits out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissRound {
    pub games: Vec<Game>,
    pub byes: Vec<BotId>,
}

/// Draws the next Swiss round from the standings.
///
/// * Byes: when N is not a multiple of `k`, N mod k bots sit out: those with
///   the fewest byes so far (`past_byes`, one entry per bye), lowest in the
///   standings among them. A bye scores [`bye_points`]; the caller records it.
/// * Groups: entrants in standings order (points, then bot id); each group
///   starts with the best placed bot left and is filled with the best
///   placed bots left that have not met any member before (in `history`).
///   A depth-first search backtracks over these choices, within
///   [`SWISS_SEARCH_BUDGET`] steps, so that no two bots meet again when
///   that is possible. If the search fails, a greedy draw fills each group
///   with the bots that met its members least often: repeated meetings are
///   then kept few rather than none.
/// * Seats: a hash of (round number = `history.len()`, bots) orders each
///   game, so nobody systematically sits first.
pub fn swiss_round(
    entrants: &[BotId],
    k: u8,
    seats: Seats,
    standings: &Standings,
    history: &[Game],
    past_byes: &[BotId],
) -> Result<SwissRound, ScheduleError> {
    check(entrants, k, seats, usize::from(k))?;
    let ku = usize::from(k);
    let mut order = entrants.to_vec();
    order.sort_by(|&a, &b| {
        standings
            .points(b)
            .total_cmp(&standings.points(a))
            .then(a.cmp(&b))
    });

    let mut bye_count: HashMap<BotId, usize> = HashMap::new();
    for &b in past_byes {
        *bye_count.entry(b).or_default() += 1;
    }
    let mut by_need: Vec<(usize, BotId)> = order.iter().copied().enumerate().collect();
    by_need.sort_by_key(|&(pos, b)| {
        (
            bye_count.get(&b).copied().unwrap_or(0),
            std::cmp::Reverse(pos),
        )
    });
    let byes: BTreeSet<BotId> = by_need
        .iter()
        .take(order.len() % ku)
        .map(|&(_, b)| b)
        .collect();
    order.retain(|b| !byes.contains(b));

    let mut met: HashMap<(BotId, BotId), u32> = HashMap::new();
    for game in history {
        for (i, &a) in game.iter().enumerate() {
            for &b in &game[i + 1..] {
                *met.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    let mut fresh = Fresh {
        order: &order,
        k: ku,
        met: &met,
        used: vec![false; order.len()],
        budget: SWISS_SEARCH_BUDGET,
        groups: Vec::new(),
    };
    let groups = if fresh.solve() {
        fresh.groups
    } else {
        fewest_meetings(order, ku, &met)
    };
    let mut games = Vec::with_capacity(groups.len());
    let seed = mix(history.len() as u64);
    for mut game in groups {
        let mut ids: Vec<u64> = game.iter().map(|b| b.0).collect();
        ids.sort_unstable();
        let game_seed = ids.iter().fold(seed, |acc, &id| mix(acc ^ id));
        shuffle_seats(&mut game, game_seed, |&b| b);
        games.push(game);
    }
    Ok(SwissRound {
        games,
        byes: byes.into_iter().collect(),
    })
}
