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

/// How long a bot whose stdout has closed has to exit before it is killed,
/// and how long the stdout of a bot that has exited is still read.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

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
    /// The bot has exited, with its exit status if it could be read: its
    /// stdout has closed, or it was killed, or it exited and a process it
    /// left behind still held its stdout [`EXIT_GRACE`] later.
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
            let mut reader = LineReader::new(BufReader::new(stderr), MAX_LINE_BYTES);
            loop {
                match reader.next().await {
                    Ok(Line::Complete(text)) => eprintln!("{label} {text}"),
                    Ok(Line::TooLong(n)) => {
                        eprintln!("{label} (a stderr line of {n} bytes was skipped)")
                    }
                    Ok(Line::Eof) | Err(_) => break,
                }
            }
        });

        let (kill_tx, mut kill_rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let mut reader = LineReader::new(BufReader::new(stdout), MAX_LINE_BYTES);
            let tag = |kind| Output { generation, kind };
            let mut status = None;
            // Once the bot has exited, what it printed last is still read,
            // unless a process it left behind keeps its stdout open.
            let mut drain_until = None;
            loop {
                let drained = async {
                    match drain_until {
                        Some(t) => tokio::time::sleep_until(t).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    // The bridge dropped its `Child`: end the bot.
                    _ = &mut kill_rx, if status.is_none() => {
                        let _ = child.start_kill();
                        status = Some(child.wait().await.ok());
                        break;
                    }
                    exited = child.wait(), if status.is_none() => {
                        status = Some(exited.ok());
                        drain_until = Some(tokio::time::Instant::now() + EXIT_GRACE);
                    }
                    _ = drained => break,
                    line = reader.next() => {
                        let kind = match line {
                            Ok(Line::Complete(text)) => OutputKind::Line(text),
                            Ok(Line::TooLong(n)) => OutputKind::TooLong(n),
                            Ok(Line::Eof) | Err(_) => break,
                        };
                        // The bridge is gone: nobody wants the bot any more.
                        if out.send(tag(kind)).await.is_err() {
                            let _ = child.start_kill();
                            break;
                        }
                    }
                }
            }
            // Stdout is closed (or the bot is gone): a bot without it can
            // never answer again.
            let status = match status {
                Some(s) => s,
                None => match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
                    Ok(s) => s.ok(),
                    Err(_) => {
                        let _ = child.start_kill();
                        child.wait().await.ok()
                    }
                },
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
    /// A line (newline and a trailing `\r` removed; invalid UTF-8 replaced).
    Complete(String),
    /// The line was longer than allowed and was skipped; its length.
    TooLong(usize),
    /// End of input (a last line without newline comes first as `Complete`).
    Eof,
}

/// Reads lines of at most `max` bytes: a longer line is consumed without
/// being kept, so memory stays bounded whatever the input.
///
/// [`LineReader::next`] is cancel-safe (the line read so far lives in the
/// reader, not in the future), so it can race other events in a `select!`.
pub struct LineReader<R> {
    reader: R,
    max: usize,
    /// The current line so far (emptied when it grows past `max`).
    buf: Vec<u8>,
    /// Its length so far, kept or not.
    len: usize,
    /// Whether any byte of the current line has been read.
    started: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// A reader of `reader`'s lines of at most `max` bytes.
    pub fn new(reader: R, max: usize) -> Self {
        LineReader {
            reader,
            max,
            buf: Vec::new(),
            len: 0,
            started: false,
        }
    }

    /// The next line.
    pub async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            // The only await: nothing is consumed until it has returned.
            let chunk = self.reader.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(if self.started { self.take() } else { Line::Eof });
            }
            self.started = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            self.len += part.len();
            if self.len <= self.max {
                self.buf.extend_from_slice(part);
            } else {
                self.buf = Vec::new();
            }
            let used = newline.map_or(chunk.len(), |i| i + 1);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(self.take());
            }
        }
    }

    /// Ends the current line and returns it.
    fn take(&mut self) -> Line {
        let len = std::mem::take(&mut self.len);
        self.started = false;
        let mut buf = std::mem::take(&mut self.buf);
        if len > self.max {
            return Line::TooLong(len);
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Line::Complete(String::from_utf8_lossy(&buf).into_owned())
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
        let reader = BufReader::with_capacity(8, input.as_slice());
        let mut lines = LineReader::new(reader, 10);
        assert_eq!(lines.next().await.unwrap(), Line::Complete("short".into()));
        assert_eq!(lines.next().await.unwrap(), Line::TooLong(100));
        assert_eq!(lines.next().await.unwrap(), Line::Complete("last".into()));
        assert_eq!(lines.next().await.unwrap(), Line::Eof);
    }
}
