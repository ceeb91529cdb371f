//! A person at the terminal choosing actions (`druids play`): the board, the
//! legal actions as a menu grouped by target ([`crate::seat::menu`]), and,
//! for an action that is paid for (Meduris), a further question: how to pay.
//!
//! No key both quits and chooses: every letter is a choice, and leaving is
//! the word `quit` or the end of input (Ctrl-D), as the prompt says, at a
//! prompt or while another seat decides ([`crate::seat::keyboard`]). A seat
//! left alone is played by the game's turn clock, which the person is told.

use druids_contract::pb;

use crate::connect::{CliError, Client, authed};
use crate::output::{self, Style};
use crate::render;
use crate::render::time::now_ms;
use crate::seat::choice::{Choice, Chooser, choice_of};
use crate::seat::keyboard::{Line, Prompted, QUIT};
use crate::seat::menu::{self, label, parse_label};

/// Largest page of `GetLegalActions` the contract allows.
const PAGE_SIZE: u32 = 1000;

/// A person at the terminal.
pub struct HumanChooser {
    /// For the second question (payments): its own handle on the connection.
    client: Client,
    game_id: String,
    token: String,
    style: Style,
    keys: Prompted,
}

impl HumanChooser {
    /// A person playing `token`'s seat of `game_id`, typing on `keys`.
    pub fn new(
        client: Client,
        game_id: &str,
        token: &str,
        style: Style,
        keys: Prompted,
    ) -> HumanChooser {
        HumanChooser {
            client,
            game_id: game_id.to_owned(),
            token: token.to_owned(),
            style,
            keys,
        }
    }

    /// Asks until one of `n` labels is typed; `None`: the person leaves
    /// (`quit` or the end of input).
    async fn ask(&mut self, n: usize) -> Result<Option<usize>, CliError> {
        loop {
            output::text(prompt(n))?;
            let line = match self.keys.next().await {
                Line::End => {
                    output::line("")?;
                    return Ok(None);
                }
                line if line.leaves() => return Ok(None),
                Line::Text(line) => line,
            };
            match parse_label(&line, n) {
                Some(i) => return Ok(Some(i)),
                None => output::line(format!(
                    "please type one of the letters a to {} (or {QUIT} to leave)",
                    label(n - 1)
                ))?,
            }
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

/// The prompt for one of `n` choices.
pub fn prompt(n: usize) -> String {
    format!(
        "your choice (a-{}; {QUIT} or Ctrl-D to leave): ",
        label(n - 1)
    )
}

/// What happens to a seat its person leaves, in words.
pub fn leaving(state: &pb::StateView) -> String {
    match state.deadline_unix_ms {
        Some(deadline) => format!(
            "you left the game. Its turn clock plays your seat: in {} s the default action is \
             taken for you, and so at every decision until you come back (`druids play` with the \
             same --game-id and --token); after a few timeouts in a row the autopilot plays it \
             at once.",
            deadline.saturating_sub(now_ms()).div_ceil(1000)
        ),
        None => "you left the game. It has no turn clock, so it waits for your seat: come back \
                 with `druids play` and the same --game-id and --token."
            .into(),
    }
}

impl Chooser for HumanChooser {
    const NEEDS_STATE: bool = true;

    fn deciding(&mut self, now: bool) {
        self.keys.set_deciding(now);
    }

    async fn choose(
        &mut self,
        state: &pb::StateView,
        version: u64,
        legal: &[pb::LegalAction],
    ) -> Result<Option<Choice>, CliError> {
        output::text(render::state(state, self.style))?;
        output::line(render::choices_heading(state))?;
        let menu = menu::menu(legal);
        if let Some(heading) = &menu.heading {
            output::line(heading)?;
        }
        let groups = menu.groups;
        let texts: Vec<String> = groups.iter().map(|g| g.text.clone()).collect();
        for line in menu::layout(&texts) {
            output::line(line)?;
        }
        let Some(g) = self.ask(groups.len()).await? else {
            output::line(leaving(state))?;
            return Ok(None);
        };
        let i = match groups[g].members.as_slice() {
            [i] => *i,
            members => {
                output::line(format!("{}:", groups[g].text))?;
                for (k, &m) in members.iter().enumerate() {
                    output::line(format!("  [{}] {}", label(k), legal[m].description))?;
                }
                let Some(k) = self.ask(members.len()).await? else {
                    output::line(leaving(state))?;
                    return Ok(None);
                };
                members[k]
            }
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
        let Some(k) = self.ask(payments.len()).await? else {
            output::line(leaving(state))?;
            return Ok(None);
        };
        // Entries of the full list may have no id: submit the action itself.
        Ok(Some(Choice::Action(
            payments[k].action.clone().unwrap_or_default(),
        )))
    }
}
