//! Takeover after a SIGKILL (issue 27): three `druids-server` nodes on one
//! real PostgreSQL; a two-player Meduris game is created on node 1 or 2 and
//! one action acknowledged there, then that node is SIGKILLed and a client
//! on node 0 submits the game's next action over and over (retrying
//! `UNAVAILABLE`, as the README tells clients to) until it is acknowledged.
//! Reported per kill: the time from the SIGKILL to that acknowledgement, and
//! min / median / max over all kills. The killed node is restarted before the
//! next kill, so every kill meets a full cluster.
//!
//! Run: `cargo bench -p druids-tests --bench takeover` (`TAKEOVER_KILLS`,
//! default 12; `TAKEOVER_LEASE_SECS`, default 2 as in the tests). The
//! PostgreSQL is the tests' private one, started and stopped by the bench;
//! the nodes are this profile's `druids-server` binary.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::authed;
use druids_tests::postgres::PgCluster;
use druids_tests::process::ServerProcess;
use tonic::Code;
use tonic::transport::Channel;

/// Submits polled before a kill counts as never taken over (a guard against
/// a hang, not a time budget: 10 ms apart, about ten minutes).
const MAX_POLLS: usize = 60_000;

struct Cluster {
    db: String,
    lease: String,
    dir: PathBuf,
    nodes: Vec<Option<ServerProcess>>,
}

impl Cluster {
    fn spawn(&self, i: usize) -> ServerProcess {
        let id = format!("node-{i}");
        let args = [
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--db",
            &self.db,
            "--node-id",
            &id,
            "--lease-secs",
            &self.lease,
        ];
        let envs = [
            ("DRUIDS_MAX_READS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SETUPS_PER_SECOND", "0"),
            ("DRUIDS_MAX_SUBMITS_PER_SECOND", "0"),
        ];
        ServerProcess::start(&args, &envs, &self.dir.join(format!("{id}.log")))
    }

    async fn client(&self, i: usize) -> DruidsServiceClient<Channel> {
        let url = self.nodes[i].as_ref().expect("node running").url();
        DruidsServiceClient::connect(url).await.expect("connect")
    }
}

/// Submits the first legal action of whichever seat must decide, through
/// `client`: `Ok` with the version it was listed at and the version it made,
/// once acknowledged; `Err` with the code of a refusal the client retries
/// (`UNAVAILABLE`).
async fn act(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    tokens: &[String],
) -> Result<(u64, u64), Code> {
    for token in tokens {
        let listed = client
            .get_legal_actions(authed(
                token,
                pb::GetLegalActionsRequest {
                    game_id: id.to_owned(),
                    ..Default::default()
                },
            ))
            .await;
        let listed = match listed {
            Ok(r) => r.into_inner(),
            Err(s) if s.code() == Code::Unavailable => return Err(s.code()),
            Err(_) => continue, // not this seat's decision
        };
        let Some(first) = listed.actions.first() else {
            continue;
        };
        let submitted = client
            .submit_action(authed(
                token,
                pb::SubmitActionRequest {
                    game_id: id.to_owned(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(
                        first.id.expect("numbered"),
                    )),
                    expected_version: Some(listed.version),
                    idempotency_key: format!("{id}-{}", listed.version),
                },
            ))
            .await;
        return match submitted {
            Ok(r) => Ok((listed.version, r.into_inner().version)),
            Err(s) if s.code() == Code::Unavailable => Err(s.code()),
            Err(s) => panic!("submit in {id}: {s:?}"),
        };
    }
    panic!("no seat of {id} has a decision")
}

fn main() {
    let kills: usize = std::env::var("TAKEOVER_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let lease = std::env::var("TAKEOVER_LEASE_SECS").unwrap_or_else(|_| "2".into());
    let dir = std::env::temp_dir().join(format!("druids-takeover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cluster = Cluster {
        db: PgCluster::shared().database("bench_takeover"),
        lease,
        dir,
        nodes: Vec::new(),
    };
    for i in 0..3 {
        let node = cluster.spawn(i);
        cluster.nodes.push(Some(node));
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut times = Vec::new();
    for k in 0..kills {
        let victim = 1 + k % 2;
        let took = rt.block_on(async {
            let mut owner = cluster.client(victim).await;
            let created = owner
                .create_game(pb::CreateGameRequest {
                    kind: pb::GameKind::Meduris as i32,
                    players: 2,
                    ..Default::default()
                })
                .await
                .expect("create")
                .into_inner();
            let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
            let id = created.game_id;
            let (_, acked) = act(&mut owner, &id, &tokens).await.expect("first action");
            let mut entry = cluster.client(0).await;
            cluster.nodes[victim].take().expect("victim").kill();
            let killed = Instant::now();
            for _ in 0..MAX_POLLS {
                if let Ok((listed, _)) = act(&mut entry, &id, &tokens).await {
                    let took = killed.elapsed();
                    // The action acknowledged before the kill survived it.
                    assert_eq!(
                        listed, acked,
                        "game {id} resumed at the acknowledged version"
                    );
                    return took;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("game {id} was never taken over");
        });
        println!("kill {:>2} (node-{victim}): {:>6.0} ms", k + 1, ms(took));
        times.push(took);
        let node = cluster.spawn(victim);
        cluster.nodes[victim] = Some(node);
    }
    times.sort();
    println!(
        "lease {} s, {} kills: takeover min {:.0} ms, median {:.0} ms, max {:.0} ms",
        cluster.lease,
        times.len(),
        ms(times[0]),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1]),
    );
    drop(cluster.nodes);
    let _ = std::fs::remove_dir_all(&cluster.dir);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
