//! What a conformance run says: a line per scenario as it ends, a table at
//! the end, the command that reruns a failing scenario alone, JUnit XML
//! (what CI systems read), JSON, and the `--known-failing` list's check.

use std::path::Path;

use crate::conformance::judge::Verdict;
use crate::conformance::run::Graded;
use crate::conformance::scenarios::{Scenario, matches};
use crate::connect::CliError;

/// One scenario's result, as reported.
pub struct Row<'a> {
    pub scenario: &'a Scenario,
    pub seed: u64,
    /// Graded, or why the runner itself could not run it.
    pub graded: Result<Graded, String>,
    /// Listed in `--known-failing`.
    pub known_failing: bool,
}

impl Row<'_> {
    /// The verdict (a scenario the runner could not run is FAILED).
    pub fn verdict(&self) -> Verdict {
        self.graded.as_ref().map_or(Verdict::Failed, |g| g.verdict)
    }

    /// The evidence, worst first.
    pub fn evidence(&self) -> Vec<String> {
        match &self.graded {
            Ok(g) => g.findings.iter().map(|f| f.evidence.clone()).collect(),
            Err(e) => vec![format!("the runner could not run it: {e}")],
        }
    }

    fn seconds(&self) -> f64 {
        self.graded
            .as_ref()
            .map_or(0.0, |g| g.elapsed.as_secs_f64())
    }

    /// Whether this row fails the run: FAILED and not known to, or known
    /// to fail and passing (so that the list stays true).
    pub fn fails_run(&self) -> bool {
        (self.verdict() == Verdict::Failed) != self.known_failing
    }

    /// The progress line.
    pub fn line(&self, done: usize, total: usize) -> String {
        let known = if self.known_failing {
            " (known failing)"
        } else {
            ""
        };
        format!(
            "[{done:>3}/{total}] {:<10} {:<38} {:>6.1} s{known}",
            self.verdict().name(),
            self.scenario.name,
            self.seconds()
        )
    }
}

/// The patterns of a `--known-failing` file: one a line, `#` comments.
/// Every one must select a scenario of `names` (every scenario there is,
/// not only this run's): a typo would otherwise list nothing, silently.
pub fn known_failing(path: &Path, names: &[String]) -> Result<Vec<String>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::file(path, e))?;
    let entries: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim().to_owned()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let unknown: Vec<String> = entries
        .iter()
        .filter(|(_, p)| !names.iter().any(|n| matches(p, n)))
        .map(|(line, p)| format!("{p:?} (line {line})"))
        .collect();
    if !unknown.is_empty() {
        return Err(CliError::Usage(format!(
            "--known-failing {}: {} {} no scenario; `druids conformance --list` lists their names",
            path.display(),
            unknown.join(", "),
            if unknown.len() == 1 { "names" } else { "name" },
        )));
    }
    Ok(entries.into_iter().map(|(_, p)| p).collect())
}

/// Whether `name` is on the list.
pub fn listed(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| matches(p, name))
}

/// The table and the summary, for the terminal.
pub fn table(rows: &[Row], rerun: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for r in rows {
        let ev = r.evidence();
        let first = ev.first().map(String::as_str).unwrap_or("");
        out += &format!(
            "{:<10} {:<38} {}\n",
            r.verdict().name(),
            r.scenario.name,
            first
        );
        for more in ev.iter().skip(1) {
            out += &format!("{:<10} {:<38} {more}\n", "", "");
        }
        if r.known_failing && r.verdict() != Verdict::Failed {
            out += &format!(
                "{:<10} {:<38} listed in --known-failing but did not fail: take it off the list\n",
                "", ""
            );
        }
        if r.verdict() == Verdict::Failed {
            out += &format!("{:<10} {:<38} rerun: {}\n", "", "", rerun(&r.scenario.name));
        }
    }
    let count = |v| rows.iter().filter(|r| r.verdict() == v).count();
    let known = rows.iter().filter(|r| r.known_failing).count();
    // Why a run whose scenarios all passed still fails, on its last line.
    let passed_listed = rows
        .iter()
        .filter(|r| r.known_failing && r.verdict() != Verdict::Failed)
        .count();
    let passed_listed = match passed_listed {
        0 => String::new(),
        n => format!(", {n} of them passed: take them off the list"),
    };
    out += &format!(
        "{} scenarios: {} OK, {} NON-STRICT, {} FAILED ({known} known failing{passed_listed})\n",
        rows.len(),
        count(Verdict::Ok),
        count(Verdict::NonStrict),
        count(Verdict::Failed),
    );
    out
}

/// The run as one JSON document.
pub fn json(rows: &[Row], seed: u64, client: &[String]) -> serde_json::Value {
    let scenarios: Vec<_> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.scenario.name,
                "verdict": r.verdict().name(),
                "evidence": r.evidence(),
                "known_failing": r.known_failing,
                "game_id": r.graded.as_ref().map(|g| g.game_id.clone()).unwrap_or_default(),
                // As proto3 JSON writes a uint64: a JSON number loses digits
                // above 2^53 in JavaScript (and in many other parsers).
                "seed": r.seed.to_string(),
                "seconds": r.seconds(),
            })
        })
        .collect();
    serde_json::json!({ "seed": seed.to_string(), "client": client, "scenarios": scenarios })
}

/// The run as JUnit XML: one test case per scenario, FAILED as a failure,
/// NON-STRICT as a pass with its evidence on `system-out`.
pub fn junit(rows: &[Row]) -> String {
    let failures = rows
        .iter()
        .filter(|r| r.verdict() == Verdict::Failed)
        .count();
    let time: f64 = rows.iter().map(Row::seconds).sum();
    let mut x = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"druids conformance\" tests=\"{}\" failures=\"{failures}\" time=\"{time:.3}\">\n",
        rows.len()
    );
    for r in rows {
        x += &format!(
            "  <testcase classname=\"druids.conformance\" name=\"{}\" time=\"{:.3}\">\n",
            escape(&r.scenario.name),
            r.seconds()
        );
        let ev = escape(&r.evidence().join("\n"));
        match r.verdict() {
            Verdict::Failed => {
                let first = escape(r.evidence().first().map(String::as_str).unwrap_or(""));
                x += &format!("    <failure message=\"{first}\">{ev}</failure>\n");
            }
            Verdict::NonStrict => x += &format!("    <system-out>NON-STRICT\n{ev}</system-out>\n"),
            Verdict::Ok => {}
        }
        x += "  </testcase>\n";
    }
    x + "</testsuite>\n</testsuites>\n"
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `arg` as a POSIX shell reads it back.
pub fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+{}".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::scenarios::{Choice, all};

    fn every_name() -> Vec<String> {
        all(Choice {
            kind: None,
            players: None,
        })
        .into_iter()
        .map(|s| s.name)
        .collect()
    }

    #[test]
    fn a_known_failing_entry_that_names_no_scenario_is_refused() {
        let dir = std::env::temp_dir().join(format!("druids-known-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("known.txt");
        let names = every_name();
        std::fs::write(
            &file,
            "# ok\n\nstream/clean  # a prefix\n*/lost/*\ngame/dolmen/3\n",
        )
        .unwrap();
        assert_eq!(
            known_failing(&file, &names).unwrap(),
            ["stream/clean", "*/lost/*", "game/dolmen/3"]
        );
        std::fs::write(
            &file,
            "stream/clean\nnosuch/scenario\nsubmit/lost/2nd # typo\n",
        )
        .unwrap();
        let err = known_failing(&file, &names).unwrap_err();
        assert!(matches!(err, CliError::Usage(_)), "{err:?}");
        let said = err.to_string();
        assert!(
            said.contains(
                "\"nosuch/scenario\" (line 2), \"submit/lost/2nd\" (line 3) name no scenario"
            ) && said.contains("`druids conformance --list`"),
            "{said}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn seeds_are_written_as_decimal_strings() {
        let sc = all(Choice {
            kind: None,
            players: None,
        })
        .remove(0);
        let rows = [Row {
            scenario: &sc,
            seed: 4_303_646_935_004_610_148,
            graded: Err("not run".into()),
            known_failing: false,
        }];
        let doc = json(&rows, u64::MAX, &["client".into()]);
        assert_eq!(doc["seed"], "18446744073709551615");
        assert_eq!(doc["scenarios"][0]["seed"], "4303646935004610148");
    }
}
