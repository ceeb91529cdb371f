//! The fenced blocks of the project's Markdown (README.md, `docs/*.md`), as
//! the docs tests read them, and a shell to run their commands in: one
//! extraction for every test that runs a page as written, so a snippet
//! edited in the page is what the test runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fenced block: its language (what follows the opening fence, possibly
/// empty) and its text, one `\n` after each line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The info string of the opening fence (`sh`, `json`, or empty).
    pub lang: String,
    /// The lines between the fences.
    pub text: String,
}

/// A page of the repository by its path from the workspace root.
pub fn page(path: &str) -> String {
    let at = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&at).unwrap_or_else(|e| panic!("{}: {e}", at.display()))
}

/// The fenced blocks of `markdown`, in order.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for line in markdown.lines() {
        match (&mut open, line.trim_end()) {
            (None, l) if l.starts_with("```") => {
                open = Some(Block {
                    lang: l[3..].to_owned(),
                    text: String::new(),
                })
            }
            (Some(_), "```") => blocks.extend(open.take()),
            (Some(block), l) => {
                block.text.push_str(l);
                block.text.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// The fenced blocks of page `path`, in order.
pub fn page_blocks(path: &str) -> Vec<Block> {
    blocks(&page(path))
}

/// The fenced blocks of page `path` in the section under the heading line
/// `heading` (e.g. `## Quick start (5 minutes)`), up to the next heading of
/// the same or a higher level.
pub fn section_blocks(path: &str, heading: &str) -> Vec<Block> {
    let doc = page(path);
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut section = String::new();
    let mut inside = false;
    let mut fenced = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            let this = line.chars().take_while(|c| *c == '#').count();
            if line.trim_end() == heading {
                inside = true;
                continue;
            }
            if inside && this <= level {
                break;
            }
        }
        if inside {
            section.push_str(line);
            section.push('\n');
        }
    }
    assert!(inside, "{path} has no heading {heading:?}");
    blocks(&section)
}

/// The command lines of `block` (a `sh` block): comments and blank lines
/// dropped, lines continued with `\` joined.
pub fn commands(block: &Block) -> Vec<String> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for line in block.text.lines() {
        let line = line.trim();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head.trim_end());
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                lines.push(std::mem::take(&mut pending));
            }
        }
    }
    lines
}

/// A fresh scratch directory named after `tag` with `druids` (this build's)
/// in it: the `PATH` entry and working directory of a page's commands.
pub fn druids_on_path(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("druids-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let druids =
        crate::process::cargo_binary("druids-cli", "druids").unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(druids, dir.join("druids")).expect("symlink");
    dir
}

/// A page's command `line` as a person runs it: bash in `dir`, with `dir`
/// (from [`druids_on_path`]) first on `PATH`, `server` as `DRUIDS_SERVER`,
/// no colours; stdin empty, stdout and stderr piped.
pub fn shell(line: &str, dir: &Path, server: &str) -> Command {
    let mut cmd = Command::new("bash");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.args(["-euo", "pipefail", "-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("DRUIDS_SERVER", server)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_sections_are_read_as_written() {
        let all = page_blocks("README.md");
        assert!(all.iter().any(|b| b.lang == "sh"));
        let quick = section_blocks("README.md", "## Quick start (5 minutes)");
        assert_eq!(quick[0].text, "cargo run --release -p druids-server\n");
        let b = Block {
            lang: "sh".into(),
            text: "# a comment\na --x \\\n    --y  # said\n\nb &\n".into(),
        };
        assert_eq!(commands(&b), ["a --x --y  # said", "b &"]);
    }
}
