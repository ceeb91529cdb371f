//! `druids bot --seek POOL --key KEY` (and/or `--events`): starts the seek
//! slots and the event follower of one [`Ladder`], stops them on Ctrl-C
//! (the first cancels the seeks and lets the games finish, a second quits).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use druids_contract::pb;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::arena::client::Arena;
use crate::arena::ladder::events;
use crate::arena::ladder::state::Ladder;
use crate::args::BotArgs;
use crate::connect::{self, CliError, ServerAddr, authed};
use crate::seat::strategy::SeatStrategy;

/// `druids bot --seek POOL --key KEY` (and/or `--events`): plays the ladder
/// (see the module).
pub async fn run(server: &ServerAddr, args: &BotArgs) -> Result<(), CliError> {
    let key = args.key.clone().ok_or_else(|| {
        CliError::Usage(
            "`druids bot --seek` and `--events` need the bot's API key: --key or \
             DRUIDS_BOT_KEY (`druids register` makes one)"
                .into(),
        )
    })?;
    authed(Some(&key), ())?;
    let channel = connect::channel(server).await?;
    let ladder = Arc::new(Ladder {
        server: server.clone(),
        arena: Arena::new(channel.clone()),
        client: pb::druids_service_client::DruidsServiceClient::new(channel),
        key,
        pool: args.seek,
        rated: args.rated,
        strategy: SeatStrategy::of(args),
        limit: args.games,
        reserved: AtomicU32::new(0),
        games: AtomicU64::new(0),
        failed: AtomicU32::new(0),
        claimed: Mutex::new(HashSet::new()),
        sought: Mutex::new(HashSet::new()),
        accept_challenges: args.accept_challenges,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut slots = JoinSet::new();
    if args.seek.is_some() {
        for slot in 0..args.concurrent {
            slots.spawn(Arc::clone(&ladder).slot(slot, stop_rx.clone()));
        }
    }
    if args.events {
        slots.spawn(events::follow(Arc::clone(&ladder), stop_rx.clone()));
    }
    let mut stopping = false;
    let mut result = Ok(());
    loop {
        tokio::select! {
            joined = slots.join_next() => match joined {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => {
                    // The same error would stop every slot (a wrong key, no
                    // arena): stop them all.
                    result = Err(e);
                    let _ = stop_tx.send(true);
                    slots.abort_all();
                }
                Some(Err(e)) if e.is_cancelled() => {}
                Some(Err(e)) => {
                    result = Err(e.into());
                    let _ = stop_tx.send(true);
                    slots.abort_all();
                }
            },
            signal = tokio::signal::ctrl_c() => {
                if signal.is_err() {
                    continue;
                }
                if stopping {
                    eprintln!("quitting: the matches in progress are left to the turn clock");
                    slots.abort_all();
                    return Err(CliError::Interrupted);
                }
                stopping = true;
                eprintln!(
                    "stopping: open seeks cancelled, events no longer followed, games and \
                     matches in progress played to the end (Ctrl-C again to quit now)"
                );
                let _ = stop_tx.send(true);
            }
        }
    }
    result?;
    let failed = ladder.failed.load(Ordering::SeqCst);
    if failed > 0 {
        return Err(CliError::Io(std::io::Error::other(format!(
            "{failed} game(s) could not be played (see above)"
        ))));
    }
    Ok(())
}
