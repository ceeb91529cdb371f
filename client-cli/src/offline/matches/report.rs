//! What a match reports: one JSON line per game (stdout, or `--jsonl
//! FILE`), each finished game's replay (`--replays DIR`), and at the end a
//! table on stderr: per program its games, win rate and mean score with 95 %
//! intervals, and with more than two programs their fitted strengths.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use druids_arena::evaluation::{self, Interval, SeatResult};
use druids_arena::ratings::elo;
use druids_contract::pb;

use super::game::Played;
use super::lineup::Lineup;
use crate::connect::CliError;
use crate::lines::{GameRecord, game_line};

/// The match's report, filled game by game.
pub struct Report {
    names: Vec<String>,
    heading: String,
    lines: Box<dyn Write>,
    jsonl: Option<PathBuf>,
    replays: Option<PathBuf>,
    /// The seats of every finished game, for the statistics.
    finished: Vec<Vec<SeatResult>>,
    /// Games that could not be played.
    errors: u64,
}

/// The places of a finished game's seats: 1 for the winners, then by the
/// ranking (first to last).
fn places(o: &pb::Outcome) -> Vec<u32> {
    let mut places = vec![0; o.scores.len()];
    let mut next = o.winners.len() as u32 + 1;
    for &seat in &o.ranking {
        let Some(place) = places.get_mut(seat as usize) else {
            continue;
        };
        if o.winners.contains(&seat) {
            *place = 1;
        } else {
            *place = next;
            next += 1;
        }
    }
    places
}

impl Report {
    /// A report of `games` games of `lineup` playing `game`; opens `jsonl`
    /// (else the lines go to stdout) and creates `replays`.
    pub fn new(
        lineup: &Lineup,
        game: &str,
        dice_driven: bool,
        games: u64,
        jsonl: Option<&Path>,
        replays: Option<&Path>,
    ) -> Result<Report, CliError> {
        let lines: Box<dyn Write> = match jsonl {
            Some(path) => Box::new(BufWriter::new(
                File::create(path).map_err(|e| CliError::file(path, e))?,
            )),
            None => Box::new(std::io::stdout()),
        };
        if let Some(dir) = replays {
            std::fs::create_dir_all(dir).map_err(|e| CliError::file(dir, e))?;
        }
        let heading = format!(
            "{game}, {} players, {} games, seats rotated{}",
            lineup.players(),
            games,
            if dice_driven {
                ", the same dice for every rotation"
            } else {
                ""
            }
        );
        Ok(Report {
            names: lineup.entries().iter().map(|e| e.name.clone()).collect(),
            heading,
            lines,
            jsonl: jsonl.map(Path::to_owned),
            replays: replays.map(Path::to_owned),
            finished: Vec::new(),
            errors: 0,
        })
    }

    /// One game's line, its replay and its part of the statistics.
    pub fn game(&mut self, played: &Played) -> Result<(), CliError> {
        let plan = &played.plan;
        let seats: Vec<String> = plan
            .seating
            .iter()
            .map(|&e| self.names[e].clone())
            .collect();
        let outcome = played.replay.outcome.as_ref();
        let line = game_line(&GameRecord {
            index: plan.index,
            game_id: &plan.game_id,
            seed: plan.seed,
            seats: &seats,
            outcome,
            actions: played.replay.actions.len() as u64,
            error: played.error.as_deref(),
        });
        let written = writeln!(self.lines, "{line}").and_then(|()| self.lines.flush());
        written.map_err(|e| match &self.jsonl {
            Some(path) => CliError::file(path, e),
            None => e.into(),
        })?;
        match (outcome, &played.error) {
            (Some(o), None) => {
                let places = places(o);
                self.finished.push(
                    plan.seating
                        .iter()
                        .enumerate()
                        .map(|(seat, &program)| SeatResult {
                            program,
                            score: f64::from(o.scores.get(seat).copied().unwrap_or_default()),
                            place: places.get(seat).copied().unwrap_or(u32::MAX),
                        })
                        .collect(),
                );
                if let Some(dir) = &self.replays {
                    let path = dir.join(format!("{}.json", plan.game_id));
                    let json = druids_contract::json::to_json(&played.replay).to_string();
                    std::fs::write(&path, json).map_err(|e| CliError::file(&path, e))?;
                }
            }
            _ => {
                self.errors += 1;
                eprintln!(
                    "game {} ({}): {}",
                    plan.index,
                    plan.game_id,
                    played.error.as_deref().unwrap_or("no outcome")
                );
            }
        }
        Ok(())
    }

    /// The table of the statistics, on stderr; failure when a game could
    /// not be played.
    pub fn finish(self) -> Result<ExitCode, CliError> {
        if self.finished.is_empty() && self.errors > 0 {
            // No table of zeros: the errors above said why.
            eprintln!(
                "no game was played ({} could not be played: see the errors above)",
                self.errors
            );
            return Ok(ExitCode::FAILURE);
        }
        let e = evaluation::evaluate(self.names.len(), &self.finished)
            .map_err(|e| CliError::Protocol(format!("the fit failed: {e}")))?;
        let pct = |i: &Interval| {
            format!(
                "{:>5.1}% ({:>5.1}–{:>5.1}%)",
                100.0 * i.value,
                100.0 * i.low,
                100.0 * i.high
            )
        };
        let mean = |i: &Interval| format!("{:>7.2} ({:.2}–{:.2})", i.value, i.low, i.high);
        let mut out = self.heading.clone();
        if self.errors > 0 {
            out += &format!(" ({} could not be played, left out)", self.errors);
        }
        out += &format!(
            "\n{:<12} {:>6}  {:<24} {:<24}{}\n",
            "program",
            "games",
            "win rate (95% CI)",
            "mean score (95% CI)",
            if e.fit.is_some() {
                "strength (95% CI)"
            } else {
                ""
            }
        );
        for (p, s) in e.programs.iter().enumerate() {
            let strength = e.fit.as_ref().map_or(String::new(), |fit| {
                let d = fit[p].display();
                format!("{:.0} ({:.0}–{:.0})", d.value, d.low, d.high)
            });
            out += &format!(
                "{:<12} {:>6}  {:<24} {:<24}{strength}\n",
                self.names[p],
                s.games,
                pct(&s.win_rate),
                mean(&s.mean_score)
            );
        }
        if e.fit.is_some() {
            out += &format!(
                "strengths: Plackett-Luce fit of the finishing orders, {:.0} = average\n",
                elo(0.0)
            );
        }
        for line in out.lines() {
            eprintln!("{}", line.trim_end());
        }
        Ok(if self.errors > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winners_share_the_first_place() {
        let o = pb::Outcome {
            scores: vec![5, 9, 9, 1],
            winners: vec![1, 2],
            ranking: vec![2, 1, 0, 3],
            by_safeguard: false,
            ..Default::default()
        };
        assert_eq!(places(&o), [3, 1, 1, 4]);
    }
}
