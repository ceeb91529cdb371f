//! A bot's account: `druids register`, `druids rotate-key` and `druids
//! revoke-bot`.

use clap::Args;
use druids_contract::pb;

use crate::arena::client::{arena, arena_error};
use crate::connect::{CliError, ServerAddr, authed};
use crate::output::outln;
use crate::render::time::utc_seconds;

#[derive(Args)]
pub struct RegisterArgs {
    /// The bot's name on leaderboards (unique on the server, 1 to 40 bytes).
    #[arg(long)]
    pub name: String,
    /// What the bot is and how it plays.
    #[arg(long, default_value = "")]
    pub description: String,
    /// How to reach its owner (shown only to the operator).
    #[arg(long, default_value = "")]
    pub contact: String,
    /// Registration key, for a server with closed registration (the
    /// operator's key).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object {"bot_id", "api_key"} instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `druids register`: prints the new bot's id and its API key.
pub async fn register(server: &ServerAddr, args: RegisterArgs) -> Result<(), CliError> {
    let mut client = arena(server).await?;
    let req = authed(
        args.operator_key.as_deref(),
        pb::RegisterBotRequest {
            name: args.name.clone(),
            description: args.description,
            owner_contact: args.contact,
        },
    )?;
    let reply = client
        .register_bot(req)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"bot_id": reply.bot_id, "name": args.name, "api_key": reply.api_key})
        )?;
    } else {
        outln!("bot {} ({})", reply.bot_id, args.name)?;
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!(
        "warning: the API key is shown only this once (the server keeps its hash): keep it secret; \
         `druids bot --key KEY --seek GAME:N` or DRUIDS_BOT_KEY plays with it"
    );
    Ok(())
}

/// `druids rotate-key`: the calling bot's key, or with `--bot-id` any bot's
/// with the operator key.
#[derive(Args)]
pub struct RotateKeyArgs {
    /// The bot's current API key (without --bot-id).
    #[arg(
        long,
        env = "DRUIDS_BOT_KEY",
        hide_env_values = true,
        required_unless_present = "bot_id"
    )]
    pub key: Option<String>,
    /// Another bot's id: re-issue its key (also after `druids revoke-bot`);
    /// needs the operator key.
    #[arg(long, requires = "operator_key")]
    pub bot_id: Option<String>,
    /// The operator's key (with --bot-id).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `druids revoke-bot`: the calling bot itself, or any bot with the operator
/// key.
#[derive(Args)]
pub struct RevokeBotArgs {
    /// The bot to revoke [default: the bot of --key].
    pub bot_id: Option<String>,
    /// The bot's own API key.
    #[arg(
        long,
        env = "DRUIDS_BOT_KEY",
        hide_env_values = true,
        required_unless_present = "operator_key"
    )]
    pub key: Option<String>,
    /// The operator's key: revoke any bot (a ban; needs BOT_ID).
    #[arg(long, env = "DRUIDS_OPERATOR_KEY", hide_env_values = true)]
    pub operator_key: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The bearer token and request of `druids rotate-key`: the operator key for
/// another bot, else the bot's own key.
pub(crate) fn rotate_request(
    args: &RotateKeyArgs,
) -> Result<(String, pb::RotateBotKeyRequest), CliError> {
    let token = match &args.bot_id {
        Some(_) => args.operator_key.clone().ok_or_else(|| {
            CliError::Usage(
                "--bot-id needs the operator key: --operator-key or DRUIDS_OPERATOR_KEY".into(),
            )
        })?,
        None => args.key.clone().ok_or_else(|| {
            CliError::Usage("the bot's key is needed: --key or DRUIDS_BOT_KEY".into())
        })?,
    };
    let bot_id = args.bot_id.clone().unwrap_or_default();
    Ok((token, pb::RotateBotKeyRequest { bot_id }))
}

/// The bearer token and request of `druids revoke-bot`: a named bot with
/// the operator key when there is one (else its own key); no bot named, the
/// bot of the key.
pub(crate) fn revoke_request(
    args: &RevokeBotArgs,
) -> Result<(String, pb::RevokeBotRequest), CliError> {
    let token = match (&args.bot_id, &args.operator_key, &args.key) {
        (Some(_), Some(op), _) => op.clone(),
        (_, _, Some(key)) => key.clone(),
        (None, Some(_), None) => {
            return Err(CliError::Usage(
                "with the operator key, name the bot to revoke: druids revoke-bot BOT_ID".into(),
            ));
        }
        _ => {
            return Err(CliError::Usage(
                "a key is needed: --key (the bot's own) or --operator-key".into(),
            ));
        }
    };
    let bot_id = args.bot_id.clone().unwrap_or_default();
    Ok((token, pb::RevokeBotRequest { bot_id }))
}

/// `druids rotate-key`: prints the bot's new API key.
pub async fn rotate_key(server: &ServerAddr, args: RotateKeyArgs) -> Result<(), CliError> {
    let (token, request) = rotate_request(&args)?;
    let mut client = arena(server).await?;
    let reply = client
        .rotate_bot_key(authed(Some(&token), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!("{}", serde_json::json!({"api_key": reply.api_key}))?;
    } else {
        outln!("api key {}", reply.api_key)?;
    }
    eprintln!("warning: the new API key is shown only this once; the old one no longer works");
    Ok(())
}

/// `druids revoke-bot`: prints when the key stopped working.
pub async fn revoke_bot(server: &ServerAddr, args: RevokeBotArgs) -> Result<(), CliError> {
    let (token, request) = revoke_request(&args)?;
    let bot_id = request.bot_id.clone();
    let mut client = arena(server).await?;
    let reply = client
        .revoke_bot(authed(Some(&token), request)?)
        .await
        .map_err(|s| arena_error(server, s))?
        .into_inner();
    if args.json {
        outln!(
            "{}",
            serde_json::json!({"bot_id": bot_id, "revoked_unix_ms": reply.revoked_unix_ms})
        )?;
    } else {
        let who = if bot_id.is_empty() {
            "the bot of this key".to_owned()
        } else {
            format!("bot {bot_id}")
        };
        outln!(
            "{who} revoked at {} UTC",
            utc_seconds(reply.revoked_unix_ms)
        )?;
    }
    Ok(())
}
