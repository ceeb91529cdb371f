//! Everything the CLI writes to stdout goes through here, for two reasons:
//!
//! * a closed pipe (`druids watch … | head`) must end the command quietly
//!   instead of panicking as `println!` does: [`line`] returns the write
//!   error, which the command propagates and `main` turns into exit status 0;
//! * colours are used only when stdout is a terminal and `NO_COLOR` is unset,
//!   so redirected output never holds ANSI escapes ([`Style`]).

use std::io::{IsTerminal, Write};

use crate::connect::CliError;

/// Writes `text` and a newline to stdout and flushes it (a watcher sees each
/// event at once, also through a pipe).
pub fn line(text: impl std::fmt::Display) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
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

/// Whether text for stdout may carry ANSI colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// True: colours on.
    pub colour: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_writes_no_escapes() {
        let plain = Style::default();
        assert_eq!(plain.paint(Some(Colour::Red), "H1"), "H1");
        let coloured = Style { colour: true };
        assert_eq!(coloured.paint(Some(Colour::Red), "H1"), "\x1b[31mH1\x1b[0m");
        assert_eq!(coloured.paint(None, "H1"), "H1");
    }
}
