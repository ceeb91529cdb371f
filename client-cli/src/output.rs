//! Everything the CLI writes to stdout goes through here, for two reasons:
//!
//! * a closed pipe (`druids watch … | head`) must end the command quietly
//!   instead of panicking as `println!` does: [`line`] returns the write
//!   error, which the command propagates and `main` turns into exit status 0;
//! * colours are used only when stdout is a terminal and `NO_COLOR` is unset,
//!   so redirected output never holds ANSI escapes ([`Style`]);
//! * a progress bar is drawn on stderr only when stderr is a terminal
//!   ([`Progress`]), so logs and pipes get none of its carriage returns.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use crate::connect::CliError;

/// Writes `text` and a newline to stdout and flushes it (a watcher sees each
/// event at once, also through a pipe).
pub fn line(text: impl std::fmt::Display) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// `s`, from a server, made safe to print on one line of a terminal: its
/// control characters (escape sequences, line breaks) and format characters
/// (bidirectional overrides, zero-width ones) written as `\u{..}` escapes,
/// so a name or description cannot clear the screen, forge a line or
/// reorder what is shown. This server refuses them in names; another may not.
pub fn plain(s: &str) -> std::borrow::Cow<'_, str> {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    let unsafe_char = |c: char| c.is_control() || c.general_category() == GeneralCategory::Format;
    if !s.chars().any(unsafe_char) {
        return s.into();
    }
    s.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// Writes `text` to stdout as is (no newline) and flushes it: prompts and
/// multi-line pictures that end with their own newline.
pub fn text(text: impl std::fmt::Display) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    write!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// `println!` that returns the error instead of panicking on a closed stdout.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// How text for people is drawn: with ANSI colours or not, in full or
/// compact (boards that fit an 80 × 24 terminal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// True: colours on.
    pub colour: bool,
    /// True: compact boards.
    pub compact: bool,
}

/// ANSI colours the boards use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Purple (Meduris seat 0).
    Purple,
    /// Blue.
    Blue,
    /// Light green.
    LightGreen,
    /// Red.
    Red,
    /// Yellow.
    Yellow,
    /// Green.
    Green,
    /// Black, shown as bright black (grey) so it shows on dark terminals.
    Black,
    /// Cyan: the river.
    Cyan,
    /// Bold, no colour: headings.
    Bold,
    /// Dim: empty sites and fields.
    Dim,
}

impl Colour {
    fn code(self) -> &'static str {
        match self {
            Colour::Purple => "35",
            Colour::Blue => "34",
            Colour::LightGreen => "92",
            Colour::Red => "31",
            Colour::Yellow => "33",
            Colour::Green => "32",
            Colour::Black => "90",
            Colour::Cyan => "36",
            Colour::Bold => "1",
            Colour::Dim => "2",
        }
    }
}

impl Style {
    /// The style for stdout: colours when it is a terminal and `NO_COLOR` is
    /// unset or empty (<https://no-color.org>).
    pub fn for_stdout() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: std::io::stdout().is_terminal() && !no_color,
            compact: false,
        }
    }

    /// `text` painted in `colour`, or as is without colours.
    pub fn paint(self, colour: Option<Colour>, text: &str) -> String {
        match colour {
            Some(c) if self.colour => format!("\x1b[{}m{text}\x1b[0m", c.code()),
            _ => text.to_owned(),
        }
    }
}

/// A progress bar of `done` out of `total` on stderr, redrawn in place; on
/// anything but a terminal it draws nothing.
pub struct Progress {
    what: &'static str,
    total: u64,
    done: u64,
    started: Instant,
    draw: bool,
}

impl Progress {
    /// A bar counting `total` `what`s ("games").
    pub fn new(what: &'static str, total: u64) -> Progress {
        Progress {
            what,
            total,
            done: 0,
            started: Instant::now(),
            draw: std::io::stderr().is_terminal(),
        }
    }

    /// One more done.
    pub fn advance(&mut self) {
        self.done += 1;
        if !self.draw {
            return;
        }
        const WIDTH: u64 = 30;
        let filled = (self.done * WIDTH).checked_div(self.total).unwrap_or(WIDTH) as usize;
        eprint!(
            "\r[{}{}] {}/{} {} ({:.0} s)",
            "#".repeat(filled),
            ".".repeat(WIDTH as usize - filled.min(WIDTH as usize)),
            self.done,
            self.total,
            self.what,
            self.started.elapsed().as_secs_f64()
        );
        if self.done >= self.total {
            eprintln!();
        }
    }
}

/// The games of a long command (`selfplay`, `tournament`): one JSON line
/// per game into `--jsonl FILE` (if given), and a progress bar on a
/// terminal. Shared by the threads or tasks that play the games.
pub struct GameLog {
    file: Option<(PathBuf, Mutex<BufWriter<File>>)>,
    progress: Mutex<Progress>,
}

impl GameLog {
    /// A log of `total` games, their lines into `jsonl` if given.
    pub fn open(jsonl: Option<&Path>, total: u64) -> Result<GameLog, CliError> {
        let file = match jsonl {
            Some(path) => {
                let f = File::create(path).map_err(|e| CliError::file(path, e))?;
                Some((path.to_owned(), Mutex::new(BufWriter::new(f))))
            }
            None => None,
        };
        Ok(GameLog {
            file,
            progress: Mutex::new(Progress::new("games", total)),
        })
    }

    /// One game has ended; `line` makes its JSON line (only when it is kept).
    pub fn game(&self, line: impl FnOnce() -> String) -> Result<(), CliError> {
        self.progress
            .lock()
            .expect("no panics while locked")
            .advance();
        let Some((path, file)) = &self.file else {
            return Ok(());
        };
        let mut file = file.lock().expect("no panics while locked");
        writeln!(file, "{}", line())
            .and_then(|()| file.flush())
            .map_err(|e| CliError::file(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_server_prints_without_its_escapes() {
        assert_eq!(plain("Zoë 2"), "Zoë 2");
        assert_eq!(
            plain("\u{1b}[2Jseat 0\nresigned\u{202e}"),
            "\\u{1b}[2Jseat 0\\u{a}resigned\\u{202e}"
        );
    }

    #[test]
    fn plain_style_writes_no_escapes() {
        let plain = Style::default();
        assert_eq!(plain.paint(Some(Colour::Red), "H1"), "H1");
        let coloured = Style {
            colour: true,
            compact: false,
        };
        assert_eq!(coloured.paint(Some(Colour::Red), "H1"), "\x1b[31mH1\x1b[0m");
        assert_eq!(coloured.paint(None, "H1"), "H1");
    }
}
