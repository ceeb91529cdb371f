//! A person at the terminal choosing actions (`druids play`): the board, the
//! legal actions labelled `[a]`, `[b]`, … (letters, so that a choice is never
//! mistaken for a field or site number), and, for an action that is paid for
//! (Meduris), a second question: how to pay.

use std::io::BufRead;

use druids_contract::pb;

use crate::choice::{Choice, Chooser, choice_of};
use crate::connect::{CliError, Client, authed};
use crate::output::{self, Style};
use crate::render;

/// Largest page of `GetLegalActions` the contract allows.
const PAGE_SIZE: u32 = 1000;

/// The label of choice `i`: `a` … `z`, then `aa`, `ab`, … (as spreadsheet
/// columns), so any number of choices gets a short label of letters only.
pub fn label(i: usize) -> String {
    let mut n = i + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII letters")
}

/// The choice a label names, if it is one of `n`.
pub fn parse_label(s: &str, n: usize) -> Option<usize> {
    let s = s.trim().to_ascii_lowercase();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_lowercase()) || s.len() > 4 {
        return None;
    }
    let i = s
        .bytes()
        .fold(0usize, |acc, b| acc * 26 + (b - b'a') as usize + 1)
        - 1;
    (i < n).then_some(i)
}

/// A person at the terminal.
pub struct HumanChooser {
    /// For the second question (payments): its own handle on the connection.
    client: Client,
    game_id: String,
    token: String,
    style: Style,
}

impl HumanChooser {
    /// A person playing `token`'s seat of `game_id`.
    pub fn new(client: Client, game_id: &str, token: &str, style: Style) -> HumanChooser {
        HumanChooser {
            client,
            game_id: game_id.to_owned(),
            token: token.to_owned(),
            style,
        }
    }

    /// Every legal action of `version` with every distinct payment, page by
    /// page.
    async fn all_payments(&mut self) -> Result<(u64, Vec<pb::LegalAction>), CliError> {
        let mut all = Vec::new();
        let mut page_token = String::new();
        loop {
            let page = self
                .client
                .get_legal_actions(authed(
                    Some(&self.token),
                    pb::GetLegalActionsRequest {
                        game_id: self.game_id.clone(),
                        all_payments: true,
                        page_size: PAGE_SIZE,
                        page_token,
                    },
                )?)
                .await?
                .into_inner();
            all.extend(page.actions);
            if page.next_page_token.is_empty() {
                return Ok((page.version, all));
            }
            page_token = page.next_page_token;
        }
    }

    /// How to pay for `chosen`: the distinct payments for its target, or
    /// `None` when there is nothing to choose (one way only, or the list
    /// moved on to another version).
    async fn payments(
        &mut self,
        version: u64,
        chosen: &pb::LegalAction,
    ) -> Result<Option<Vec<pb::LegalAction>>, CliError> {
        let Some(target) = chosen.action.as_ref().and_then(render::payment_target) else {
            return Ok(None);
        };
        let (listed_version, all) = self.all_payments().await?;
        if listed_version != version {
            return Ok(None);
        }
        let mut same: Vec<pb::LegalAction> = Vec::new();
        for la in all {
            let same_target =
                la.action.as_ref().and_then(render::payment_target) == Some(target.clone());
            if same_target && !same.iter().any(|s| s.action == la.action) {
                same.push(la);
            }
        }
        Ok((same.len() > 1).then_some(same))
    }
}

/// Asks until one of `n` labels (or `q`) is typed; `None`: quit (or stdin ended).
async fn ask(n: usize) -> Result<Option<usize>, CliError> {
    tokio::task::spawn_blocking(move || {
        let stdin = std::io::stdin();
        let last = label(n - 1);
        loop {
            output::text(format!("your choice (a-{last}, q to quit): "))?;
            let mut line = String::new();
            if stdin.lock().read_line(&mut line)? == 0 {
                return Ok(None);
            }
            if line.trim() == "q" {
                return Ok(None);
            }
            match parse_label(&line, n) {
                Some(i) => return Ok(Some(i)),
                None => output::line(format!(
                    "please type one of the letters a to {last} (or q to quit)"
                ))?,
            }
        }
    })
    .await?
}

impl Chooser for HumanChooser {
    const NEEDS_STATE: bool = true;

    async fn choose(
        &mut self,
        state: &pb::StateView,
        version: u64,
        legal: &[pb::LegalAction],
    ) -> Result<Option<Choice>, CliError> {
        output::text(render::state(state, self.style))?;
        output::line(render::choices_heading(state))?;
        for (i, a) in legal.iter().enumerate() {
            output::line(format!("  [{}] {}", label(i), a.description))?;
        }
        let Some(i) = ask(legal.len()).await? else {
            return Ok(None);
        };
        let Some(payments) = self.payments(version, &legal[i]).await? else {
            return Ok(Some(choice_of(legal, i)));
        };
        output::line("how do you pay?")?;
        for (k, p) in payments.iter().enumerate() {
            let default = if p.action == legal[i].action {
                "  (the default)"
            } else {
                ""
            };
            output::line(format!("  [{}] {}{default}", label(k), p.description))?;
        }
        let Some(k) = ask(payments.len()).await? else {
            return Ok(None);
        };
        // Entries of the full list may have no id: submit the action itself.
        Ok(Some(Choice::Action(
            payments[k].action.clone().unwrap_or_default(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_letters_and_parse_back() {
        assert_eq!(label(0), "a");
        assert_eq!(label(25), "z");
        assert_eq!(label(26), "aa");
        assert_eq!(label(27), "ab");
        assert_eq!(label(26 + 26 * 26), "aaa");
        for i in 0..800 {
            assert_eq!(parse_label(&label(i), 800), Some(i), "{i}");
        }
        assert_eq!(parse_label("c", 2), None);
        assert_eq!(parse_label("12", 40), None, "numbers are not choices");
        assert_eq!(parse_label(" B\n", 3), Some(1));
        assert_eq!(parse_label("", 3), None);
    }
}
