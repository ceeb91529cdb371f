//! A built-in bot playing one seat of a game through the contract, in this
//! process: it streams the seat's events and, on each of its decisions, asks
//! GetState and GetLegalActions and submits its choice, as `druids bot` does
//! over the network, so that it sees only what its seat may see. Practice
//! games' bots ([`crate::practice_bots`]) and the arena's house bots
//! ([`crate::house_bots`]) are these.

use std::sync::Arc;
use std::time::Duration;

use druids_bots::{Bot, Searchable};
use druids_contract::ProtoGame;
use druids_contract::pb::{self, druids_service_server::DruidsService, game_event::Body as Ev};
use druids_engine::Seat;
use tokio_stream::StreamExt;
use tonic::{Code, Request};

use crate::bot_cpu::Lease;
use crate::service::Service;

/// A built-in bot playing one seat through the contract.
pub(crate) struct SeatBot {
    service: Arc<Service>,
    game_id: String,
    token: String,
    delay: Duration,
    /// The game's place in the bots' CPU budget, held while a bot plays.
    lease: Arc<Lease>,
}

impl SeatBot {
    /// A bot for the seat `token` holds in game `game_id`, pausing `delay`
    /// before each action, thinking on the CPU budget `lease` holds.
    pub(crate) fn new(
        service: Arc<Service>,
        game_id: String,
        token: String,
        delay: Duration,
        lease: Arc<Lease>,
    ) -> SeatBot {
        SeatBot {
            service,
            game_id,
            token,
            delay,
            lease,
        }
    }

    fn authed<T>(&self, msg: T) -> Request<T> {
        let mut req = Request::new(msg);
        let value = format!("Bearer {}", self.token)
            .parse()
            .expect("tokens are hex digits");
        req.metadata_mut().insert("authorization", value);
        req
    }

    /// Follows the seat's events and acts on each of its decisions, until the
    /// game ends or the server shuts down.
    pub(crate) async fn run<G: Searchable + ProtoGame>(self, mut bot: Box<dyn Bot<G>>) {
        let req = self.authed(pb::StreamEventsRequest {
            game_id: self.game_id.clone(),
            from_seq: 0,
        });
        let mut events = match self.service.stream_events(req).await {
            Ok(s) => s.into_inner(),
            Err(e) => {
                tracing::warn!(game_id = %self.game_id, "a server-run bot cannot follow its game: {e}");
                return;
            }
        };
        // The seat this token holds: learnt from the first state it sees.
        let mut me: Option<u32> = None;
        while let Some(Ok(event)) = events.next().await {
            // A snapshot may find the seat's decision pending (a game
            // rebuilt after a restart): no DecisionNeeded will come for it.
            let decide = match event.body {
                Some(Ev::Snapshot(s)) => {
                    let state = s.state.unwrap_or_default();
                    me = state.viewer_seat;
                    me.is_some() && state.to_act == me
                }
                Some(Ev::DecisionNeeded(d)) => Some(d.seat) == me,
                Some(Ev::GameFinished(_) | Ev::GameAbandoned(_)) => return,
                _ => false,
            };
            if !decide {
                continue;
            }
            if !self.delay.is_zero() {
                tokio::time::sleep(self.delay).await;
            }
            bot = match self.act(bot).await {
                Ok(bot) => bot,
                Err(e) => {
                    tracing::warn!(game_id = %self.game_id, "a server-run bot stopped: {e}");
                    return;
                }
            };
        }
    }

    /// Takes one decision. A submission refused because the game moved on
    /// (stale version, over) is not an error: the stream says what is next.
    async fn act<G: Searchable + ProtoGame>(
        &self,
        bot: Box<dyn Bot<G>>,
    ) -> Result<Box<dyn Bot<G>>, String> {
        let game_id = self.game_id.clone();
        let state = self
            .service
            .get_state(self.authed(pb::GetStateRequest {
                game_id: game_id.clone(),
            }))
            .await
            .map_err(|e| e.to_string())?
            .into_inner()
            .state
            .ok_or("GetState returned no state")?;
        let legal = self
            .service
            .get_legal_actions(self.authed(pb::GetLegalActionsRequest {
                game_id: game_id.clone(),
                ..Default::default()
            }))
            .await
            .map_err(|e| e.to_string())?
            .into_inner();
        if legal.actions.is_empty() {
            return Ok(bot);
        }
        let view = G::decode_view(&state).map_err(|e| e.to_string())?;
        let seat = Seat(legal.seat as u8);
        let actions = legal
            .actions
            .iter()
            .map(|la| {
                la.action
                    .as_ref()
                    .ok_or_else(|| "a legal action without its action".to_owned())
                    .and_then(|a| G::decode_action(a).map_err(|e| e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // Searching may take a while (MCTS): on the bots' shared CPU budget.
        let (bot, pick) = self
            .lease
            .think(move || {
                let mut bot = bot;
                let chosen = bot.choose(seat, &view, &actions);
                let pick = actions.iter().position(|a| *a == chosen);
                (bot, pick)
            })
            .await
            .map_err(|e| e.to_string())?;
        let pick = pick.ok_or("the bot chose an action that is not legal")?;
        let id = legal.actions[pick].id.unwrap_or(pick as u32);
        let submitted = self
            .service
            .submit_action(self.authed(pb::SubmitActionRequest {
                game_id,
                choice: Some(pb::submit_action_request::Choice::LegalActionId(id)),
                expected_version: Some(legal.version),
                idempotency_key: format!("practice-{}", legal.version),
            }))
            .await;
        match submitted {
            Ok(_) => Ok(bot),
            Err(e) if matches!(e.code(), Code::Aborted | Code::FailedPrecondition) => Ok(bot),
            Err(e) => Err(e.to_string()),
        }
    }
}
