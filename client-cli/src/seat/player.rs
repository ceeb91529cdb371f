//! The loop that plays one seat: it follows the game's events and, when the
//! seat must decide, reads the legal actions (and the state, for a chooser
//! that needs it), asks the [`Chooser`] and submits its choice with an
//! idempotency key.

use druids_contract::pb;
use druids_contract::pb::game_event::Body;
use tonic::Code;

use crate::connect::{CliError, Client, authed};
use crate::output::outln;
use crate::output::{self, Style};
use crate::render;
use crate::retry::patiently;
use crate::seat::choice::{Choice, Chooser};
use crate::seat::follow::{AsyncEventFn, follow, get_state};

/// What a seat saw when its game ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatResult {
    /// The seat played.
    pub seat: u32,
    /// The outcome, if the game finished (not abandoned).
    pub outcome: Option<pb::Outcome>,
    /// Actions this seat submitted that the server applied.
    pub actions: u64,
    /// Times the seat's program was restarted (a program behind the bridge).
    pub restarts: u32,
}

struct SeatPlayer<'a, C> {
    game_id: &'a str,
    token: &'a str,
    seat: u32,
    chooser: C,
    /// Some: print every event (a person playing) in this style.
    verbose: Option<Style>,
    result: SeatResult,
    seats: Vec<pb::SeatInfo>,
    quit: bool,
}

impl<C: Chooser> SeatPlayer<'_, C> {
    /// The game ended with `outcome`: kept, and shown when verbose.
    fn finished(&mut self, outcome: Option<pb::Outcome>) -> Result<(), CliError> {
        if self.verbose.is_some() {
            let shown = outcome.clone().unwrap_or_default();
            output::text(render::ranking(&shown, &self.seats, Some(self.seat)))?;
        }
        self.result.outcome = outcome;
        Ok(())
    }

    /// Decides once if it is this seat's decision: legal actions, choose, submit.
    async fn decide(&mut self, client: &mut Client) -> Result<(), CliError> {
        self.chooser.deciding(true);
        let decided = self.decide_now(client).await;
        self.chooser.deciding(false);
        decided
    }

    async fn decide_now(&mut self, client: &mut Client) -> Result<(), CliError> {
        let legal_request = || {
            authed(
                Some(self.token),
                pb::GetLegalActionsRequest {
                    game_id: self.game_id.to_owned(),
                    ..Default::default()
                },
            )
        };
        legal_request()?;
        let legal = patiently("", || {
            let mut client = client.clone();
            let req = legal_request().expect("checked above");
            async move { client.get_legal_actions(req).await }
        })
        .await?;
        if legal.actions.is_empty() {
            return Ok(()); // Not (or no longer) this seat's decision.
        }
        let state = if self.verbose.is_some() || C::NEEDS_STATE {
            let state = get_state(client, self.game_id, Some(self.token)).await?;
            if state.version != legal.version {
                // The game moved on between the two calls (a clock ran out):
                // the stream will say who decides next.
                return Ok(());
            }
            state
        } else {
            pb::StateView::default()
        };
        let Some(choice) = self
            .chooser
            .choose(&state, legal.version, &legal.actions)
            .await?
        else {
            self.quit = true;
            return Ok(());
        };
        let choice = match choice {
            Choice::Id(id) => pb::submit_action_request::Choice::LegalActionId(id),
            Choice::Action(a) => pb::submit_action_request::Choice::Action(a),
        };
        let req = pb::SubmitActionRequest {
            game_id: self.game_id.to_owned(),
            choice: Some(choice),
            expected_version: Some(legal.version),
            idempotency_key: format!("seat{}-v{}", self.seat, legal.version),
        };
        authed(Some(self.token), ())?;
        // The idempotency key makes a repeated submission safe.
        let submitted = patiently("", || {
            let mut client = client.clone();
            let req = authed(Some(self.token), req.clone()).expect("checked above");
            async move { client.submit_action(req).await }
        })
        .await;
        match submitted {
            Ok(_) => self.result.actions += 1,
            // The game moved on meanwhile (a clock ran out, or this event was
            // stale): the stream will say who decides next.
            Err(s) if matches!(s.code(), Code::Aborted | Code::FailedPrecondition) => {
                if self.verbose.is_some() {
                    eprintln!("not applied: {}", s.message());
                }
            }
            Err(s) => return Err(s.into()),
        }
        Ok(())
    }
}

impl<C: Chooser> AsyncEventFn for &mut SeatPlayer<'_, C> {
    async fn call(&mut self, client: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        if let Some(style) = self.verbose
            && !matches!(e.body, Some(Body::Snapshot(_)))
        {
            outln!("{}", render::event(&e, style))?;
        }
        match e.body {
            Some(Body::Snapshot(s)) => {
                let state = s.state.unwrap_or_default();
                self.seats = state.seats;
                if state.to_act == Some(self.seat) {
                    self.decide(client).await?;
                }
            }
            Some(Body::SeatJoined(j)) => {
                if let Some(s) = self.seats.iter_mut().find(|s| s.seat == j.seat) {
                    s.name = j.name;
                    s.claimed = true;
                }
            }
            Some(Body::DecisionNeeded(d)) if d.seat == self.seat => self.decide(client).await?,
            Some(Body::GameFinished(f)) => {
                self.finished(f.outcome)?;
                return Ok(false);
            }
            Some(Body::GameAbandoned(_)) => return Ok(false),
            _ => {}
        }
        Ok(!self.quit)
    }
}

/// Plays the token's seat until the game ends, purely from the event stream;
/// with `verbose`, every event is printed.
pub async fn play_seat<C: Chooser>(
    client: &mut Client,
    game_id: &str,
    token: &str,
    chooser: C,
    verbose: Option<Style>,
) -> Result<SeatResult, CliError> {
    let me = get_state(client, game_id, Some(token)).await?;
    let seat = me
        .viewer_seat
        .ok_or_else(|| CliError::Usage("this token is not a seat token".into()))?;
    let mut player = SeatPlayer {
        game_id,
        token,
        seat,
        chooser,
        verbose,
        result: SeatResult {
            seat,
            ..SeatResult::default()
        },
        seats: me.seats,
        quit: false,
    };
    // A game already over sends no GameFinished again: its state says how
    // it ended.
    if me.status == pb::GameStatus::Finished as i32 {
        player.finished(me.outcome)?;
        return Ok(player.result);
    }
    follow(client, game_id, Some(token), 0, &mut player).await?;
    Ok(player.result)
}
