//! The bot's process: spawning it from the `--exec` command line, reading its
//! stdout and stderr in bounded lines, writing to its stdin without ever
//! blocking the bridge, and killing it.
//!
//! Everything here is about keeping a misbehaving program from hurting the
//! bridge: a line longer than [`MAX_LINE_BYTES`] is skipped without being
//! buffered, stdout is read into a small bounded channel (a flooding bot waits
//! for the bridge instead of filling its memory), and messages to a bot that
//! stops reading its stdin are dropped rather than queued forever.

use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot};

/// The longest line read from a bot, newline excluded (documented in
/// `docs/bot-protocol.md`). Longer lines are skipped whole.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Lines of one bot waiting for the bridge. With [`MAX_LINE_BYTES`] this bounds
/// what a flooding bot can make the bridge hold (4 MiB).
pub const STDOUT_QUEUE: usize = 64;

/// Messages waiting to be written to a bot's stdin. A bot that does not read
/// its input loses what does not fit, with a warning.
const STDIN_QUEUE: usize = 32;

/// How long a bot whose stdout has closed has to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Why the bot could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// `--exec` names no program.
    #[error("--exec names no program")]
    Empty,
    /// A quote of `--exec` is not closed.
    #[error("--exec has an unterminated {0} quote")]
    UnterminatedQuote(char),
    /// The operating system refused to start it.
    #[error("cannot start {program:?}: {source}")]
    Os {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Splits `--exec` into a program and its arguments the way a shell splits
/// simple words: whitespace separates, `'...'` and `"..."` quote, a backslash
/// escapes the next character (not inside single quotes). There are no pipes,
/// redirections or variables: the program is started directly, so that killing
/// it kills the bot and not just a shell in front of it. A bot that needs a
/// shell says so: `--exec "sh -c '...'"`.
pub fn split_command(line: &str) -> Result<Vec<String>, SpawnError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SpawnError::UnterminatedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err(SpawnError::UnterminatedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SpawnError::UnterminatedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SpawnError::Empty);
    }
    Ok(words)
}

/// What a bot's stdout produced, tagged with the bot's generation (its number
/// among the restarts) so that leftovers of a dead bot are recognised.
#[derive(Debug)]
pub struct Output {
    /// The generation of the bot that printed it.
    pub generation: u32,
    /// What it printed.
    pub kind: OutputKind,
}

/// One item of a bot's stdout.
#[derive(Debug)]
pub enum OutputKind {
    /// A complete line (newline and a trailing `\r` removed; invalid UTF-8
    /// replaced).
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`], skipped; its length in bytes.
    TooLong(usize),
    /// The bot has exited (after its stdout closed or it was killed), with its
    /// exit status if it could be read.
    Exited(Option<ExitStatus>),
}

/// A running bot: where to write its input, and how to end it. Dropping it
/// closes the bot's stdin and kills the bot.
pub struct Child {
    /// The generation of this bot.
    pub generation: u32,
    stdin: Option<mpsc::Sender<String>>,
    /// Never sent on: dropping it tells the reader task to kill the bot.
    _kill: oneshot::Sender<()>,
}

/// Why a message could not be handed to a bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The bot has not read its earlier messages; this one was dropped.
    #[error("the bot is not reading its stdin")]
    NotReading,
    /// The bot's stdin is closed (it is exiting).
    #[error("the bot's stdin is closed")]
    Closed,
}

impl Child {
    /// Starts `argv` as generation `generation`: its stdout goes to `out`, its
    /// stderr to the bridge's stderr line by line, prefixed with `label`.
    pub fn spawn(
        argv: &[String],
        generation: u32,
        out: mpsc::Sender<Output>,
        label: String,
    ) -> Result<Child, SpawnError> {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| SpawnError::Os {
                program: argv[0].clone(),
                source,
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");

        let (in_tx, mut in_rx) = mpsc::channel::<String>(STDIN_QUEUE);
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(line) = in_rx.recv().await {
                // A bot that exits closes the pipe: nothing more to write.
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the bot reads end of input.
        });

        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                match read_bounded_line(&mut reader, &mut buf, MAX_LINE_BYTES).await {
                    Ok(Line::Complete) => {
                        eprintln!("{label} {}", String::from_utf8_lossy(&buf))
                    }
                    Ok(Line::TooLong(n)) => {
                        eprintln!("{label} (a stderr line of {n} bytes was skipped)")
                    }
                    Ok(Line::Eof) | Err(_) => break,
                }
            }
        });

        let (kill_tx, mut kill_rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            let tag = |kind| Output { generation, kind };
            let mut killed = false;
            loop {
                tokio::select! {
                    // The bridge dropped its `Child`: end the bot.
                    _ = &mut kill_rx => {
                        let _ = child.start_kill();
                        killed = true;
                        break;
                    }
                    line = read_bounded_line(&mut reader, &mut buf, MAX_LINE_BYTES) => {
                        let kind = match line {
                            Ok(Line::Complete) => {
                                OutputKind::Line(String::from_utf8_lossy(&buf).into_owned())
                            }
                            Ok(Line::TooLong(n)) => OutputKind::TooLong(n),
                            Ok(Line::Eof) | Err(_) => break,
                        };
                        // The bridge is gone: nobody wants the bot any more.
                        if out.send(tag(kind)).await.is_err() {
                            let _ = child.start_kill();
                            killed = true;
                            break;
                        }
                    }
                }
            }
            // Stdout is closed: a bot without it can never answer again.
            let status = if killed {
                child.wait().await.ok()
            } else {
                match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                    Ok(status) => status.ok(),
                    Err(_) => {
                        let _ = child.start_kill();
                        child.wait().await.ok()
                    }
                }
            };
            let _ = out.send(tag(OutputKind::Exited(status))).await;
        });

        Ok(Child {
            generation,
            stdin: Some(in_tx),
            _kill: kill_tx,
        })
    }

    /// Queues `line` (without its newline) for the bot's stdin.
    pub fn send(&self, line: &str) -> Result<(), SendError> {
        let tx = self.stdin.as_ref().ok_or(SendError::Closed)?;
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(line);
        text.push('\n');
        tx.try_send(text).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SendError::NotReading,
            mpsc::error::TrySendError::Closed(_) => SendError::Closed,
        })
    }

    /// Closes the bot's stdin once everything queued is written: a polite bot
    /// exits at end of input.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

/// How reading one line ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// `buf` holds the line.
    Complete,
    /// The line was longer than allowed and was skipped; its length.
    TooLong(usize),
    /// End of input (a last line without newline is returned as `Complete` first).
    Eof,
}

/// Reads one line into `buf` (cleared first; newline and a trailing `\r`
/// removed). A line of more than `max` bytes is consumed without being kept,
/// so memory stays bounded whatever the input.
pub async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match (any, total > max) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong(total),
                (true, false) => {
                    trim_cr(buf);
                    Line::Complete
                }
            });
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        total += part.len();
        if total <= max {
            buf.extend_from_slice(part);
        } else {
            buf.clear();
        }
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            if total > max {
                return Ok(Line::TooLong(total));
            }
            trim_cr(buf);
            return Ok(Line::Complete);
        }
    }
}

fn trim_cr(buf: &mut Vec<u8>) {
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_simple_shell_words() {
        assert_eq!(
            split_command(r#"python3 "my bot.py" --name 'a b' x\ y"#).unwrap(),
            ["python3", "my bot.py", "--name", "a b", "x y"]
        );
        assert_eq!(split_command(r#"a "" b"#).unwrap(), ["a", "", "b"]);
        assert!(matches!(split_command("   "), Err(SpawnError::Empty)));
        assert!(matches!(
            split_command("a 'b"),
            Err(SpawnError::UnterminatedQuote('\''))
        ));
    }

    #[tokio::test]
    async fn long_lines_are_skipped_without_being_kept() {
        let mut input = Vec::new();
        input.extend_from_slice(b"short\r\n");
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend_from_slice(b"\nlast");
        let mut reader = BufReader::with_capacity(8, input.as_slice());
        let mut buf = Vec::new();
        let line = read_bounded_line(&mut reader, &mut buf, 10).await.unwrap();
        assert_eq!((line, buf.as_slice()), (Line::Complete, &b"short"[..]));
        let line = read_bounded_line(&mut reader, &mut buf, 10).await.unwrap();
        assert_eq!(line, Line::TooLong(100));
        let line = read_bounded_line(&mut reader, &mut buf, 10).await.unwrap();
        assert_eq!((line, buf.as_slice()), (Line::Complete, &b"last"[..]));
        let line = read_bounded_line(&mut reader, &mut buf, 10).await.unwrap();
        assert_eq!(line, Line::Eof);
    }
}
