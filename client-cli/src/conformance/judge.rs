//! Grading a client from the server's side: what its seat's calls in the
//! ledger say it did (and how its process ended), never its exit code
//! alone. A MUST broken is FAILED, a SHOULD missed NON-STRICT (Autobahn's
//! words), each with the ledger's evidence.

use std::collections::{HashMap, VecDeque};

use druids_contract::pb;
use druids_contract::pb::ledger_entry::Entry;

use crate::conformance::scenarios::{CLIENT_SEAT, Duty, Scenario};

/// A scenario's grade; the worst finding decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Ok,
    NonStrict,
    Failed,
}

impl Verdict {
    /// As printed and written: `OK`, `NON-STRICT`, `FAILED`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::NonStrict => "NON-STRICT",
            Verdict::Failed => "FAILED",
        }
    }
}

/// One thing the ledger shows, with how much it weighs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub verdict: Verdict,
    pub evidence: String,
}

/// How the client's process ended.
#[derive(Clone, Debug, Default)]
pub struct ClientEnd {
    /// Its exit code (None: killed by a signal).
    pub code: Option<i32>,
    /// Why the runner killed it, if it did.
    pub killed: Option<String>,
    /// Whether the game was over when it exited.
    pub game_over: bool,
    /// Whether the client's seat resigned.
    pub resigned: bool,
    /// The game's last seq then.
    pub last_seq: u64,
    /// Its last few non-empty lines on stderr ([`LastWords`]).
    pub last_words: Vec<String>,
}

/// The client's last non-empty lines on stderr, kept while it runs: enough
/// of them to show a traceback's exception line (Python's last line may be
/// a `^^^` marker), each clipped, all of them bounded.
#[derive(Clone, Debug, Default)]
pub struct LastWords(VecDeque<String>);

impl LastWords {
    /// Lines kept.
    pub const LINES: usize = 5;
    /// Characters kept of one line.
    pub const LINE_CHARS: usize = 200;
    /// Characters kept of all of them (the earliest lines go first).
    pub const TOTAL_CHARS: usize = 600;

    /// One more line from the client's stderr.
    pub fn hear(&mut self, line: &str) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            return;
        }
        let mut kept: String = line.chars().take(Self::LINE_CHARS).collect();
        if kept.len() < line.len() {
            kept.push('…');
        }
        if self.0.len() == Self::LINES {
            self.0.pop_front();
        }
        self.0.push_back(kept);
    }

    /// The lines kept, oldest first, at most [`Self::TOTAL_CHARS`] in all
    /// (the last line always).
    pub fn lines(mut self) -> Vec<String> {
        let total = |l: &VecDeque<String>| l.iter().map(|s| s.chars().count()).sum::<usize>();
        while self.0.len() > 1 && total(&self.0) > Self::TOTAL_CHARS {
            self.0.pop_front();
        }
        self.0.into()
    }
}

/// A retry earlier than RetryInfo asked by less than this is within the
/// clocks' rounding (ms truncated on both sides).
const ROUNDING_MS: u64 = 5;

/// Everything the run shows about the client, worst first.
pub fn judge(sc: &Scenario, entries: &[pb::LedgerEntry], end: &ClientEnd) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut found = |verdict, evidence: String| out.push(Finding { verdict, evidence });
    let mine: Vec<&pb::LedgerEntry> = entries
        .iter()
        .filter(|e| e.seat == Some(CLIENT_SEAT))
        .collect();
    let calls: Vec<(&pb::LedgerEntry, &pb::LedgerCall)> = mine
        .iter()
        .filter_map(|e| match &e.entry {
            Some(Entry::Call(c)) => Some((*e, c)),
            _ => None,
        })
        .collect();
    if let Some(why) = &end.killed {
        found(Verdict::Failed, format!("{why}{}", never_retried(&calls)));
    } else if !end.game_over {
        found(
            Verdict::Failed,
            format!(
                "exited (status {}) at seq {} while the game went on: its seat stalled{}{}",
                status(end.code),
                end.last_seq,
                never_retried(&calls),
                words(&end.last_words)
            ),
        );
    } else if end.code != Some(0) {
        found(
            Verdict::Failed,
            format!(
                "exited with status {} after the game{}",
                status(end.code),
                words(&end.last_words)
            ),
        );
    }
    // Every scenario grades a client playing its game to the end: a game
    // over by its resignation, or with none of its own actions (the clock
    // or the autopilot played for it), shows none of what is graded.
    if end.resigned {
        found(
            Verdict::Failed,
            "resigned instead of playing the game to its end (every scenario grades play)".into(),
        );
    } else if end.game_over
        && !calls
            .iter()
            .any(|(_, c)| c.method == "SubmitAction" && c.code == "OK")
    {
        found(
            Verdict::Failed,
            "played no action of its own: the game ended with every decision of its seat \
             taken by the server (turn clock, autopilot)"
                .into(),
        );
    }
    for f in submits(sc, &calls) {
        found(f.verdict, f.evidence);
    }
    for f in retries(&calls) {
        found(f.verdict, f.evidence);
    }
    for f in reconnects(&mine, &calls) {
        found(f.verdict, f.evidence);
    }
    let fired = mine
        .iter()
        .filter(|e| matches!(e.entry, Some(Entry::Fault(_))))
        .count();
    if fired < sc.faults.len() && end.game_over {
        found(
            Verdict::Ok,
            format!(
                "note: {} of the plan's {} faults fired (the client never reached the point)",
                fired,
                sc.faults.len()
            ),
        );
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.verdict));
    out
}

/// Why a stalled client stood still, when its last call says: a submission
/// refused for a while (UNAVAILABLE, RESOURCE_EXHAUSTED) and never sent again.
fn never_retried(calls: &[(&pb::LedgerEntry, &pb::LedgerCall)]) -> String {
    match calls.last() {
        Some((_, c))
            if c.method == "SubmitAction"
                && matches!(c.code.as_str(), "UNAVAILABLE" | "RESOURCE_EXHAUSTED") =>
        {
            let retry = c
                .retry_after_ms
                .map_or(String::new(), |ms| format!(" (RetryInfo: {ms} ms)"));
            format!(
                "; its last call, a SubmitAction answered {}{retry}, was never sent again",
                answer(c)
            )
        }
        _ => String::new(),
    }
}

fn status(code: Option<i32>) -> String {
    code.map_or("killed by a signal".into(), |c| c.to_string())
}

fn words(last: &[String]) -> String {
    if last.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = last.iter().map(|l| format!("{l:?}")).collect();
    format!("; its last words: {}", quoted.join(" / "))
}

fn answer(c: &pb::LedgerCall) -> String {
    if c.reason.is_empty() {
        c.code.clone()
    } else {
        format!("{} {}", c.code, c.reason)
    }
}

/// A key's digest as a finding names it.
fn shown(key: &str) -> &str {
    if key.is_empty() { "none" } else { key }
}

/// Decisions sent twice, lost answers retried with a new key or none,
/// refused stale answers sent again, illegal actions.
fn submits(sc: &Scenario, calls: &[(&pb::LedgerEntry, &pb::LedgerCall)]) -> Vec<Finding> {
    let mut out = Vec::new();
    // version -> (key applied there, its answer was lost)
    let mut applied: HashMap<u64, (String, bool)> = HashMap::new();
    let mut stale_keys: HashMap<String, u64> = HashMap::new();
    let mut twice = Vec::new();
    let mut resent = 0;
    let mut illegal: Vec<String> = Vec::new();
    let mut last_stream_from: Option<u64> = None;
    for (_, c) in calls {
        if c.method == "StreamEvents" {
            last_stream_from = c.from_seq;
            continue;
        }
        if c.method != "SubmitAction" {
            continue;
        }
        let version = c.expected_version;
        // Only the same key makes a second call a retry: two calls without
        // one are two decisions, as two with different keys are.
        if let Some(v) = version
            && let Some((key, lost)) = applied.get(&v)
            && (*key != c.key_digest || key.is_empty())
        {
            let (first, then) = (shown(key), shown(&c.key_digest));
            twice.push(if *lost {
                format!(
                    "retried a lost answer (version {v}) {} ({first} then {then}; answered {}): \
                     only expected_version kept it from being applied twice",
                    if c.key_digest.is_empty() {
                        "without an idempotency key"
                    } else {
                        "with a new idempotency key"
                    },
                    answer(c)
                )
            } else {
                let resumed = last_stream_from
                    .filter(|&f| f >= 1)
                    .map(|f| format!("resumed from seq {f} and "))
                    .unwrap_or_default();
                format!(
                    "{resumed}submitted its decision at version {v} twice (keys {first} and \
                     {then}; the second answered {})",
                    answer(c)
                )
            });
        }
        if let Some(n) = stale_keys.get_mut(&c.key_digest) {
            *n += 1;
            resent += 1;
        }
        let lost = c.fault.is_some_and(|f| sc.loses_answer(f));
        if let Some(v) = version
            && (c.code == "OK" || lost)
        {
            applied.entry(v).or_insert((c.key_digest.clone(), lost));
        }
        // STALE_VERSION, or DEADLINE_PASSED: the decision is over.
        if c.code == "ABORTED" && !c.key_digest.is_empty() {
            stale_keys.entry(c.key_digest.clone()).or_insert(0);
        }
        // Out of turn, without a clock that could have taken the turn
        // meanwhile, is sending what was never asked: graded with legality.
        let out_of_turn = c.reason == "NOT_YOUR_TURN" && sc.duty == Duty::Legal;
        if c.reason == "ILLEGAL_ACTION" || c.code == "INVALID_ARGUMENT" || out_of_turn {
            illegal.push(format!(
                "sent an action the server refused as {} at version {}",
                answer(c),
                version.map_or("?".into(), |v| v.to_string())
            ));
        }
    }
    // One finding, however many (a client in a loop sends thousands).
    if let Some(first) = illegal.first() {
        let verdict = if sc.duty == Duty::Legal {
            Verdict::Failed
        } else {
            Verdict::NonStrict
        };
        let more = match illegal.len() {
            1 => String::new(),
            n => format!(" ({n} refused actions in all)"),
        };
        out.push(Finding {
            verdict,
            evidence: format!("{first}{more}"),
        });
    }
    if let Some(first) = twice.first() {
        let more = if twice.len() > 1 {
            format!(" ({} decisions sent twice in all)", twice.len())
        } else {
            String::new()
        };
        out.push(Finding {
            verdict: Verdict::Failed,
            evidence: format!("{first}{more}"),
        });
    }
    if resent > 0 {
        out.push(Finding {
            verdict: Verdict::Failed,
            evidence: format!(
                "sent an answer refused as ABORTED (STALE_VERSION, DEADLINE_PASSED) again \
                 {resent} times with the same key: the decision was over (its clock ran out) \
                 and the client did not read the state again"
            ),
        });
    }
    out
}

/// Calls made again sooner than the RetryInfo of their refusal said.
fn retries(calls: &[(&pb::LedgerEntry, &pb::LedgerCall)]) -> Vec<Finding> {
    let mut early: Vec<(Verdict, String)> = Vec::new();
    for (i, (e, c)) in calls.iter().enumerate() {
        let Some(asked) = c.retry_after_ms else {
            continue;
        };
        let Some((next_e, next)) = calls[i + 1..].iter().find(|(_, n)| n.method == c.method) else {
            continue;
        };
        let sent = next_e.at_ms.saturating_sub(next.duration_ms);
        let gap = sent.saturating_sub(e.at_ms);
        if gap + ROUNDING_MS >= asked {
            continue;
        }
        let verdict = if gap * 2 < asked {
            Verdict::Failed
        } else {
            Verdict::NonStrict
        };
        early.push((
            verdict,
            format!(
                "retried {} after {gap} ms; RetryInfo said {asked} ms",
                c.method
            ),
        ));
    }
    let Some(worst) = early.iter().map(|(v, _)| *v).max() else {
        return vec![];
    };
    let (_, first) = early.iter().find(|(v, _)| *v == worst).expect("the worst");
    let more = if early.len() > 1 {
        format!(" ({} early retries in all)", early.len())
    } else {
        String::new()
    };
    vec![Finding {
        verdict: worst,
        evidence: format!("{first}{more}"),
    }]
}

/// Streams that ended under the client while its game went on: it must
/// open another, from where it was.
fn reconnects(
    mine: &[&pb::LedgerEntry],
    calls: &[(&pb::LedgerEntry, &pb::LedgerCall)],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in mine {
        let Some(Entry::StreamEnd(s)) = &e.entry else {
            continue;
        };
        // After a reset, or a GOAWAY that ended the connection, what was
        // sent just before may never have arrived: reading it again is
        // right then.
        let reset = s.why == "reset" || s.why == "goaway";
        if s.why != "fault" && !reset {
            continue;
        }
        let next = calls
            .iter()
            .find(|(c_e, c)| c_e.index > e.index && c.method == "StreamEvents");
        match next {
            None => out.push(Finding {
                verdict: Verdict::Failed,
                evidence: format!(
                    "never reconnected after its event stream ended at seq {}",
                    s.last_sent_seq
                ),
            }),
            Some((_, c)) => {
                let from = c.from_seq.unwrap_or(0);
                if from > s.last_sent_seq + 1 {
                    out.push(Finding {
                        verdict: Verdict::Failed,
                        evidence: format!(
                            "resumed from seq {from} though it had been sent only up to seq {} \
                             (skipped the events in between; resume from the last seq seen + 1)",
                            s.last_sent_seq
                        ),
                    });
                } else if !reset && from >= 1 && from <= s.last_sent_seq {
                    out.push(Finding {
                        verdict: Verdict::NonStrict,
                        evidence: format!(
                            "resumed from seq {from} though it had seen seq {} (read events \
                             it already had again)",
                            s.last_sent_seq
                        ),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(text: &str) -> Vec<String> {
        let mut w = LastWords::default();
        text.lines().for_each(|l| w.hear(l));
        w.lines()
    }

    #[test]
    fn last_words_show_a_tracebacks_exception_line() {
        let traceback = "starting\nTraceback (most recent call last):\n  File \"bot.py\", line 9, in <module>\n    main()\n\n  File \"bot.py\", line 5, in main\n    raise ValueError(\"boom\")\nValueError: boom\n";
        let lines = heard(traceback);
        assert_eq!(lines.len(), LastWords::LINES);
        assert_eq!(lines.last().map(String::as_str), Some("ValueError: boom"));
        // The five last non-empty lines: "Traceback" itself is one too many.
        assert_eq!(lines[0], "  File \"bot.py\", line 9, in <module>");
        let end = ClientEnd {
            code: Some(1),
            game_over: true,
            last_words: lines,
            ..Default::default()
        };
        let sc = crate::conformance::scenarios::all(crate::conformance::scenarios::Choice {
            kind: None,
            players: None,
        })
        .remove(0);
        let evidence = &judge(&sc, &[], &end)[0].evidence;
        assert!(
            evidence.ends_with(
                "its last words: \"  File \\\"bot.py\\\", line 9, in <module>\" / \
                 \"    main()\" / \"  File \\\"bot.py\\\", line 5, in main\" / \
                 \"    raise ValueError(\\\"boom\\\")\" / \"ValueError: boom\""
            ),
            "{evidence}"
        );
    }

    /// A stream its connection's end cut (a reset, or a GOAWAY leaving the
    /// call unprocessed) is resumed from the last seq sent + 1 at most:
    /// reading events again is right, skipping one is not.
    #[test]
    fn a_stream_cut_with_its_connection_is_resumed_without_a_gap() {
        for why in ["reset", "goaway", "fault"] {
            let end = pb::LedgerEntry {
                index: 1,
                entry: Some(Entry::StreamEnd(pb::LedgerStreamEnd {
                    last_sent_seq: 12,
                    why: why.to_owned(),
                    ..Default::default()
                })),
                ..Default::default()
            };
            let resumed = |from: u64| pb::LedgerCall {
                method: "StreamEvents".to_owned(),
                from_seq: Some(from),
                ..Default::default()
            };
            let at = pb::LedgerEntry {
                index: 2,
                ..Default::default()
            };
            let grade = |from: u64| {
                let call = resumed(from);
                reconnects(&[&end], &[(&at, &call)])
                    .into_iter()
                    .map(|f| f.verdict)
                    .max()
                    .unwrap_or(Verdict::Ok)
            };
            assert_eq!(grade(14), Verdict::Failed, "{why}: a gap");
            assert_eq!(grade(13), Verdict::Ok, "{why}");
            let again = if why == "fault" {
                Verdict::NonStrict
            } else {
                Verdict::Ok
            };
            assert_eq!(grade(11), again, "{why}: read again");
            assert_eq!(reconnects(&[&end], &[]).len(), 1, "{why}: never resumed");
        }
    }

    /// A client that stood still after a refused submission is told so.
    #[test]
    fn a_refused_submission_never_sent_again_is_named() {
        let refused = pb::LedgerCall {
            method: "SubmitAction".to_owned(),
            code: "UNAVAILABLE".to_owned(),
            reason: "STORAGE_UNAVAILABLE".to_owned(),
            retry_after_ms: Some(300),
            ..Default::default()
        };
        let at = pb::LedgerEntry::default();
        assert_eq!(
            never_retried(&[(&at, &refused)]),
            "; its last call, a SubmitAction answered UNAVAILABLE STORAGE_UNAVAILABLE \
             (RetryInfo: 300 ms), was never sent again"
        );
        let ok = pb::LedgerCall {
            code: "OK".to_owned(),
            ..refused.clone()
        };
        assert_eq!(never_retried(&[(&at, &refused), (&at, &ok)]), "");
        assert_eq!(never_retried(&[]), "");
    }

    #[test]
    fn last_words_are_clipped_and_bounded() {
        let long = "x".repeat(1000);
        let lines = heard(&format!("{long}\n{long}\n{long}\n{long}\nthe end"));
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() <= LastWords::LINE_CHARS + 1)
        );
        let total: usize = lines.iter().map(|l| l.chars().count()).sum();
        assert!(total <= LastWords::TOTAL_CHARS, "{total}");
        assert_eq!(lines.last().map(String::as_str), Some("the end"));
        assert!(heard("\n  \n").is_empty());
    }
}
