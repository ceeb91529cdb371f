//! One scenario, start to end: its game made by `CreateTestGame` with its
//! fault plan, the other seats played by built-in random bots in this
//! process, the client under test started once with its seat, followed
//! until it exits, then the ledger read and judged.

use std::process::Stdio;
use std::time::{Duration, Instant};

use druids_bots::{Budget, Strategy};
use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;
use tonic::transport::Channel;

use crate::conformance::judge::{self, ClientEnd, Finding, LastWords, Verdict};
use crate::conformance::scenarios::{CLIENT_SEAT, Scenario};
use crate::conformance::server;
use crate::connect::{CliError, Client, ServerAddr, authed, channel};
use crate::seat::follow::{AsyncEventFn, follow, get_state};
use crate::seat::strategy::play_bot;

/// How long a client may go without the game moving, or stay after the
/// game's end, before the runner calls it stuck. A deadlock guard only:
/// clients are judged on the ledger, not on time.
const STUCK: Duration = Duration::from_secs(90);

/// How the client under test is started: its program and arguments, with
/// `{server}`, `{game_id}` and `{token}` replaced.
#[derive(Clone, Debug)]
pub struct ClientCommand(pub Vec<String>);

/// What one scenario came to.
#[derive(Clone, Debug)]
pub struct Graded {
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub game_id: String,
    pub elapsed: Duration,
}

/// The game's progress as a spectator sees it.
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    last_seq: u64,
    over: bool,
}

struct Watcher(watch::Sender<Progress>);

impl AsyncEventFn for &Watcher {
    async fn call(&mut self, _: &mut Client, e: pb::GameEvent) -> Result<bool, CliError> {
        use pb::game_event::Body;
        let over = matches!(e.body, Some(Body::GameFinished(_) | Body::GameAbandoned(_)));
        self.0.send_replace(Progress {
            last_seq: e.seq,
            over,
        });
        Ok(!over)
    }
}

/// Runs `sc` with game seed `seed` against `client`.
pub async fn run(
    server: &ServerAddr,
    sc: &Scenario,
    seed: u64,
    client: &ClientCommand,
) -> Result<Graded, CliError> {
    let started = Instant::now();
    let chan = channel(server).await?;
    let mut testing = TestingServiceClient::new(chan.clone());
    let mut game = pb::CreateGameRequest {
        kind: sc.kind.number(),
        players: sc.players,
        seed: Some(seed),
        options: sc.options.clone(),
        ..Default::default()
    };
    if sc.near_end {
        game.start_from = Some(near_end(server, sc, seed).await?);
        game = pb::CreateGameRequest {
            kind: 0,
            players: 0,
            seed: None,
            ..game
        };
    }
    let made = testing
        .create_test_game(pb::CreateTestGameRequest {
            game: Some(game),
            plan: Some(sc.plan()),
        })
        .await
        .map_err(|s| server::not_serving(server, &s).unwrap_or(CliError::Status(s)))?
        .into_inner();
    let game = made.game.unwrap_or_default();
    let game_id = game.game_id.clone();
    let token = |seat: u32| {
        game.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.token.clone())
            .ok_or_else(|| CliError::Protocol(format!("no token for seat {seat}")))
    };
    let (progress_tx, mut progress) = watch::channel(Progress::default());
    let mut tasks = tokio::task::JoinSet::new();
    {
        let mut c = Client::new(chan.clone());
        let id = game_id.clone();
        tasks.spawn(async move {
            let w = Watcher(progress_tx);
            follow(&mut c, &id, None, 0, &w).await
        });
    }
    for seat in (0..sc.players).filter(|&s| s != CLIENT_SEAT) {
        let (mut c, id, t) = (Client::new(chan.clone()), game_id.clone(), token(seat)?);
        let bot_seed = seed.wrapping_mul(31).wrapping_add(u64::from(seat));
        tasks.spawn(async move {
            let budget = Budget::Iterations(1);
            play_bot(&mut c, &id, &t, Strategy::Random, bot_seed, budget)
                .await
                .map(|_| ())
        });
    }
    let end = run_client(
        client,
        server,
        &game_id,
        &token(CLIENT_SEAT)?,
        &mut progress,
    )
    .await?;
    // The runner's seats stop with the game, or with a client that left it.
    tasks.abort_all();
    let entries = ledger(&mut testing, &game_id, &made.test_key).await?;
    let findings = judge::judge(sc, &entries, &end);
    let verdict = findings.first().map_or(Verdict::Ok, |f| f.verdict);
    Ok(Graded {
        verdict,
        findings,
        game_id,
        elapsed: started.elapsed(),
    })
}

/// Starts the client and waits for it to exit (or kills it when stuck).
async fn run_client(
    client: &ClientCommand,
    server: &ServerAddr,
    game_id: &str,
    token: &str,
    progress: &mut watch::Receiver<Progress>,
) -> Result<ClientEnd, CliError> {
    let fill = |a: &String| {
        a.replace("{server}", &server.url)
            .replace("{game_id}", game_id)
            .replace("{token}", token)
    };
    let args: Vec<String> = client.0.iter().map(fill).collect();
    let (program, rest) = args
        .split_first()
        .ok_or_else(|| CliError::Usage("no client command given (after --)".into()))?;
    let mut child = tokio::process::Command::new(program)
        .args(rest)
        .env("DRUIDS_SERVER", &server.url)
        .env("DRUIDS_GAME_ID", game_id)
        .env("DRUIDS_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| CliError::Usage(format!("cannot start the client {program:?}: {e}")))?;
    let stderr = child.stderr.take().expect("piped");
    let last_words = tokio::spawn(async move {
        // Read to the end, bytes that are not UTF-8 too (a client that
        // blocks on a full pipe would look stuck).
        let mut stderr = tokio::io::BufReader::new(stderr);
        let (mut last, mut line) = (LastWords::default(), Vec::new());
        while let Ok(1..) = stderr.read_until(b'\n', &mut line).await {
            last.hear(&String::from_utf8_lossy(&line));
            line.clear();
        }
        last.lines()
    });
    let mut killed = None;
    let stuck = |p: Progress| {
        if p.over {
            format!(
                "still running {} s after the game ended; killed",
                STUCK.as_secs()
            )
        } else {
            format!(
                "the game stood still at seq {} for {} s with the client running; killed",
                p.last_seq,
                STUCK.as_secs()
            )
        }
    };
    let code = loop {
        tokio::select! {
            status = child.wait() => break status?.code(),
            changed = progress.changed() => {
                if changed.is_err() {
                    // The spectator's stream is gone (the game ended): the
                    // client has as long again to finish as it had to move.
                    match tokio::time::timeout(STUCK, child.wait()).await {
                        Ok(status) => break status?.code(),
                        Err(_) => {
                            killed = Some(stuck(*progress.borrow()));
                            let _ = child.kill().await;
                            break None;
                        }
                    }
                }
            }
            () = tokio::time::sleep(STUCK) => {
                killed = Some(stuck(*progress.borrow()));
                let _ = child.kill().await;
                break None;
            }
        }
    };
    let last_words = last_words.await.unwrap_or_default();
    // The spectator may lag behind the client: ask the server itself.
    let mut c = crate::connect::connect(server).await?;
    let state = get_state(&mut c, game_id, None).await?;
    let game_over = state.status == pb::GameStatus::Finished as i32
        || state.status == pb::GameStatus::Abandoned as i32;
    let resigned = state
        .outcome
        .is_some_and(|o| o.resigned.contains(&CLIENT_SEAT));
    Ok(ClientEnd {
        code,
        killed,
        game_over,
        resigned,
        last_seq: state.last_seq,
        last_words,
    })
}

/// The whole ledger of a game, every page.
async fn ledger(
    testing: &mut TestingServiceClient<Channel>,
    game_id: &str,
    key: &str,
) -> Result<Vec<pb::LedgerEntry>, CliError> {
    let mut all = Vec::new();
    let mut from = 0;
    loop {
        let req = pb::GetLedgerRequest {
            game_id: game_id.to_owned(),
            from_index: from,
            page_size: 1000,
        };
        let page = testing
            .get_ledger(authed(Some(key), req)?)
            .await?
            .into_inner();
        let done = page.next_index == from || page.entries.is_empty();
        from = page.next_index;
        all.extend(page.entries);
        if done {
            return Ok(all);
        }
    }
}

/// A start just before the client's seat's last decision in a game the
/// runner plays out first, with some other seat's action after it: the game
/// then ends while the client waits.
async fn near_end(
    server: &ServerAddr,
    sc: &Scenario,
    seed: u64,
) -> Result<pb::StartFrom, CliError> {
    let chan = channel(server).await?;
    for attempt in 0..20 {
        let game_seed = seed.wrapping_add(attempt);
        let mut c = Client::new(chan.clone());
        let made = c
            .create_game(pb::CreateGameRequest {
                kind: sc.kind.number(),
                players: sc.players,
                seed: Some(game_seed),
                options: sc.options.clone(),
                ..Default::default()
            })
            .await?
            .into_inner();
        let mut seats = tokio::task::JoinSet::new();
        for s in made.seats {
            let (mut c, id) = (Client::new(chan.clone()), made.game_id.clone());
            seats.spawn(async move {
                let budget = Budget::Iterations(1);
                play_bot(&mut c, &id, &s.token, Strategy::Random, game_seed, budget).await
            });
        }
        while let Some(done) = seats.join_next().await {
            done??;
        }
        let replay = c
            .export_replay(pb::ExportReplayRequest {
                game_id: made.game_id.clone(),
            })
            .await?
            .into_inner();
        let last_mine = replay.actions.iter().rposition(|a| a.seat == CLIENT_SEAT);
        if let Some(i) = last_mine
            && i + 1 < replay.actions.len()
        {
            return Ok(pb::StartFrom {
                actions: i as u32,
                replay: Some(replay),
            });
        }
    }
    Err(CliError::Protocol(
        "no game of 20 ended on another seat's move".into(),
    ))
}
