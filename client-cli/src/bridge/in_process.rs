//! A program behind the line protocol playing in this process, on the
//! engine, without a server (`druids match`): the same messages as the
//! bridge sends over a real game (`start`, `decision`, `rejected`,
//! `game_end`, see `docs/bot-protocol.md`), so a bot that plays on a server
//! plays here unchanged, and its answers are checked the same way.
//!
//! There is no turn clock: a program that does not answer within the
//! decision time, exits, or answers [`MAX_BAD_ANSWERS`] times with nothing
//! usable loses the game to an error (the match reports it and leaves the
//! game out of its statistics). Each game starts its program afresh and
//! kills it at the end.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use druids_contract::pb;

use super::child::{MAX_LINE_BYTES, SpawnError, split_command};
pub use super::protocol::Choice;
use super::protocol::{self, AnswerError, BotLine};

/// Unusable answers to one decision after which the game is lost to an error.
pub const MAX_BAD_ANSWERS: u32 = 10;

/// How long a program has to exit after `game_end`.
const GOODBYE: Duration = Duration::from_secs(1);

/// What to run, and how.
#[derive(Clone, Debug)]
pub struct ProgramSpec {
    argv: Vec<String>,
    /// Pass the program's stderr and `#` log lines through to ours.
    show_logs: bool,
    /// How long one decision may take.
    decision_time: Duration,
}

impl ProgramSpec {
    /// The program of `--exec` (split like a simple shell command line).
    pub fn new(
        exec: &str,
        show_logs: bool,
        decision_time: Duration,
    ) -> Result<ProgramSpec, SpawnError> {
        Ok(ProgramSpec {
            argv: split_command(exec)?,
            show_logs,
            decision_time,
        })
    }
}

/// Why a program could not finish its game.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// It could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// It exited (or closed its stdout) before the game ended.
    #[error("the program exited before the game ended{0}")]
    Exited(String),
    /// It did not answer in time.
    #[error("the program did not answer within {0} ms")]
    Slow(u128),
    /// It answered nothing usable, again and again.
    #[error("the program gave {MAX_BAD_ANSWERS} unusable answers to one decision (last: {0})")]
    Lost(String),
}

/// One line of the program's stdout.
enum Line {
    Text(String),
    TooLong(usize),
}

/// A running program, for one game.
pub struct Program {
    child: std::process::Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Line>,
    show_logs: bool,
    decision_time: Duration,
    label: String,
}

/// Reads `stdout` line by line into `tx`; a line longer than
/// [`MAX_LINE_BYTES`] is skipped without being kept. Ends with the stream.
fn read_lines(stdout: impl Read, tx: mpsc::Sender<Line>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let buf = match reader.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(buf) => buf,
        };
        let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if skipped > 0 || line.len() + chunk.len() > MAX_LINE_BYTES {
            skipped += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let used = end.unwrap_or(buf.len());
        reader.consume(used);
        if end.is_some() {
            let item = if skipped > 0 {
                Line::TooLong(std::mem::take(&mut skipped))
            } else {
                let text = String::from_utf8_lossy(&line);
                Line::Text(text.strip_suffix('\r').unwrap_or(&text).to_owned())
            };
            line.clear();
            if tx.send(item).is_err() {
                return;
            }
        }
    }
}

impl Program {
    /// Starts the program for `seat` of `game_id` and sends it `start` with
    /// the seat's view `state`.
    pub fn start(
        spec: &ProgramSpec,
        game_id: &str,
        seat: u32,
        state: &pb::StateView,
    ) -> Result<Program, ProgramError> {
        let start = protocol::Start {
            game_id,
            seat,
            restarts: 0,
            state,
        };
        let mut child = Command::new(&spec.argv[0])
            .args(&spec.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if spec.show_logs {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|source| SpawnError::Os {
                program: spec.argv[0].clone(),
                source,
            })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || read_lines(stdout, tx));
        let mut program = Program {
            child,
            stdin,
            lines,
            show_logs: spec.show_logs,
            decision_time: spec.decision_time,
            label: format!("[{} seat {}]", start.game_id, start.seat),
        };
        program.send(&protocol::start(&start))?;
        Ok(program)
    }

    fn send(&mut self, msg: &serde_json::Value) -> Result<(), ProgramError> {
        match writeln!(self.stdin, "{msg}").and_then(|()| self.stdin.flush()) {
            Ok(()) => Ok(()),
            // Its input is closed: it has exited (or is about to).
            Err(e) => Err(self.exited(&e.to_string())),
        }
    }

    /// The program is gone: how it ended, as far as can be told.
    fn exited(&mut self, otherwise: &str) -> ProgramError {
        let deadline = Instant::now() + GOODBYE;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return ProgramError::Exited(format!(" ({status})"));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        ProgramError::Exited(format!(" ({otherwise})"))
    }

    /// Asks the seat's decision of `version` (its view `state`, the legal
    /// actions `legal`) until the program gives an answer `check` accepts
    /// (it says why it does not otherwise), and returns what `check` made of
    /// it.
    pub fn decide<T>(
        &mut self,
        version: u64,
        state: &pb::StateView,
        legal: &[pb::LegalAction],
        mut check: impl FnMut(Choice) -> Result<T, String>,
    ) -> Result<T, ProgramError> {
        let mut ask = protocol::Ask {
            game_id: &state.game_id,
            seat: state.viewer_seat.unwrap_or_default(),
            version,
            decision: state.decision.as_ref(),
            actions: legal,
            state,
            deadline_unix_ms: None,
            time_left_ms: None,
            attempt: 1,
        };
        let deadline = Instant::now() + self.decision_time;
        let mut bad = 0;
        self.send(&protocol::decision(&ask))?;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(ProgramError::Slow(self.decision_time.as_millis()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(self.exited("its output closed"));
                }
            };
            let answer = match line {
                Line::TooLong(n) => Err(AnswerError::TooLong(n)),
                Line::Text(text) => match protocol::parse_line(&text) {
                    BotLine::Blank => continue,
                    BotLine::Log(log) => {
                        if self.show_logs {
                            eprintln!("{} {log}", self.label);
                        }
                        continue;
                    }
                    // An answer to another version is not this decision's.
                    BotLine::Answer(a) if a.version.is_some_and(|v| v != version) => continue,
                    BotLine::Answer(a) => a.choice,
                },
            };
            let problem = match answer.map_err(|e| e.to_string()).and_then(&mut check) {
                Ok(picked) => return Ok(picked),
                Err(problem) => problem,
            };
            bad += 1;
            if bad >= MAX_BAD_ANSWERS {
                return Err(ProgramError::Lost(problem));
            }
            self.send(&protocol::rejected(&state.game_id, version, &problem))?;
            ask.attempt += 1;
            self.send(&protocol::decision(&ask))?;
        }
    }

    /// Tells the program how the game ended and lets it go (it is killed if
    /// it does not exit by itself).
    pub fn finish(mut self, game_id: &str, outcome: Option<&pb::Outcome>) {
        let end = protocol::game_end(game_id, &protocol::End::Finished(outcome));
        if self.send(&end).is_err() {
            return;
        }
        let grace = Instant::now() + GOODBYE;
        while Instant::now() < grace {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // A game's program never outlives its game.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
