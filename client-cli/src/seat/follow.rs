//! Following a game: its state now, and its event stream, resumed after a
//! break from the last event seen, until the game ends or the handler has
//! seen enough. `watch`, a person playing and every bot are built on it.

use druids_contract::pb;
use tokio_stream::StreamExt;

use crate::connect::{CliError, Client, authed};
use crate::retry::{asked_delay, patiently, transient};

/// Stream reconnections a bot or watcher tries before giving up.
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
    let mut failures = 0;
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
            Err(s) if transient(&s) && failures < RECONNECTS => {
                failures += 1;
                // As long as the server asks (RetryInfo), else a growing pause.
                let pause = asked_delay(&s)
                    .unwrap_or(std::time::Duration::from_millis(100 * u64::from(failures)));
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
                    failures = 0;
                    next = e.seq + 1;
                    if !on_event.call(client, e).await? {
                        return Ok(());
                    }
                }
                Some(Err(s)) if failures < RECONNECTS => {
                    failures += 1;
                    eprintln!(
                        "stream interrupted ({}); resuming from #{next}",
                        s.message()
                    );
                    break;
                }
                Some(Err(s)) => return Err(s.into()),
                // The server ends a stream cleanly when the game is over,
                // but a stream may also end with the game going on (a proxy,
                // a server moving it): resume then.
                None => {
                    let state = get_state(client, game_id, token).await?;
                    let over = [pb::GameStatus::Finished, pb::GameStatus::Abandoned]
                        .map(|s| s as i32)
                        .contains(&state.status);
                    if over || failures >= RECONNECTS {
                        return Ok(());
                    }
                    failures += 1;
                    break;
                }
            }
        }
    }
}
