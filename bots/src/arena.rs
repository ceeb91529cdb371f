//! Playing complete games between bots in-process, and tournaments with seat
//! rotation and win-rate statistics.

use druids_engine::{Game, Outcome, Seat, SetupError, Viewer};

use crate::{Bot, Budget, Searchable, Strategy};

/// Plays one game to the end; `bots[i]` plays seat `i`. Each bot sees only its
/// own seat's view. Returns the outcome and the number of actions.
pub fn play_game<G: Game>(
    players: usize,
    seed: u64,
    options: &G::Options,
    bots: &mut [Box<dyn Bot<G>>],
) -> Result<(Outcome, u64), ArenaError> {
    let mut events = Vec::new();
    let mut game = G::new(players, seed, options, &mut events)?;
    let mut legal = Vec::new();
    let mut actions = 0;
    while let Some(seat) = game.to_act() {
        legal.clear();
        game.legal_actions(&mut legal);
        let view = game.view(Viewer::Seat(seat));
        let action = bots[seat.index()].choose(seat, &view, &legal);
        events.clear();
        game.apply(seat, &action, &mut events).map_err(|e| {
            ArenaError::Refused(format!(
                "{} played {action:?}: {e}",
                bots[seat.index()].name()
            ))
        })?;
        actions += 1;
    }
    Ok((game.outcome().expect("finished"), actions))
}

/// Why an arena game failed.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// The game could not be set up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The engine refused a bot's action (a bot bug).
    #[error("action refused: {0}")]
    Refused(String),
}

/// Results of one strategy (one entry in the line-up) over a tournament.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    /// Games played.
    pub games: u32,
    /// Wins, a shared win counting 1/k.
    pub wins: f64,
    /// Sum of final scores.
    pub score_sum: f64,
}

impl Standing {
    /// Win rate.
    pub fn win_rate(&self) -> f64 {
        self.wins / self.games.max(1) as f64
    }

    /// 95% Wilson score interval of the win rate
    /// ([`druids_arena::evaluation::wilson`]).
    pub fn win_rate_ci95(&self) -> (f64, f64) {
        let i = druids_arena::evaluation::wilson(self.wins, u64::from(self.games.max(1)));
        (i.low, i.high)
    }

    /// Mean final score.
    pub fn mean_score(&self) -> f64 {
        self.score_sum / self.games.max(1) as f64
    }
}

/// One game of a tournament, as it ended.
#[derive(Clone, Debug)]
pub struct Played<'a> {
    /// Its number, from 0.
    pub index: u32,
    /// The engine's seed.
    pub seed: u64,
    /// Seat `s` was played by entry `seating[s]` of the line-up.
    pub seating: &'a [usize],
    /// How it ended.
    pub outcome: &'a Outcome,
    /// Actions played.
    pub actions: u64,
}

/// Plays `games` games with the line-up `strategies` (one per seat), rotating
/// seats every game so that every entry plays every seat equally often. Entry
/// `i`'s results are in the returned vector at `i`; `progress` hears of each
/// game as it ends, with the standings so far.
pub fn tournament<G: Searchable>(
    strategies: &[Strategy],
    games: u32,
    seed: u64,
    think: Budget,
    mut progress: impl FnMut(&Played<'_>, &[Standing]),
) -> Result<Vec<Standing>, ArenaError> {
    let players = strategies.len();
    let mut standings = vec![Standing::default(); players];
    for g in 0..games {
        let shift = g as usize % players;
        // Seat s is played by entry (s + shift) % players.
        let mut bots: Vec<Box<dyn Bot<G>>> = (0..players)
            .map(|s| {
                let entry = (s + shift) % players;
                strategies[entry].build::<G>(seed ^ ((g as u64) << 8) ^ entry as u64, think)
            })
            .collect();
        let game_seed = seed.wrapping_add(g as u64);
        let (outcome, actions) =
            play_game::<G>(players, game_seed, &G::Options::default(), &mut bots)?;
        let share = 1.0 / outcome.winners.len() as f64;
        for s in 0..players {
            let entry = (s + shift) % players;
            let st = &mut standings[entry];
            st.games += 1;
            st.score_sum += outcome.scores[s] as f64;
            if outcome.winners.contains(&Seat(s as u8)) {
                st.wins += share;
            }
        }
        let seating: Vec<usize> = (0..players).map(|s| (s + shift) % players).collect();
        let played = Played {
            index: g,
            seed: game_seed,
            seating: &seating,
            outcome: &outcome,
            actions,
        };
        progress(&played, &standings);
    }
    Ok(standings)
}

#[cfg(test)]
mod tests {
    use druids_engine::dolmen::Dolmen;
    use druids_engine::meduris::Meduris;

    use super::*;

    /// Random, greedy and MCTS (a small fixed budget) finish games of every
    /// player count without the engine ever refusing one of their actions.
    fn every_strategy_finishes<G: Searchable>() {
        let all = [Strategy::Mcts, Strategy::Greedy, Strategy::Random];
        for players in G::MIN_PLAYERS..=G::MAX_PLAYERS {
            let lineup: Vec<Strategy> = all.iter().cycle().take(players).copied().collect();
            let games = players as u32;
            let standings = tournament::<G>(
                &lineup,
                games,
                7,
                Budget::Iterations(10),
                |_: &Played<'_>, _: &[Standing]| {},
            )
            .unwrap();
            let wins: f64 = standings.iter().map(|s| s.wins).sum();
            assert!((wins - games as f64).abs() < 1e-9, "one win per game");
            assert!(standings.iter().all(|s| s.games == games));
        }
    }

    #[test]
    fn every_strategy_finishes_meduris() {
        every_strategy_finishes::<Meduris>();
    }

    #[test]
    fn every_strategy_finishes_dolmen() {
        every_strategy_finishes::<Dolmen>();
    }

    /// Greedy's win rate against random over `games` 2-player games.
    fn greedy_vs_random<G: Searchable>(games: u32) -> f64 {
        let lineup = [Strategy::Greedy, Strategy::Random];
        let standings = tournament::<G>(
            &lineup,
            games,
            1,
            Budget::Iterations(1),
            |_: &Played<'_>, _: &[Standing]| {},
        )
        .unwrap();
        standings[0].win_rate()
    }

    #[test]
    fn greedy_beats_random_at_both_games() {
        let meduris = greedy_vs_random::<Meduris>(40);
        assert!(meduris > 0.75, "meduris: {meduris}");
        let dolmen = greedy_vs_random::<Dolmen>(40);
        assert!(dolmen > 0.75, "dolmen: {dolmen}");
    }

    #[test]
    fn win_rate_interval_contains_the_rate() {
        let s = Standing {
            games: 100,
            wins: 97.0,
            score_sum: 4560.0,
        };
        let (lo, hi) = s.win_rate_ci95();
        assert!(lo < 0.97 && 0.97 < hi, "{lo} {hi}");
        assert!((lo - 0.9155).abs() < 1e-3 && (hi - 0.9897).abs() < 1e-3);
        assert!((s.mean_score() - 45.6).abs() < 1e-9);
    }
}
