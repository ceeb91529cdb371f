//! Prometheus metrics on a port of their own: games by kind and status,
//! actions applied (by origin) and rejected (by status code), SubmitAction
//! latency, persistence latency, open streams, the legal-action lists
//! built for `GetLegalActions`, the database's failures and, on a node of
//! a cluster, its leases, forwards, takeovers and fenced writes.
//!
//! Counters and histograms are updated where things happen; the gauges (and
//! the store's count of database errors) are read when scraped, so they can
//! never drift.

use std::sync::Arc;
use std::time::Instant;

use druids_contract::pb;
use druids_engine::Seat;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use tokio::net::TcpListener;

use crate::store::{
    ActionRecord, AppendResult, Epoch, GameRecord, Games, RequestRecord, StoreError, TokenHash,
};

/// Every metric of the server.
pub struct Metrics {
    registry: Registry,
    /// Actions applied, by game kind and origin (seat, timeout, autopilot).
    pub actions: IntCounterVec,
    /// Requests refused, by gRPC status code.
    pub rejected: IntCounterVec,
    /// SubmitAction handling time, seconds.
    pub submit_latency: Histogram,
    /// Time to make one action durable, seconds.
    pub persist_latency: Histogram,
    /// Legal-action lists the engines built for `GetLegalActions`: a list is
    /// built once per version and list, and its pages are cut from it, so
    /// reading a list page by page builds it once. Lists, not entries: a
    /// list's length follows the acting seat's hidden goods or dolmens.
    pub legal_lists: IntCounter,
    games: IntGaugeVec,
    streams: IntGaugeVec,
    /// 1 on a server started with `--test-faults`, else 0.
    pub test_faults: IntGauge,
    /// Attempts the database failed, as the store counts them (synced at
    /// each scrape).
    database_errors: IntCounter,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let registry = Registry::new_custom(Some("druids".into()), None).expect("valid prefix");
        let actions = IntCounterVec::new(
            Opts::new("actions_total", "Actions applied, by game kind and origin"),
            &["kind", "origin"],
        )
        .expect("valid metric");
        let rejected = IntCounterVec::new(
            Opts::new("rejected_total", "Requests refused, by gRPC status code"),
            &["code"],
        )
        .expect("valid metric");
        let buckets = vec![
            0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
            0.25, 1.0,
        ];
        let submit_latency = Histogram::with_opts(
            HistogramOpts::new("submit_seconds", "SubmitAction handling time")
                .buckets(buckets.clone()),
        )
        .expect("valid metric");
        let persist_latency = Histogram::with_opts(
            HistogramOpts::new("persist_seconds", "Time to store one action").buckets(buckets),
        )
        .expect("valid metric");
        let games = IntGaugeVec::new(
            Opts::new(
                "games",
                "Games in memory (in play, or ended within their grace period), by kind and status",
            ),
            &["kind", "status"],
        )
        .expect("valid metric");
        let streams = IntGaugeVec::new(Opts::new("open_streams", "StreamEvents open"), &[])
            .expect("valid metric");
        let legal_lists = IntCounter::new(
            "legal_lists_total",
            "Legal-action lists built for GetLegalActions (once per version and list)",
        )
        .expect("valid metric");
        let test_faults = IntGauge::new(
            "test_faults",
            "1 when the server runs in test-faults mode (fault plans on test games)",
        )
        .expect("valid metric");
        let database_errors = IntCounter::new(
            "database_errors_total",
            "Database calls that failed (each attempt, retried or not; PostgreSQL)",
        )
        .expect("valid metric");
        for m in [
            Box::new(actions.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(rejected.clone()),
            Box::new(submit_latency.clone()),
            Box::new(persist_latency.clone()),
            Box::new(legal_lists.clone()),
            Box::new(games.clone()),
            Box::new(streams.clone()),
            Box::new(test_faults.clone()),
            Box::new(database_errors.clone()),
        ] {
            registry.register(m).expect("metric names are unique");
        }
        Metrics {
            registry,
            actions,
            rejected,
            submit_latency,
            persist_latency,
            legal_lists,
            games,
            streams,
            test_faults,
            database_errors,
        }
    }

    /// The text exposition format, with the gauges set from `census` (games
    /// by kind and status) and `open_streams`, and the database errors from
    /// the store's count `database_errors`.
    pub fn render(
        &self,
        census: &[(druids_contract::Kind, pb::GameStatus, usize)],
        open_streams: usize,
        database_errors: u64,
    ) -> String {
        let counted = self.database_errors.get();
        self.database_errors
            .inc_by(database_errors.saturating_sub(counted));
        self.games.reset();
        for &(kind, status, n) in census {
            self.games
                .with_label_values(&[kind.label(), status.as_str_name()])
                .set(n as i64);
        }
        self.streams
            .with_label_values(&[] as &[&str])
            .set(open_streams as i64);
        let mut out = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut out)
            .expect("text encoding cannot fail");
        String::from_utf8(out).expect("the text format is UTF-8")
    }
}

/// The metrics of a node of a cluster ([`crate::cluster`]).
pub struct ClusterMetrics {
    /// Games in play this node owns (set by each lease renewal).
    pub owned: IntGauge,
    /// Calls forwarded to the owner of their game.
    pub forwarded: IntCounter,
    /// Games taken over from a node whose lease ran out.
    pub takeovers: IntCounter,
    /// Time to renew this node's leases, seconds.
    pub renew_latency: Histogram,
    /// Calls answered `UNAVAILABLE` / `GAME_MOVED`.
    pub game_moved: IntCounter,
    /// Writes the database refused because the game's lease had moved on.
    pub fenced: IntCounter,
    /// Renewals that found this node's leases had run out.
    pub lease_lapses: IntCounter,
    /// Times this node took the arena's work over ([`crate::arena_work`]).
    pub arena_takeovers: IntCounter,
}

impl ClusterMetrics {
    /// The metrics of node `node` (its `--node-id`), not registered yet
    /// ([`Metrics::add_cluster`]). Every series carries a `node` label, so
    /// that series scraped from several nodes into one place stay apart
    /// whatever the scraper adds.
    pub fn new(node: &str) -> ClusterMetrics {
        let opts = |name: &str, help: &str| Opts::new(name, help).const_label("node", node);
        let counter =
            |name: &str, help: &str| IntCounter::with_opts(opts(name, help)).expect("valid metric");
        ClusterMetrics {
            owned: IntGauge::with_opts(opts("node_games_owned", "Games in play this node owns"))
                .expect("valid metric"),
            forwarded: counter(
                "node_forwarded_total",
                "Calls forwarded to the node owning their game",
            ),
            takeovers: counter(
                "node_takeovers_total",
                "Games taken over from a node whose lease ran out",
            ),
            renew_latency: Histogram::with_opts(
                HistogramOpts::new(
                    "node_lease_renew_seconds",
                    "Time to renew the node's leases",
                )
                .const_label("node", node)
                .buckets(vec![
                    0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
                ]),
            )
            .expect("valid metric"),
            game_moved: counter(
                "node_game_moved_total",
                "Calls answered UNAVAILABLE / GAME_MOVED (the client retries)",
            ),
            fenced: counter(
                "node_fenced_writes_total",
                "Writes refused because another node holds the game's lease now",
            ),
            lease_lapses: counter(
                "node_lease_lapses_total",
                "Lease renewals that found this node's leases had run out",
            ),
            arena_takeovers: counter(
                "node_arena_takeovers_total",
                "Times this node took the arena's work over (its holder's lease ran out)",
            ),
        }
    }
}

impl Metrics {
    /// Adds a node's metrics to those rendered.
    pub fn add_cluster(&self, cluster: &ClusterMetrics) {
        for m in [
            Box::new(cluster.owned.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(cluster.forwarded.clone()),
            Box::new(cluster.takeovers.clone()),
            Box::new(cluster.renew_latency.clone()),
            Box::new(cluster.game_moved.clone()),
            Box::new(cluster.fenced.clone()),
            Box::new(cluster.lease_lapses.clone()),
            Box::new(cluster.arena_takeovers.clone()),
        ] {
            self.registry.register(m).expect("metric names are unique");
        }
    }
}

/// The store's [`Games`] with every append timed ([`Metrics::persist_latency`])
/// and every write the database fenced off counted
/// ([`ClusterMetrics::fenced`]): all writes of a game go through it. The
/// other concerns are not wrapped: the server hands them to its parts
/// untimed.
pub struct TimedGames {
    inner: Arc<dyn Games>,
    latency: Histogram,
    fenced: Option<IntCounter>,
}

impl TimedGames {
    /// Wraps `inner`, timing into `metrics`, counting fenced writes into
    /// `fenced` (a node of a cluster).
    pub fn new(
        inner: Arc<dyn Games>,
        metrics: &Metrics,
        fenced: Option<&ClusterMetrics>,
    ) -> TimedGames {
        TimedGames {
            inner,
            latency: metrics.persist_latency.clone(),
            fenced: fenced.map(|c| c.fenced.clone()),
        }
    }

    /// `result`, counted if the database fenced the write off.
    fn counted(&self, result: Result<(), StoreError>) -> Result<(), StoreError> {
        if let (Err(StoreError::Fenced { .. }), Some(fenced)) = (&result, &self.fenced) {
            fenced.inc();
        }
        result
    }
}

impl Games for TimedGames {
    fn append_action(&self, game_id: &str, action: &ActionRecord) -> Result<(), StoreError> {
        let started = Instant::now();
        let result = self.inner.append_action(game_id, action);
        self.latency.observe(started.elapsed().as_secs_f64());
        self.counted(result)
    }

    fn append_later(&self, game_id: &str, action: &ActionRecord) -> Option<AppendResult> {
        let started = Instant::now();
        let appended = self.inner.append_later(game_id, action)?;
        let latency = self.latency.clone();
        Some(Box::pin(async move {
            let result = appended.await;
            latency.observe(started.elapsed().as_secs_f64());
            result
        }))
    }

    fn queues_appends(&self) -> bool {
        self.inner.queues_appends()
    }

    fn create_game(&self, game: &GameRecord) -> Result<(), StoreError> {
        self.counted(self.inner.create_game(game))
    }

    fn claim_seat(
        &self,
        game_id: &str,
        seat: Seat,
        name: &str,
        token: &TokenHash,
        request: Option<&RequestRecord>,
        epoch: Epoch,
    ) -> Result<(), StoreError> {
        self.counted(
            self.inner
                .claim_seat(game_id, seat, name, token, request, epoch),
        )
    }

    fn finish(
        &self,
        game_id: &str,
        version: u64,
        outcome: &pb::Outcome,
        at_ms: u64,
    ) -> Result<(), StoreError> {
        self.counted(self.inner.finish(game_id, version, outcome, at_ms))
    }

    fn abandon(&self, game_id: &str, reason: &str, at_ms: u64) -> Result<(), StoreError> {
        self.counted(self.inner.abandon(game_id, reason, at_ms))
    }
}

/// Serves `GET /metrics` on `listener` until `shutdown` completes; `render`
/// produces the exposition text at each scrape.
pub async fn serve_metrics(
    listener: TcpListener,
    render: impl Fn() -> String + Clone + Send + Sync + 'static,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let render = render.clone();
            async move { ([("content-type", "text/plain; version=0.0.4")], render()) }
        }),
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}
