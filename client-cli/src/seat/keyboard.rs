//! The terminal's input for `druids play`, read on a thread of its own so
//! that `quit` or the end of input (Ctrl-D) leaves the game at once, also
//! while another seat decides, not only at the seat's own prompt.
//!
//! Lines are taken in the order typed: a line typed ahead waits for the next
//! prompt, and a `quit` behind it is acted on only once the lines before it
//! are used (so `printf 'a\nquit\n' | druids play` plays `a`, then leaves).
//! At most one line waits between the terminal and the prompt, and one more
//! in the reading thread, so input piped without end holds no memory.

use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Notify, mpsc};

/// One line of input, or its end.
#[derive(Debug)]
pub enum Line {
    Text(String),
    End,
}

/// The word that leaves the game (never a label: those have at most three
/// letters for the lists the contract allows).
pub const QUIT: &str = "quit";

impl Line {
    /// Whether this line leaves the game (`quit`, or the end of input).
    pub fn leaves(&self) -> bool {
        match self {
            Line::End => true,
            Line::Text(t) => t.trim().eq_ignore_ascii_case(QUIT),
        }
    }
}

/// What the prompt side holds: the lines, and the flag saying the seat is
/// deciding.
pub struct Prompted {
    lines: mpsc::Receiver<Line>,
    deciding: Arc<AtomicBool>,
}

impl Prompted {
    /// The next line for a prompt (the end of input once there are none).
    pub async fn next(&mut self) -> Line {
        self.lines.recv().await.unwrap_or(Line::End)
    }

    /// Marks the seat as deciding (from its legal list to its submission):
    /// meanwhile a `quit` goes to the prompt instead of leaving at once.
    pub fn set_deciding(&self, deciding: bool) {
        self.deciding.store(deciding, Ordering::SeqCst);
    }
}

/// Signalled when the person leaves while the seat is not deciding.
pub struct Left(Arc<Notify>);

impl Left {
    /// Resolves once the person has left between decisions.
    pub async fn wait(&self) {
        self.0.notified().await;
    }
}

/// Starts reading the terminal: the prompt's side and the leaving signal.
pub fn start() -> (Prompted, Left) {
    let (typed, mut read) = mpsc::channel::<Line>(1);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut stdin = stdin.lock();
        loop {
            let mut line = String::new();
            let line = match stdin.read_line(&mut line) {
                Ok(0) | Err(_) => Line::End,
                Ok(_) => Line::Text(line),
            };
            let end = matches!(line, Line::End);
            if typed.blocking_send(line).is_err() || end {
                return;
            }
        }
    });
    let (to_prompt, lines) = mpsc::channel::<Line>(1);
    let deciding = Arc::new(AtomicBool::new(false));
    let left = Arc::new(Notify::new());
    let (is_deciding, leave) = (Arc::clone(&deciding), Arc::clone(&left));
    tokio::spawn(async move {
        loop {
            let line = read.recv().await.unwrap_or(Line::End);
            // Wait until the lines typed before this one are used.
            let Ok(permit) = to_prompt.reserve().await else {
                return;
            };
            if line.leaves() && !is_deciding.load(Ordering::SeqCst) {
                leave.notify_one();
                return;
            }
            let end = matches!(line, Line::End);
            permit.send(line);
            if end {
                return;
            }
        }
    });
    (Prompted { lines, deciding }, Left(left))
}
