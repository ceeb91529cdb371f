//! What the program printed, and what the bridge does about it: an answer
//! is checked against the legal actions and submitted (or rejected with a
//! reason, and asked again); log lines are passed through and flooding is
//! limited; a program that exits or keeps answering nonsense is restarted
//! after a growing pause.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::submit_action_request::Choice as SubmitChoice;
use tokio::time::Instant;
use tonic::Code;

use super::child::{Child, Output, OutputKind};
use super::protocol::{self, Answer, AnswerError, BotLine, Choice};
use super::session::{
    Bridge, BridgeError, FullList, MAX_LOG_LINES, REPORTED_UNSOLICITED, RESTART_BASE, request,
};
use crate::render::time::now_ms;
use crate::retry::{code_name, patiently};

/// Bot failures in a row (exits, or too many unusable answers) without one
/// valid answer in between, after which the bridge gives up: the bot is
/// broken, and the seat's clock plays on without it.
const MAX_BOT_FAILURES: u32 = 10;

/// Longest delay before restarting a bot.
const RESTART_MAX: Duration = Duration::from_secs(10);

/// Unusable answers to one decision after which the bot is restarted (it is
/// evidently lost; a fresh process gets the state from scratch).
const MAX_BAD_ANSWERS: u32 = 10;

impl Bridge {
    pub(super) async fn on_output(&mut self, out: Output) -> Result<(), BridgeError> {
        if self.child.as_ref().map(|c| c.generation) != Some(out.generation) {
            return Ok(()); // Left over from a bot that was replaced.
        }
        match out.kind {
            OutputKind::Line(line) => match protocol::parse_line(&line) {
                BotLine::Blank => {}
                BotLine::Log(text) => {
                    self.window.logs += 1;
                    if self.window.logs <= MAX_LOG_LINES {
                        eprintln!("{} {text}", self.label());
                    }
                }
                BotLine::Answer(a) => self.on_answer(a, &line).await?,
            },
            OutputKind::TooLong(n) => {
                let a = Answer {
                    choice: Err(AnswerError::TooLong(n)),
                    version: None,
                };
                self.on_answer(a, &format!("(a line of {n} bytes)")).await?;
            }
            OutputKind::Exited(status) => {
                let how = match status {
                    Some(s) => format!("exited ({s})"),
                    None => "exited".to_owned(),
                };
                self.bot_failed(&how)?;
            }
        }
        Ok(())
    }

    /// One answer line of the bot.
    async fn on_answer(&mut self, a: Answer, line: &str) -> Result<(), BridgeError> {
        if let Some(v) = a.version {
            // An answer that names its version settles the questions before
            // it (the bot skipped them) and belongs to no later one: a second
            // answer to an old question never takes a newer question's place.
            while self.outstanding.front().is_some_and(|&f| f < v) {
                self.outstanding.pop_front();
            }
            if self.outstanding.front() != Some(&v) {
                self.unsolicited(line);
                return Ok(());
            }
        }
        let Some(asked) = self.outstanding.pop_front() else {
            self.unsolicited(line);
            return Ok(());
        };
        if self.pending.as_ref().map(|p| p.version) != Some(asked) {
            eprintln!(
                "bridge: late answer to the decision of version {asked} discarded (the clock decided it, or the game moved on): {}",
                short(line)
            );
            return Ok(());
        }
        let choice = match a.choice {
            Err(e) => Err(e.to_string()),
            Ok(Choice::Id(n)) => {
                let p = self.pending.as_ref().expect("checked above");
                if p.actions.iter().any(|la| la.id == Some(n)) {
                    Ok(SubmitChoice::LegalActionId(n))
                } else {
                    Err(format!(
                        "id {n} is not a legal action id of this decision (ids 0 to {})",
                        p.actions.len().saturating_sub(1)
                    ))
                }
            }
            Ok(Choice::Action(action)) => {
                let p = self.pending.as_ref().expect("checked above");
                let listed = p
                    .actions
                    .iter()
                    .find(|la| la.action.as_ref() == Some(&action))
                    .and_then(|la| la.id);
                match listed {
                    Some(id) => Ok(SubmitChoice::LegalActionId(id)),
                    None => match self.in_full_list(&action, asked).await? {
                        FullList::Legal => Ok(SubmitChoice::Action(action)),
                        FullList::Illegal => Err(format!(
                            "the action is not legal now (not among the legal actions of version {asked}, all payments included)"
                        )),
                        FullList::Moved => {
                            self.pending = None;
                            return self.refresh().await;
                        }
                    },
                }
            }
        };
        match choice {
            Ok(c) => self.submit(c).await,
            Err(problem) => self.reject(asked, &problem),
        }
    }

    /// A line that answers no question: dropped, the first few with a warning.
    fn unsolicited(&mut self, line: &str) {
        self.window.unsolicited += 1;
        if self.window.unsolicited <= REPORTED_UNSOLICITED {
            eprintln!(
                "bridge: dropped a line of the bot that answers no pending question: {}",
                short(line)
            );
        }
    }

    /// Whether `action` is in the full legal list of version `version`.
    async fn in_full_list(
        &self,
        action: &pb::Action,
        version: u64,
    ) -> Result<FullList, BridgeError> {
        Ok(match self.legal(true).await? {
            Some(l) if l.version == version => {
                if l.actions
                    .iter()
                    .any(|la| la.action.as_ref() == Some(action))
                {
                    FullList::Legal
                } else {
                    FullList::Illegal
                }
            }
            _ => FullList::Moved,
        })
    }

    /// The bot's answer to `version` cannot be used: say why, and ask again
    /// while time remains.
    fn reject(&mut self, version: u64, problem: &str) -> Result<(), BridgeError> {
        eprintln!(
            "bridge: the bot's answer to the decision of version {version} is unusable: {problem}"
        );
        self.tell(&protocol::rejected(&self.game_id, version, problem));
        let Some(p) = &mut self.pending else {
            return Ok(());
        };
        p.bad_answers += 1;
        if p.bad_answers >= MAX_BAD_ANSWERS {
            return self.bot_failed(&format!(
                "gave {MAX_BAD_ANSWERS} unusable answers to one decision"
            ));
        }
        if p.deadline_unix_ms.is_some_and(|d| now_ms() >= d) {
            eprintln!("bridge: no time left to ask again; the turn clock decides");
            return Ok(());
        }
        eprintln!("bridge: asking the bot again");
        self.ask();
        Ok(())
    }

    /// Submits the bot's valid choice for the pending decision.
    async fn submit(&mut self, choice: SubmitChoice) -> Result<(), BridgeError> {
        let version = self
            .pending
            .as_ref()
            .expect("a decision is pending")
            .version;
        self.submissions += 1;
        let req = pb::SubmitActionRequest {
            game_id: self.game_id.clone(),
            choice: Some(choice),
            expected_version: Some(version),
            idempotency_key: format!(
                "bridge-{}-s{}-v{version}-{}",
                self.run_id, self.seat, self.submissions
            ),
        };
        let token = &self.token;
        let result = patiently("bridge", || {
            let mut c = self.client.clone();
            let req = request(token, req.clone());
            async move { c.submit_action(req).await }
        })
        .await;
        self.pending = None;
        match result {
            Ok(_) => {
                self.summary.actions += 1;
                self.failures = 0;
                Ok(())
            }
            // The clock ran out just before, or the game ended: never
            // submitted again; the server says what is pending now.
            Err(s) if matches!(s.code(), Code::Aborted | Code::FailedPrecondition) => {
                eprintln!(
                    "bridge: the server refused the answer to version {version} ({}: {}); reading the game again",
                    code_name(s.code()),
                    s.message()
                );
                self.refresh().await
            }
            Err(s) => Err(s.into()),
        }
    }

    /// The bot is gone (or is being replaced): restart it after a pause that
    /// doubles with each failure in a row.
    pub(super) fn bot_failed(&mut self, how: &str) -> Result<(), BridgeError> {
        // Dropping the child kills it if it still runs.
        self.child = None;
        self.outstanding.clear();
        self.failures += 1;
        if self.failures >= MAX_BOT_FAILURES {
            return Err(BridgeError::GaveUp(self.failures));
        }
        let delay = RESTART_BASE
            .saturating_mul(1 << (self.failures - 1).min(16))
            .min(RESTART_MAX);
        eprintln!(
            "bridge: the bot {how}; restarting it in {} ms (meanwhile the seat's turn clock, if the game has one, decides for it)",
            delay.as_millis()
        );
        self.restart_at = Some(Instant::now() + delay);
        Ok(())
    }

    /// Starts a new bot and gives it the game as it is now.
    pub(super) async fn restart(&mut self) -> Result<(), BridgeError> {
        self.restart_at = None;
        self.generation += 1;
        self.summary.restarts += 1;
        match Child::spawn(
            &self.argv,
            self.generation,
            self.out_tx.clone(),
            self.label(),
        ) {
            Ok(c) => {
                self.child = Some(c);
                let state = self.state().await?;
                self.greet(&state);
                Ok(())
            }
            Err(e) => self.bot_failed(&format!("could not be started ({e})")),
        }
    }
}

/// At most 80 bytes of a bot's line, for messages.
fn short(line: &str) -> String {
    if line.len() <= 80 {
        return line.to_owned();
    }
    format!("{}…", &line[..line.floor_char_boundary(80)])
}
