//! Following a game: its state now, and its event stream, resumed after a
//! break from the last event seen, until the game ends or the handler has
//! seen enough. `watch`, a person playing and every bot are built on it.

use std::time::Duration;

use druids_contract::pb;
use tokio_stream::StreamExt;

use crate::connect::{CliError, Client, authed};
use crate::retry::{Failures, asked_delay, patiently, transient};

/// Stream reconnections a bot or watcher tries in a row before giving up,
/// besides those the server asks for (`retry::PATIENCE`).
const RECONNECTS: u32 = 20;

/// The state of a game as `token`'s seat (or a spectator) sees it.
pub async fn get_state(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<pb::StateView, CliError> {
    let request = || {
        authed(
            token,
            pb::GetStateRequest {
                game_id: game_id.to_owned(),
            },
        )
    };
    request()?;
    let reply = patiently("", || {
        let mut client = client.clone();
        let req = request().expect("checked above");
        async move { client.get_state(req).await }
    })
    .await?;
    Ok(reply.state.unwrap_or_default())
}

/// A callback that may call the server itself.
pub trait AsyncEventFn {
    /// Handles one event; `false` stops following.
    fn call(
        &mut self,
        client: &mut Client,
        event: pb::GameEvent,
    ) -> impl std::future::Future<Output = Result<bool, CliError>>;
}

/// Follows a game's events from `from_seq`, resuming after a broken stream,
/// and hands each to `on_event` until it returns `false` or the stream ends
/// with the game.
pub async fn follow<F>(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
    from_seq: u64,
    mut on_event: F,
) -> Result<(), CliError>
where
    F: AsyncEventFn,
{
    let mut next = from_seq;
    let mut failures = Failures::new(RECONNECTS);
    loop {
        let req = authed(
            token,
            pb::StreamEventsRequest {
                game_id: game_id.to_owned(),
                from_seq: next,
            },
        )?;
        let mut stream = match client.stream_events(req).await {
            Ok(s) => s.into_inner(),
            Err(s) if transient(&s) => {
                // As long as the server asks (RetryInfo), else a growing pause.
                let Some(pause) = failures.next(asked_delay(&s), |n| {
                    Duration::from_millis(100 * u64::from(n))
                }) else {
                    return Err(s.into());
                };
                tokio::time::sleep(pause).await;
                continue;
            }
            Err(s) => return Err(s.into()),
        };
        loop {
            match stream.next().await {
                // The server is alive and the game quiet: nothing to show.
                Some(Ok(e)) if matches!(e.body, Some(pb::game_event::Body::Heartbeat(_))) => {}
                Some(Ok(e)) => {
                    failures.cleared();
                    next = e.seq + 1;
                    if !on_event.call(client, e).await? {
                        return Ok(());
                    }
                }
                Some(Err(s)) => {
                    let Some(pause) = failures.next(asked_delay(&s), |_| Duration::ZERO) else {
                        return Err(s.into());
                    };
                    eprintln!(
                        "stream interrupted ({}); resuming from #{next}",
                        s.message()
                    );
                    tokio::time::sleep(pause).await;
                    break;
                }
                // The server ends a stream cleanly when the game is over,
                // but a stream may also end with the game going on (a proxy,
                // a server moving it): resume then.
                None => {
                    let state = get_state(client, game_id, token).await?;
                    let over = [pb::GameStatus::Finished, pb::GameStatus::Abandoned]
                        .map(|s| s as i32)
                        .contains(&state.status);
                    if over || failures.next(None, |_| Duration::ZERO).is_none() {
                        return Ok(());
                    }
                    break;
                }
            }
        }
    }
}
