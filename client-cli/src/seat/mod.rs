//! Playing a seat over the network, purely from the event stream: when a
//! `DecisionNeeded` names the seat, fetch the legal actions, let a
//! [`choice::Chooser`] pick one, submit it. A person (`druids play`), the
//! built-in bots (`druids bot`), a program behind the bridge and self-play's
//! random seats all play this way, exactly as a bot in another language
//! would.

pub mod choice;
pub mod choosers;
pub mod commands;
pub mod follow;
pub mod human;
pub mod keyboard;
pub mod menu;
pub mod player;
pub mod result;
pub mod strategy;
