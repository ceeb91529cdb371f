//! Challenges from the command line (`proto/druids/v1/arena.proto`):
//! `druids challenge` asks named bots for a match, `druids answer-challenge`
//! accepts or declines one. The match itself is played by the bots' own
//! `druids bot --events` (which can also `--accept-challenges` by itself);
//! these two commands only make and answer the request, for a person at a
//! terminal or a script.

use clap::{ArgGroup, Args};
use druids_contract::pb;

use crate::arena::client::{arena, arena_error};
use crate::args::{game_kind, game_name};
use crate::connect::{CliError, ServerAddr, authed};
use crate::output::outln;
use crate::render::time::utc_seconds;

/// The turn clock of a challenge's or a tournament's games (unset: the
/// arena's defaults); both flags together.
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeControlArgs {
    /// Turn clock: milliseconds per decision (100 to 600000; with
    /// --time-bank-ms) [default: the arena's].
    #[arg(long, requires = "time_bank_ms", value_parser = clap::value_parser!(u32).range(100..=600_000))]
    pub decision_ms: Option<u32>,
    /// Turn clock: reserve per seat in milliseconds (0 to 3600000; with
    /// --decision-ms).
    #[arg(long, requires = "decision_ms", value_parser = clap::value_parser!(u32).range(0..=3_600_000))]
    pub time_bank_ms: Option<u32>,
}

impl TimeControlArgs {
    /// The TimeControl of the request (None: the arena's defaults).
    pub fn to_proto(&self) -> Option<pb::TimeControl> {
        Some(pb::TimeControl {
            decision_ms: self.decision_ms?,
            time_bank_ms: self.time_bank_ms.unwrap_or(0),
        })
    }
}

/// `druids challenge`.
#[derive(Args)]
pub struct ChallengeArgs {
    /// The challenging bot's API key.
    #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
    pub key: String,
    /// Which game.
    #[arg(long, value_parser = game_kind())]
    pub game: druids_contract::Kind,
    /// A challenged bot's id (1 to 3 of them; the match has one seat more).
    #[arg(long = "opponent", value_name = "BOT_ID", required = true)]
    pub opponents: Vec<String>,
    /// A rated match (rated Meduris: a duplicate match).
    #[arg(long)]
    pub rated: bool,
    /// Seconds the opponents have to answer (1 to 600) [default: 60].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=600))]
    pub expires_secs: Option<u32>,
    /// The games' turn clock.
    #[command(flatten)]
    pub clock: TimeControlArgs,
    /// Print the ChallengeResponse as one proto3 JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `druids answer-challenge`.
#[derive(Args)]
#[command(group(ArgGroup::new("answer").required(true).args(["accept", "decline"])))]
pub struct AnswerArgs {
    /// The challenge's id (from the bot's `challenge_received` event).
    pub challenge_id: String,
    /// The challenged bot's API key.
    #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
    pub key: String,
    /// Accept: the match starts once every opponent has.
    #[arg(long)]
    pub accept: bool,
    /// Decline: the challenge ends for everyone.
    #[arg(long)]
    pub decline: bool,
    /// With --decline: why, told to every bot of the challenge (at most 140
    /// bytes of printable text).
    #[arg(long, requires = "decline")]
    pub reason: Option<String>,
    /// Print one JSON object {"challenge_id", "accepted", "match_id"}.
    #[arg(long)]
    pub json: bool,
}

/// `druids cancel-challenge`.
#[derive(Args)]
pub struct CancelArgs {
    /// The challenge's id (as `druids challenge` printed it).
    pub challenge_id: String,
    /// The challenger's API key.
    #[arg(long, env = "DRUIDS_BOT_KEY", hide_env_values = true)]
    pub key: String,
}

/// The ChallengeRequest of `druids challenge`.
pub fn challenge_request(args: &ChallengeArgs) -> Result<pb::ChallengeRequest, CliError> {
    if args.opponents.len() > 3 {
        return Err(CliError::Usage(format!(
            "{} opponents: a challenge names 1 to 3 (a game has at most 4 seats)",
            args.opponents.len()
        )));
    }
    Ok(pb::ChallengeRequest {
        kind: args.game.number(),
        opponents: args.opponents.clone(),
        rated: args.rated,
        expires_in_secs: args.expires_secs.unwrap_or(0),
        time_control: args.clock.to_proto(),
    })
}

/// A challenge in one line: "C1: alpha challenges beta, gamma to meduris
/// (rated), 1000 ms + 5000 ms bank, expires ... UTC".
pub fn challenge_text(c: &pb::ChallengeInfo) -> String {
    let from = c.from.clone().unwrap_or_default();
    let opponents: Vec<&str> = c.opponents.iter().map(|b| b.name.as_str()).collect();
    let clock = c.time_control.map_or("the arena's clock".to_owned(), |t| {
        format!("{} ms + {} ms bank", t.decision_ms, t.time_bank_ms)
    });
    format!(
        "{}: {} challenges {} to {}{}, {clock}, expires {} UTC",
        c.challenge_id,
        from.name,
        opponents.join(", "),
        game_name(c.kind),
        if c.rated { " (rated)" } else { "" },
        utc_seconds(c.expires_unix_ms)
    )
}

/// `druids challenge`: prints the challenge's id.
pub async fn challenge(server: &ServerAddr, args: ChallengeArgs) -> Result<(), CliError> {
    let request = challenge_request(&args)?;
    let reply = arena(server)
        .await?
        .challenge(authed(Some(&args.key), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        return outln!("{}", druids_contract::json::to_json(&reply));
    }
    let c = reply.challenge.unwrap_or_default();
    outln!("challenge {}", c.challenge_id)?;
    eprintln!("{}", challenge_text(&c));
    Ok(())
}

/// `druids answer-challenge`.
pub async fn answer(server: &ServerAddr, args: AnswerArgs) -> Result<(), CliError> {
    let request = pb::AnswerChallengeRequest {
        challenge_id: args.challenge_id.clone(),
        accept: args.accept,
        reason: args.reason.clone().unwrap_or_default(),
    };
    let reply = arena(server)
        .await?
        .answer_challenge(authed(Some(&args.key), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        return outln!(
            "{}",
            serde_json::json!({"challenge_id": args.challenge_id, "accepted": args.accept, "match_id": reply.match_id})
        );
    }
    match (args.accept, reply.match_id.as_str()) {
        (false, _) => outln!("declined challenge {}", args.challenge_id),
        (true, "") => outln!(
            "accepted challenge {} (waiting for the other opponents)",
            args.challenge_id
        ),
        (true, m) => outln!("accepted challenge {}: match {m} starts", args.challenge_id),
    }
}

/// `druids cancel-challenge`: withdraws the bot's own pending challenge.
pub async fn cancel(server: &ServerAddr, args: CancelArgs) -> Result<(), CliError> {
    let request = pb::CancelChallengeRequest {
        challenge_id: args.challenge_id.clone(),
    };
    arena(server)
        .await?
        .cancel_challenge(authed(Some(&args.key), request)?)
        .await
        .map_err(|s| arena_error(server, s))?;
    outln!("cancelled challenge {}", args.challenge_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_in_one_line() {
        let bot = |id: &str, name: &str| pb::BotRef {
            bot_id: id.into(),
            name: name.into(),
            ..Default::default()
        };
        let c = pb::ChallengeInfo {
            challenge_id: "c1".into(),
            from: Some(bot("b0", "alpha")),
            opponents: vec![bot("b1", "beta"), bot("b2", "gamma")],
            kind: pb::GameKind::Meduris as i32,
            rated: true,
            expires_unix_ms: 1_795_000_000_123,
            time_control: Some(pb::TimeControl {
                decision_ms: 1000,
                time_bank_ms: 5000,
            }),
        };
        assert_eq!(
            challenge_text(&c),
            "c1: alpha challenges beta, gamma to meduris (rated), 1000 ms + 5000 ms bank, \
             expires 2026-11-18 11:06:40 UTC"
        );
    }
}
