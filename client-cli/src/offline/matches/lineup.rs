//! Who plays a match: the program under test (entry 0: `--exec` or
//! `--strategy`) and its opponents (`--vs`, built-in strategies), filled up
//! to the player count; and who sits where in each game (seats rotated) with
//! which seed (one seed per rotation in dice-driven games: duplicate games).

use druids_bots::{Budget, Strategy};

use crate::args::StrategyArg;
use crate::bridge::in_process::ProgramSpec;

/// How an entry decides.
#[derive(Clone, Debug)]
pub enum Program {
    /// A built-in strategy of `druids-bots`, in this process.
    Builtin(Strategy, Budget),
    /// A program behind the line protocol (`--exec`).
    Exec(ProgramSpec),
}

/// One entry of the line-up.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name in the report ("you", "greedy", "greedy#2").
    pub name: String,
    /// How it decides.
    pub program: Program,
}

/// The entries of a match, one per seat: entry 0 is the program under test.
#[derive(Clone, Debug)]
pub struct Lineup {
    entries: Vec<Entry>,
}

impl Lineup {
    /// The program under test named `me`, then `opponents` in order, repeated
    /// until `players` seats are filled. Every entry gets a distinct name.
    pub fn new(
        me: Entry,
        opponents: &[StrategyArg],
        think: Budget,
        players: usize,
    ) -> Result<Lineup, String> {
        if opponents.is_empty() {
            return Err("--vs names no opponent".into());
        }
        if opponents.len() + 1 > players {
            return Err(format!(
                "--players {players}, but the line-up has {} programs (you and {} opponent(s))",
                opponents.len() + 1,
                opponents.len()
            ));
        }
        let mut entries = vec![me];
        for strategy in opponents.iter().cycle().take(players - 1) {
            let base = strategy.name();
            let same = entries
                .iter()
                .filter(|e| e.name == base || e.name.starts_with(&format!("{base}#")))
                .count();
            let name = if same == 0 {
                base
            } else {
                format!("{base}#{}", same + 1)
            };
            entries.push(Entry {
                name,
                program: Program::Builtin((*strategy).into(), think),
            });
        }
        Ok(Lineup { entries })
    }

    /// The entries, entry 0 first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many seats a game has.
    pub fn players(&self) -> usize {
        self.entries.len()
    }

    /// Game `index`'s seating: seat `s` is played by entry
    /// `(s + index) % players`, so every `players` games each entry plays
    /// each seat once.
    pub fn seating(&self, index: u64) -> Vec<usize> {
        let k = self.players();
        (0..k)
            .map(|s| (s + (index % k as u64) as usize) % k)
            .collect()
    }

    /// Game `index`'s seed: with dice, the same for the `players` games of a
    /// rotation (duplicate games: every entry meets the same dice in every
    /// seat); without, a new one each game.
    pub fn seed(&self, base: u64, index: u64, dice_driven: bool) -> u64 {
        if dice_driven {
            base.wrapping_add(index / self.players() as u64)
        } else {
            base.wrapping_add(index)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Entry {
        Entry {
            name: "you".into(),
            program: Program::Builtin(Strategy::Random, Budget::Iterations(1)),
        }
    }

    #[test]
    fn opponents_fill_the_seats_with_distinct_names() {
        let think = Budget::Iterations(1);
        let l = Lineup::new(me(), &[StrategyArg::Greedy], think, 4).unwrap();
        let names: Vec<&str> = l.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["you", "greedy", "greedy#2", "greedy#3"]);
        let l = Lineup::new(me(), &[StrategyArg::Greedy, StrategyArg::Mcts], think, 3).unwrap();
        let names: Vec<&str> = l.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["you", "greedy", "mcts"]);
        assert!(Lineup::new(me(), &[StrategyArg::Greedy, StrategyArg::Mcts], think, 2).is_err());
        assert!(Lineup::new(me(), &[], think, 2).is_err());
    }

    #[test]
    fn seats_rotate_and_dice_repeat_per_rotation() {
        let l = Lineup::new(
            me(),
            &[StrategyArg::Greedy, StrategyArg::Mcts],
            Budget::Iterations(1),
            3,
        )
        .unwrap();
        assert_eq!(l.seating(0), [0, 1, 2]);
        assert_eq!(l.seating(1), [1, 2, 0]);
        assert_eq!(l.seating(2), [2, 0, 1]);
        assert_eq!(l.seating(3), [0, 1, 2]);
        let seeds: Vec<u64> = (0..6).map(|i| l.seed(10, i, true)).collect();
        assert_eq!(seeds, [10, 10, 10, 11, 11, 11]);
        let seeds: Vec<u64> = (0..3).map(|i| l.seed(10, i, false)).collect();
        assert_eq!(seeds, [10, 11, 12]);
        // Each entry plays each seat once per rotation.
        for entry in 0..3 {
            let mut seats: Vec<usize> = (0..3)
                .map(|i| l.seating(i).iter().position(|&e| e == entry).unwrap())
                .collect();
            seats.sort_unstable();
            assert_eq!(seats, [0, 1, 2]);
        }
    }
}
