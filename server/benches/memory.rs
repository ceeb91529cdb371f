//! Resident memory per game, through a real server on loopback (client and
//! server in one process):
//!
//! * per active game: 2,000 four-player Meduris games, 20 actions into each,
//!   on a fresh in-memory server;
//! * per finished game: four-player Meduris games played to their end on a
//!   durable (SQLite) server whose ended games leave memory at once
//!   (`evict_after_secs = 0`); after a first batch warms the allocators and
//!   SQLite's cache up, the change of resident memory and of the heap the
//!   server holds over `MEMORY_ROUNDS` more batches, per game.
//!
//! Run: `cargo bench -p druids-server --bench memory` (`MEMORY_FINISHED`,
//! default 300, games per batch; `MEMORY_ROUNDS`, default 1, batches after
//! the first).

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::{Limits, MemoryStore, Service, Store, SystemClock};
use druids_store::{Sync, sqlite::SqliteStore};
use tonic::Request;
use tonic::transport::Channel;

/// The server's allocator, counting the bytes held: resident memory also
/// moves with the allocator's and SQLite's caches, the heap count only with
/// what the server keeps.
struct Counting;

static HELD: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        HELD.fetch_sub(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        HELD.fetch_add(
            size as isize - layout.size() as isize,
            std::sync::atomic::Ordering::Relaxed,
        );
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn heap_bytes() -> i64 {
    HELD.load(std::sync::atomic::Ordering::Relaxed) as i64
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Resident memory by kind (`RssAnon`, `RssFile`, `RssShmem`), kB.
fn rss_kinds() -> [i64; 3] {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    [field("RssAnon:"), field("RssFile:"), field("RssShmem:")]
}

fn authed<T>(token: &str, m: T) -> Request<T> {
    let mut r = Request::new(m);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// A served `Service` on an ephemeral port, and a client of it.
async fn serve(
    store: Arc<dyn Store>,
    limits: Limits,
) -> (
    Arc<Service>,
    DruidsServiceClient<Channel>,
    tokio::sync::oneshot::Sender<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let service = Arc::new(Service::new(store, limits, Arc::new(SystemClock)).unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(druids_server::serve_service(
        listener,
        Arc::clone(&service),
        None,
        async move {
            let _ = stopped.await;
        },
    ));
    let client = DruidsServiceClient::connect(url).await.unwrap();
    (service, client, stop)
}

/// Plays a new four-player Meduris game (seed `g`) for at most `max`
/// actions by legal-action id 0, with idempotency keys as a careful bot
/// sends them.
async fn play(client: &mut DruidsServiceClient<Channel>, g: u64, max: usize) {
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 4,
            seed: Some(g),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    let mut to_act = created.state.and_then(|s| s.to_act);
    let mut version = 0;
    for _ in 0..max {
        let Some(seat) = to_act else { break };
        let reply = client
            .submit_action(authed(
                &tokens[seat as usize],
                pb::SubmitActionRequest {
                    game_id: created.game_id.clone(),
                    choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                    expected_version: Some(version),
                    idempotency_key: format!("{}-{version}", created.game_id),
                },
            ))
            .await
            .unwrap()
            .into_inner();
        version = reply.version;
        // The last DecisionNeeded or GameFinished says who decides next.
        let next = reply.events.iter().rev().find_map(|e| match &e.body {
            Some(pb::game_event::Body::DecisionNeeded(d)) => Some(Some(d.seat)),
            Some(pb::game_event::Body::GameFinished(_)) => Some(None),
            _ => None,
        });
        to_act = next.expect("an answer ends with who decides next");
    }
}

async fn per_active_game() -> String {
    let (service, mut client, stop) =
        serve(Arc::new(MemoryStore::default()), Limits::unthrottled()).await;
    let (before, heap) = (rss_bytes(), heap_bytes());
    for g in 0..2000u64 {
        play(&mut client, g, 20).await;
    }
    let games = service.census().iter().map(|c| c.2).sum::<usize>();
    let added = rss_bytes().saturating_sub(before) as f64;
    let held = (heap_bytes() - heap) as f64;
    let _ = stop.send(());
    format!(
        "per active game: {games} games in play (20 actions each, keyed) add {:.1} MiB resident = {:.1} KiB per game; heap held {:.1} KiB per game",
        added / 1048576.0,
        added / 1024.0 / games as f64,
        held / 1024.0 / games as f64
    )
}

async fn per_finished_game(batch: u64) -> String {
    let dir = std::env::temp_dir().join(format!("druids-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = SqliteStore::open(&dir.join("m.db"), Sync::Normal).unwrap();
    let limits = Limits {
        evict_after_secs: 0,
        ..Limits::unthrottled()
    };
    let (service, mut client, stop) = serve(Arc::new(store), limits).await;
    let started = std::time::Instant::now();
    for g in 0..batch {
        play(&mut client, g, usize::MAX).await;
    }
    // Let the referee evict the last ones.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (warm, heap, kinds) = (rss_bytes(), heap_bytes(), rss_kinds());
    let rounds = std::env::var("MEMORY_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1u64);
    for round in 1..=rounds {
        for g in round * batch..(round + 1) * batch {
            play(&mut client, g, usize::MAX).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        println!(
            "  after {} finished games: resident {:.1} MiB (anonymous {} kB), heap {:.1} MiB",
            (round + 1) * batch,
            rss_bytes() as f64 / 1048576.0,
            rss_kinds()[0],
            heap_bytes() as f64 / 1048576.0
        );
    }
    let (played, batch) = ((rounds + 1) * batch, batch * rounds);
    let grown = rss_bytes() as f64 - warm as f64;
    let held = (heap_bytes() - heap) as f64;
    let kinds_now = rss_kinds();
    let [anon, file, shmem] = [0, 1, 2].map(|i| kinds_now[i] - kinds[i]);
    let in_memory = service.census().iter().map(|c| c.2).sum::<usize>();
    let _ = stop.send(());
    let _ = std::fs::remove_dir_all(&dir);
    format!(
        "per finished game: {played} games played to the end in {:.0} s; {in_memory} left in memory; the last {batch} changed resident memory by {:.2} MiB = {:.0} bytes per finished game, the heap held by {:.0} bytes per finished game (resident change: anonymous {anon} kB, file-backed {file} kB, shared {shmem} kB)",
        started.elapsed().as_secs_f64(),
        grown / 1048576.0,
        grown / batch as f64,
        held / batch as f64
    )
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let batch = std::env::var("MEMORY_FINISHED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    println!("{}", rt.block_on(per_active_game()));
    println!("{}", rt.block_on(per_finished_game(batch)));
}
