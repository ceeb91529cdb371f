//! Kill -9 and restart, with real processes: `druids-server` runs as a child on
//! a database file, clients play several games at once, the server is killed
//! with SIGKILL at random moments (also in the middle of a flurry of
//! submissions) and restarted on the same file, until every game is over.
//!
//! Checked: no acknowledged action is lost, none is applied twice, a retry of
//! the submission that was in flight is recognised by its idempotency key, and
//! each final state equals an uninterrupted in-process replay of the same
//! actions.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_engine::{Seat, Viewer};
use druids_server::hosted_game::new_game;
use tonic::Request;
use tonic::transport::Channel;

const GAMES: usize = 6;
const KILLS: usize = 6;

struct Server {
    child: Child,
    url: String,
}

fn start(db: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_druids-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--sync",
            "normal",
            "--log",
            "info",
        ])
        .arg("--db")
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn druids-server");
    // The first line on stdout says where the server listens, as JSON.
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let ready = lines
        .next()
        .expect("server exited before listening")
        .unwrap();
    let ready: serde_json::Value = serde_json::from_str(&ready).expect("a JSON ready line");
    let addr = ready["grpc"].as_str().expect("the gRPC address").to_owned();
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        url: format!("http://{addr}"),
    }
}

fn authed<T>(token: &str, m: T) -> Request<T> {
    let mut r = Request::new(m);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// One game as the test client knows it.
#[derive(Clone)]
struct Tracked {
    id: String,
    seed: u64,
    tokens: Vec<String>,
    /// Every action the server acknowledged, by version - 1.
    acked: Vec<(Seat, pb::Action)>,
    /// The submission sent but not answered when the server died.
    in_flight: Option<(Seat, pb::SubmitActionRequest)>,
    rng: u64,
}

impl Tracked {
    fn pick(&mut self, n: usize) -> usize {
        self.rng = self
            .rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.rng >> 33) as usize) % n
    }
}

/// Plays until the game ends, `budget` actions are done, or the server dies.
async fn drive(client: &mut DruidsServiceClient<Channel>, g: &mut Tracked, budget: usize) -> bool {
    for _ in 0..budget {
        let st = match client
            .get_state(pb::GetStateRequest {
                game_id: g.id.clone(),
            })
            .await
        {
            Ok(r) => r.into_inner().state.unwrap(),
            Err(_) => return false,
        };
        let Some(seat) = st.to_act else {
            return true;
        };
        let token = g.tokens[seat as usize].clone();
        let legal = match client
            .get_legal_actions(authed(
                &token,
                pb::GetLegalActionsRequest {
                    game_id: g.id.clone(),
                    all_payments: false,
                    ..Default::default()
                },
            ))
            .await
        {
            Ok(r) => r.into_inner(),
            Err(_) => return false,
        };
        let i = g.pick(legal.actions.len());
        let action = legal.actions[i].action.clone().unwrap();
        let req = pb::SubmitActionRequest {
            game_id: g.id.clone(),
            choice: Some(pb::submit_action_request::Choice::Action(action.clone())),
            expected_version: Some(legal.version),
            idempotency_key: format!("{}-{}", g.id, legal.version),
        };
        g.in_flight = Some((Seat(seat as u8), req.clone()));
        match client.submit_action(authed(&token, req)).await {
            Ok(r) => {
                assert_eq!(r.into_inner().version, g.acked.len() as u64 + 1);
                g.acked.push((Seat(seat as u8), action));
                g.in_flight = None;
            }
            Err(_) => return false,
        }
    }
    false
}

/// After a restart: the server holds every acknowledged action, and at most the
/// one that was in flight; retrying that one by its key never applies it twice.
/// Returns whether a submission was in flight, and whether it had been committed.
async fn reconcile(client: &mut DruidsServiceClient<Channel>, g: &mut Tracked) -> (bool, bool) {
    let st = client
        .get_state(pb::GetStateRequest {
            game_id: g.id.clone(),
        })
        .await
        .expect("a stored game is still there")
        .into_inner()
        .state
        .unwrap();
    let acked = g.acked.len() as u64;
    assert!(
        st.version == acked || st.version == acked + 1,
        "game {}: server at version {} but {acked} actions were acknowledged",
        g.id,
        st.version
    );
    if let Some((seat, req)) = g.in_flight.take() {
        let committed = st.version == acked + 1;
        let reply = client
            .submit_action(authed(&g.tokens[seat.index()], req.clone()))
            .await
            .expect("retrying the in-flight submission")
            .into_inner();
        assert_eq!(reply.version, acked + 1, "the retry lands exactly once");
        let again = client
            .get_state(pb::GetStateRequest {
                game_id: g.id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        assert_eq!(
            again.version,
            acked + 1,
            "committed before the kill: {committed}"
        );
        let Some(pb::submit_action_request::Choice::Action(a)) = req.choice else {
            unreachable!()
        };
        g.acked.push((seat, a));
        (true, committed)
    } else {
        assert_eq!(st.version, acked);
        (false, false)
    }
}

async fn connect(url: &str) -> DruidsServiceClient<Channel> {
    for _ in 0..100 {
        if let Ok(c) = DruidsServiceClient::connect(url.to_owned()).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("cannot connect to {url}");
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("druids-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.db")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_and_repeats_nothing() {
    let db = temp_db("crash");
    let mut server = start(&db);
    let mut client = connect(&server.url).await;
    let mut games = Vec::new();
    for i in 0..GAMES {
        let players = 2 + (i % 3) as u32;
        let seed = 1000 + i as u64;
        let reply = client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players,
                seed: Some(seed),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        games.push(Tracked {
            id: reply.game_id,
            seed,
            tokens: reply.seats.into_iter().map(|s| s.token).collect(),
            acked: Vec::new(),
            in_flight: None,
            rng: i as u64 + 1,
        });
    }
    let mut kill_rng = 0x5eedu64;
    let mut restarts = 0;
    let (mut in_flight, mut committed_in_flight) = (0, 0);
    loop {
        // A flurry: every game plays concurrently, and the server is killed
        // at a random moment while they do.
        let mut tasks = Vec::new();
        for mut g in games.drain(..) {
            let url = server.url.clone();
            tasks.push(tokio::spawn(async move {
                let mut c = connect(&url).await;
                let done = drive(&mut c, &mut g, 400).await;
                (g, done)
            }));
        }
        kill_rng = kill_rng.wrapping_mul(6364136223846793005).wrapping_add(1);
        let delay = 5 + (kill_rng >> 33) % 60;
        let killer = restarts < KILLS;
        if killer {
            tokio::time::sleep(Duration::from_millis(delay)).await;
            server.child.kill().expect("SIGKILL");
            server.child.wait().unwrap();
        }
        let mut all_done = true;
        for t in tasks {
            let (g, done) = t.await.unwrap();
            all_done &= done;
            games.push(g);
        }
        if !killer {
            assert!(all_done, "without kills every game finishes");
            break;
        }
        restarts += 1;
        eprintln!(
            "kill {restarts} after {delay} ms: acknowledged {:?}",
            games.iter().map(|g| g.acked.len()).collect::<Vec<_>>()
        );
        server = start(&db);
        let mut c = connect(&server.url).await;
        for g in games.iter_mut() {
            let (was_in_flight, committed) = reconcile(&mut c, g).await;
            in_flight += was_in_flight as usize;
            committed_in_flight += committed as usize;
        }
    }
    assert_eq!(restarts, KILLS);
    eprintln!(
        "{restarts} kills; {in_flight} submissions in flight at a kill, {committed_in_flight} of them committed"
    );

    // Every final state equals an uninterrupted replay of the same actions.
    let mut c = connect(&server.url).await;
    for g in &games {
        let st = c
            .get_state(pb::GetStateRequest {
                game_id: g.id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .state
            .unwrap();
        assert_eq!(st.status, pb::GameStatus::Finished as i32);
        let mut replay = new_game(
            druids_contract::Kind::Meduris,
            g.tokens.len(),
            g.seed,
            &pb::GameOptions::default(),
        )
        .unwrap();
        replay.start();
        for (seat, a) in &g.acked {
            replay
                .apply(
                    *seat,
                    &pb::submit_action_request::Choice::Action(a.clone()),
                    None,
                )
                .unwrap();
        }
        assert!(replay.is_over());
        assert_eq!(st.version, replay.version());
        assert_eq!(st.last_seq, replay.last_seq());
        assert_eq!(st.outcome, replay.outcome());
        assert_eq!(st.game, Some(replay.view(Viewer::Spectator)));
    }
    server.child.kill().ok();
    server.child.wait().ok();
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}
