//! The scenarios of `druids conformance`: what game each one sets up, which
//! fault plan it attaches to the client's seat, and which duty it grades.
//! Fixed and named, so that `--only NAME` reruns exactly one of them and a
//! `--known-failing` list keeps meaning the same cases from run to run.

use druids_contract::{Kind, pb};

/// The seat the client under test plays in every scenario.
pub const CLIENT_SEAT: u32 = 0;

/// What a scenario grades besides the duties every scenario checks (the
/// game finished, nothing applied twice, the client exited once it ended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duty {
    /// A whole game, nothing more.
    Play,
    /// Reconnecting after an event stream ended, and resuming where it was.
    Reconnect,
    /// Waiting as long as `google.rpc.RetryInfo` says before a retry.
    RetryInfo,
    /// A lost answer retried with the same idempotency key.
    SameKey,
    /// A decision overtaken by the clock: read the state again, play on.
    Timeout,
    /// Only legal actions sent.
    Legal,
}

/// One graded case.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Its stable name, e.g. `stream/unavailable/after-seq-10`.
    pub name: String,
    /// What it sets up, in words (for `--list`).
    pub about: String,
    pub kind: Kind,
    pub players: u32,
    /// The faults, all on [`CLIENT_SEAT`].
    pub faults: Vec<pb::fault::Kind>,
    /// The game's options (a turn clock, a chance script).
    pub options: Option<pb::GameOptions>,
    pub duty: Duty,
    /// Start the game at the client's last decision of a game the runner
    /// played first (so that the game ends while the client waits).
    pub near_end: bool,
}

/// Which game the fault scenarios use, and which whole games are played.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    /// Only this game (else every game, faults on the first).
    pub kind: Option<Kind>,
    /// Only this many players (else every count, faults with the fewest).
    pub players: Option<u32>,
}

/// The turn clock of the clock scenario and the hold that overruns it.
const DECISION_MS: u32 = 1_500;
const HOLD_PAST_DEADLINE_MS: u32 = 2_500;
/// The delay RetryInfo asks for in the refusal scenarios.
const RETRY_AFTER_MS: u32 = 400;

/// Every scenario for `choice`, in a fixed order.
pub fn all(choice: Choice) -> Vec<Scenario> {
    let kinds: Vec<Kind> = match choice.kind {
        Some(k) => vec![k],
        None => Kind::all().collect(),
    };
    let mut out = Vec::new();
    for &kind in &kinds {
        let d = kind.descriptor();
        for players in d.players() {
            let players = players as u32;
            if choice.players.is_some_and(|p| p != players) {
                continue;
            }
            out.push(scenario(
                format!("game/{kind}/{players}"),
                format!("a whole game of {} for {players}", d.display_name()),
                (kind, players),
                vec![],
                Duty::Play,
            ));
        }
    }
    let kind = kinds[0];
    let players = choice
        .players
        .unwrap_or(kind.descriptor().min_players() as u32);
    let at = (kind, players);
    let end_at = |point, how: pb::StreamEnd| {
        pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint { point: Some(point) }),
            how: how as i32,
        })
    };
    let end = |after_seq, how| end_at(pb::stream_point::Point::AfterSeq(after_seq), how);
    // The stream cut at its first event, early and mid-game.
    for (how, name) in [
        (pb::StreamEnd::Unavailable, "unavailable"),
        (pb::StreamEnd::Clean, "clean"),
    ] {
        for seq in [1, 12, 40] {
            out.push(scenario(
                format!("stream/{name}/after-seq-{seq}"),
                format!("the event stream ends ({name}) after seq {seq}"),
                at,
                vec![end(seq, how)],
                Duty::Reconnect,
            ));
        }
    }
    // The stream cut just before the client's decision, and just after its
    // submit (counted over the game's log, so the same point on every run).
    out.push(scenario(
        "stream/unavailable/before-decision-3".into(),
        "the event stream ends (unavailable) right before the client's 3rd DecisionNeeded".into(),
        at,
        vec![end_at(
            pb::stream_point::Point::BeforeDecision(3),
            pb::StreamEnd::Unavailable,
        )],
        Duty::Reconnect,
    ));
    out.push(scenario(
        "stream/unavailable/after-submit-3".into(),
        "the event stream ends (unavailable) right after the event of the client's 3rd \
         applied SubmitAction"
            .into(),
        at,
        vec![end_at(
            pb::stream_point::Point::AfterSubmit(3),
            pb::StreamEnd::Unavailable,
        )],
        Duty::Reconnect,
    ));
    // No status at all: the connection under the stream is reset (TCP RST).
    out.push(scenario(
        "stream/reset/after-seq-12".into(),
        "the connection under the event stream is reset (no gRPC status) after seq 12".into(),
        at,
        vec![end(12, pb::StreamEnd::Reset)],
        Duty::Reconnect,
    ));
    // The server goes away from the client's connection: GOAWAY, then the
    // stream ends UNAVAILABLE; the client must go on over a new connection.
    out.push(scenario(
        "goaway/after-seq-12".into(),
        "the server sends GOAWAY on the client's connection after seq 12 and ends the event \
         stream with UNAVAILABLE"
            .into(),
        at,
        vec![end(12, pb::StreamEnd::Goaway)],
        Duty::Reconnect,
    ));
    // GOAWAY with a low last stream id: every call open on the connection,
    // the stream among them, is reported not processed.
    out.push(scenario(
        "goaway/unprocessed/after-seq-12".into(),
        "the server sends GOAWAY after seq 12 with a last stream id below every call open on \
         the client's connection (the event stream among them), and closes the connection"
            .into(),
        at,
        vec![end(12, pb::StreamEnd::GoawayUnprocessed)],
        Duty::Reconnect,
    ));
    out.push(scenario(
        "restart/after-seq-12".into(),
        format!(
            "the server restarts after seq 12 (durable store): every stream ends UNAVAILABLE, \
             every call is refused for {RETRY_AFTER_MS} ms (RetryInfo), then the game goes on"
        ),
        at,
        vec![pb::fault::Kind::Restart(pb::RestartFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::AfterSeq(12)),
            }),
            down_ms: RETRY_AFTER_MS,
        })],
        Duty::Reconnect,
    ));
    for nth in [1, 4] {
        out.push(scenario(
            format!("submit/refused/{}", ordinal(nth)),
            format!(
                "the {} SubmitAction: UNAVAILABLE, RetryInfo {RETRY_AFTER_MS} ms, not applied",
                ordinal(nth)
            ),
            at,
            vec![pb::fault::Kind::RefuseSubmit(pb::RefuseSubmitFault {
                nth,
                retry_after_ms: RETRY_AFTER_MS,
            })],
            Duty::RetryInfo,
        ));
        out.push(scenario(
            format!("submit/lost/{}", ordinal(nth)),
            format!(
                "the {} SubmitAction is applied and its answer lost",
                ordinal(nth)
            ),
            at,
            vec![pb::fault::Kind::LoseAnswer(pb::LoseAnswerFault { nth })],
            Duty::SameKey,
        ));
    }
    out.push(scenario(
        "submit/held/2nd".into(),
        "the 2nd SubmitAction is answered 300 ms late".into(),
        at,
        vec![pb::fault::Kind::HoldAnswer(pb::HoldAnswerFault {
            nth: 2,
            hold_ms: 300,
        })],
        Duty::Play,
    ));
    // A client may call GetState and StreamEvents only once: their 1st call.
    for (method, name, nth) in [
        (pb::FaultMethod::SubmitAction, "SubmitAction", 2),
        (pb::FaultMethod::GetLegalActions, "GetLegalActions", 2),
        (pb::FaultMethod::GetState, "GetState", 1),
        (pb::FaultMethod::StreamEvents, "StreamEvents", 1),
    ] {
        out.push(scenario(
            format!("exhausted/{}", kebab(name)),
            format!(
                "the {} call of {name}: RESOURCE_EXHAUSTED, RetryInfo {RETRY_AFTER_MS} ms",
                ordinal(nth)
            ),
            at,
            vec![pb::fault::Kind::Exhaust(pb::ExhaustFault {
                method: method as i32,
                nth,
                retry_after_ms: RETRY_AFTER_MS,
            })],
            Duty::RetryInfo,
        ));
    }
    let mut clock = scenario(
        "clock/answer-after-deadline".into(),
        format!(
            "a {DECISION_MS} ms turn clock; the 2nd SubmitAction is held {HOLD_PAST_DEADLINE_MS} ms, \
             so the clock's default lands first (TimedOut, then ABORTED, DEADLINE_PASSED)"
        ),
        at,
        vec![pb::fault::Kind::HoldAnswer(pb::HoldAnswerFault {
            nth: 2,
            hold_ms: HOLD_PAST_DEADLINE_MS,
        })],
        Duty::Timeout,
    );
    clock.options = Some(pb::GameOptions {
        decision_ms: Some(DECISION_MS),
        ..Default::default()
    });
    out.push(clock);
    if let Some(dice) = Kind::all().find(|k| k.descriptor().dice_driven()) {
        let players = dice.descriptor().min_players() as u32;
        let mut chance = scenario(
            format!("chance/{dice}/scripted"),
            "scripted draws: the seed's set-up, then the rarest roll (\"-1\") on every turn".into(),
            (dice, players),
            vec![],
            Duty::Play,
        );
        // -1 keeps the seed's own draw (the set-up); 5 is Meduris's "-1" face.
        let mut script = vec![-1; 14];
        script.extend(std::iter::repeat_n(5, 60));
        chance.options = Some(pb::GameOptions {
            chance_script: script,
            ..Default::default()
        });
        if choice.kind.is_none_or(|k| k == dice) {
            out.push(chance);
        }
    }
    out.push(scenario(
        "illegal/refused".into(),
        "a whole game in which an illegal action would be refused (FAILED_PRECONDITION \
         ILLEGAL_ACTION): sending one fails here"
            .into(),
        at,
        vec![],
        Duty::Legal,
    ));
    out.push(Scenario {
        near_end: true,
        ..scenario(
            "end/while-waiting".into(),
            "the game starts at the client's last decision of a finished game; the other \
             seats end it while the client waits (it must see GameFinished and exit)"
                .into(),
            at,
            vec![],
            Duty::Play,
        )
    });
    out
}

fn scenario(
    name: String,
    about: String,
    (kind, players): (Kind, u32),
    faults: Vec<pb::fault::Kind>,
    duty: Duty,
) -> Scenario {
    Scenario {
        name,
        about,
        kind,
        players,
        faults,
        options: None,
        duty,
        near_end: false,
    }
}

/// `GetLegalActions` as `get-legal-actions`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn ordinal(n: u32) -> String {
    match n {
        1 => "1st".into(),
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

impl Scenario {
    /// The plan attached to the scenario's game.
    pub fn plan(&self) -> pb::FaultPlan {
        pb::FaultPlan {
            faults: self
                .faults
                .iter()
                .map(|k| pb::Fault {
                    seat: CLIENT_SEAT,
                    kind: Some(*k),
                })
                .collect(),
        }
    }

    /// Whether the plan's fault `index` loses an applied answer.
    pub fn loses_answer(&self, index: u32) -> bool {
        matches!(
            self.faults.get(index as usize),
            Some(pb::fault::Kind::LoseAnswer(_))
        )
    }
}

/// Whether `name` is selected by `pattern`: a glob (`*` any characters),
/// or a name or a leading part of one up to a `/` (`stream` selects
/// `stream/clean/after-seq-1`).
pub fn matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        let p = pattern.trim_end_matches('/');
        return name == p || name.starts_with(&format!("{p}/"));
    }
    glob(pattern.as_bytes(), name.as_bytes())
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        Some((c, rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_patterns_select_them() {
        let all = all(Choice {
            kind: None,
            players: None,
        });
        let mut names: Vec<_> = all.iter().map(|s| s.name.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert!(matches("stream", "stream/clean/after-seq-1"));
        assert!(!matches("stream/clean", "stream/cleaner"));
        assert!(matches("*/lost/*", "submit/lost/1st"));
        assert!(matches("game/dolmen/3", "game/dolmen/3"));
        assert!(!matches("game/dolmen/3", "game/dolmen/33"));
    }
}
