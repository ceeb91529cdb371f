//! The host's own events (seats, start, decisions, end, autopilot,
//! abandonment, resignations), kept compact in the log and encoded only when read: the log
//! holds one `DecisionNeeded` per action, so a full `pb::game_event::Body`
//! (over 400 bytes) per entry would be most of a game's memory.

use druids_contract::pb;
use druids_engine::Seat;

/// A public event of the host, as the log keeps it.
#[derive(Clone, Debug, PartialEq)]
pub enum HostEvent {
    /// A seat was claimed.
    SeatJoined {
        /// The seat.
        seat: Seat,
        /// Its display name.
        name: Box<str>,
    },
    /// Every seat is claimed: play begins.
    Started,
    /// `seat` must decide.
    DecisionNeeded {
        /// Who decides.
        seat: Seat,
        /// What is to be decided.
        decision: Option<pb::Decision>,
    },
    /// The game is over.
    Finished {
        /// The result.
        outcome: Option<Box<pb::Outcome>>,
    },
    /// A seat went on autopilot (`on`) or decided again.
    Autopilot {
        /// The seat.
        seat: Seat,
        /// Whether the server now decides for it.
        on: bool,
    },
    /// The server gave the game up.
    Abandoned {
        /// Why.
        reason: Box<str>,
    },
    /// A seat gave up: the game ends.
    Resigned {
        /// The seat.
        seat: Seat,
    },
}

impl HostEvent {
    /// The event as the contract carries it.
    pub fn body(&self) -> pb::game_event::Body {
        use pb::game_event::Body as B;
        match self {
            HostEvent::SeatJoined { seat, name } => B::SeatJoined(pb::SeatJoined {
                seat: seat.0 as u32,
                name: name.to_string(),
            }),
            HostEvent::Started => B::GameStarted(pb::GameStarted {}),
            HostEvent::DecisionNeeded { seat, decision } => B::DecisionNeeded(pb::DecisionNeeded {
                seat: seat.0 as u32,
                decision: decision.clone(),
                deadline_unix_ms: None,
            }),
            HostEvent::Finished { outcome } => B::GameFinished(pb::GameFinished {
                outcome: outcome.as_deref().cloned(),
            }),
            HostEvent::Autopilot { seat, on } => B::AutopilotChanged(pb::AutopilotChanged {
                seat: seat.0 as u32,
                on: *on,
            }),
            HostEvent::Abandoned { reason } => B::GameAbandoned(pb::GameAbandoned {
                reason: reason.to_string(),
            }),
            HostEvent::Resigned { seat } => B::SeatResigned(pb::SeatResigned {
                seat: seat.0 as u32,
            }),
        }
    }

    /// The event in plain English.
    pub fn describe(&self) -> String {
        match self {
            HostEvent::SeatJoined { seat, name } => format!("seat {} joined as {name}", seat.0),
            HostEvent::Started => "every seat is claimed: the game starts".into(),
            HostEvent::DecisionNeeded { seat, .. } => format!("seat {} must decide", seat.0),
            HostEvent::Finished { outcome: Some(o) } => {
                let winners: Vec<String> = o.winners.iter().map(|w| format!("seat {w}")).collect();
                let scores: Vec<String> = o.scores.iter().map(i32::to_string).collect();
                format!(
                    "the game is over: {} won (scores {})",
                    winners.join(" and "),
                    scores.join(", ")
                )
            }
            HostEvent::Finished { outcome: None } => "the game is over".into(),
            HostEvent::Autopilot { seat, on: true } => {
                format!("seat {} is on autopilot: the server decides for it", seat.0)
            }
            HostEvent::Autopilot { seat, on: false } => format!("seat {} decides again", seat.0),
            HostEvent::Abandoned { reason } => format!("the server gave the game up ({reason})"),
            HostEvent::Resigned { seat } => format!("seat {} resigned", seat.0),
        }
    }
}
