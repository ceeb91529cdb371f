//! `druids.v1.ArenaService` over the [`Arena`]: authentication by bot key,
//! the streams (Seek, StreamBotEvents, StreamTournamentEvents), and blocking
//! work off the async workers. On a node of several, a call is served by the
//! node holding the arena's lease, forwarded there from any other
//! ([`crate::arena_work`]).
//!
//! An open log stream (StreamBotEvents, StreamTournamentEvents) holds memory
//! and a task, so it takes a place in the stream budgets `StreamEvents`
//! draws on (per client address and server-wide, and StreamBotEvents per
//! bot: [`crate::stream::Streams::open_arena`]) for as long as it is open,
//! once its key (if any) is known good: a bad key is UNAUTHENTICATED and
//! takes nothing. A forwarded stream is counted on the holder, which serves
//! it, for the client the forwarding node names.

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use druids_contract::pb::{self, arena_service_server::ArenaService};
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::arena::Arena;
use crate::arena::bots::BotNo;
use crate::arena_work::ArenaHost;
use crate::arena_work::route::{Routed, here_or_forward, route};
use crate::auth::TokenHash;
use crate::blocking::OffTheWorkers;
use crate::bounds::{Bounded, Checked};
use crate::cluster::Cluster;
use crate::error::ServiceError;
use crate::heartbeat::{Beat, before, with_heartbeats};
use crate::quota::{AddressReads, Read};
use crate::stream::{ArenaStreamSlot, Streams};

use crate::arena::house::STREAM_BUFFER;

/// Events of a bot's log read from the store at once.
const EVENTS_PER_READ: usize = 100;

/// The arena's gRPC face.
pub struct ArenaApi {
    host: ArenaHost,
    cluster: Option<Arc<Cluster>>,
    blocking: OffTheWorkers,
    stop: watch::Receiver<bool>,
    /// How long a stream may send nothing before it sends a heartbeat.
    heartbeat_every: Duration,
    /// This node's arena settings (its `--registration`, its operator key).
    settings: crate::config::ArenaSettings,
    /// The read budgets the public reads (leaderboards, profiles,
    /// tournaments, pools, rating histories) are charged to, by address.
    reads: AddressReads,
    /// The stream budgets the log streams take a place in (the service's,
    /// shared with `StreamEvents` and with this API's other face, gRPC or
    /// HTTP).
    streams: Arc<Streams>,
}

impl ArenaApi {
    /// Serves the arena of `service`, ending streams when it stops.
    pub fn of(service: &crate::Service) -> ArenaApi {
        ArenaApi {
            host: service.arena_host().clone(),
            cluster: service.cluster().cloned(),
            blocking: service.blocking().clone(),
            stop: service.stop_signal(),
            heartbeat_every: Duration::from_millis(service.limits().stream_heartbeat_ms),
            settings: service.limits().arena.clone(),
            reads: service.address_reads(),
            streams: Arc::clone(service.streams()),
        }
    }

    /// Charges a public read to the client at `peer` (on the arena's
    /// holder, which knows the client of a forwarded call).
    fn read(&self, read: Read, peer: Option<IpAddr>) -> Result<(), Status> {
        Ok(self.reads.charge(read, peer)?)
    }

    /// Where `request` is served ([`route`]).
    async fn route<T>(&self, request: &Request<T>) -> Result<Routed, Status> {
        route(&self.host, self.cluster.as_ref(), &self.blocking, request).await
    }

    /// The bot calling `arena` with `request`'s bearer key.
    fn bot<T>(arena: &Arena, request: &Request<T>) -> Result<BotNo, Status> {
        let token = crate::auth::bearer(request.metadata())?;
        Ok(arena.bot_of(token.as_ref())?)
    }

    /// A bot's call: its key first (a bad key is UNAUTHENTICATED whatever
    /// the request), then the request's bounds, then `call` off the async
    /// workers.
    async fn bot_call<T, R>(
        &self,
        arena: Arc<Arena>,
        request: Request<T>,
        call: impl FnOnce(&Arena, BotNo, &Checked<T>) -> Result<R, ServiceError> + Send + 'static,
    ) -> Result<Response<R>, Status>
    where
        T: Bounded + Send + 'static,
        R: Send + 'static,
    {
        let bot = Self::bot(&arena, &request)?;
        let req = crate::bounds::checked(request)?.into_inner();
        let reply = self.blocking.run(move || call(&arena, bot, &req)).await?;
        Ok(Response::new(reply?))
    }
}

/// A stream of one of the arena's event logs.
type EventStream<E> = Pin<Box<dyn Stream<Item = Result<E, Status>> + Send>>;

/// A stream holding its place in the budgets: freed when the stream is
/// dropped (the client went away, or it ended), or with the call if it is
/// refused before.
struct Slotted<S> {
    stream: S,
    _slot: ArenaStreamSlot,
}

impl<S> Slotted<S> {
    fn new(stream: S, slot: ArenaStreamSlot) -> Slotted<S> {
        Slotted {
            stream,
            _slot: slot,
        }
    }
}

impl<S: Stream + Unpin> Stream for Slotted<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        Pin::new(&mut self.stream).poll_next(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stream.size_hint()
    }
}

/// The stream of Seek.
pub type SeekStream = Pin<Box<dyn Stream<Item = Result<pb::SeekEvent, Status>> + Send>>;
/// The stream of StreamBotEvents.
pub type BotEventStream = Pin<Box<dyn Stream<Item = Result<pb::BotEvent, Status>> + Send>>;
/// The stream of StreamTournamentEvents.
pub type TournamentEventStream =
    Pin<Box<dyn Stream<Item = Result<pb::TournamentEvent, Status>> + Send>>;

impl ArenaApi {
    /// A stream of an event log from `from_seq` on: `read` gives the events
    /// from a seq (off the async workers), `last` says when there are new
    /// ones, `seq_and_end` gives an event's seq and whether the log ends with
    /// it (then so does the stream); `complete`: the log has ended already,
    /// so the stream ends once it has read it all. It ends when the server
    /// stops. A quiet stream sends heartbeats (only here, on the holder: a
    /// forwarded stream passes the holder's on, so their silence shows that
    /// the holder is gone). A `from_seq` beyond the log's next event is
    /// refused, as `StreamEvents` refuses it: nothing would ever come.
    fn follow<E, R, F>(
        &self,
        mut moved: watch::Receiver<bool>,
        mut last: watch::Receiver<u64>,
        from_seq: u64,
        complete: bool,
        read: R,
        seq_and_end: F,
    ) -> Result<EventStream<E>, ServiceError>
    where
        E: Beat<Mark = u64>,
        R: Fn(u64) -> Result<Vec<E>, ServiceError> + Send + Sync + 'static,
        F: Fn(&E) -> (u64, bool) + Send + 'static,
    {
        crate::stream::within_log(from_seq, *last.borrow())?;
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let blocking = self.blocking.clone();
        let mut stop = self.stop.clone();
        let read = Arc::new(read);
        let mut cursor = from_seq.max(1);
        tokio::spawn(async move {
            loop {
                last.borrow_and_update();
                let reader = Arc::clone(&read);
                let events = match blocking.run(move || reader(cursor)).await {
                    Ok(Ok(events)) => events,
                    Ok(Err(e)) => {
                        let _ = tx.send(Err(e.into())).await;
                        return;
                    }
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        return;
                    }
                };
                let caught_up = events.len() < EVENTS_PER_READ;
                for event in events {
                    let (seq, end) = seq_and_end(&event);
                    cursor = seq + 1;
                    if tx.send(Ok(event)).await.is_err() || end {
                        return;
                    }
                }
                if caught_up && complete {
                    return;
                }
                if caught_up {
                    tokio::select! {
                        changed = last.changed() => if changed.is_err() { return },
                        () = tx.closed() => return,
                        _ = async { stop.wait_for(|s| *s).await.map(|_| ()) } => {
                            let _ = tx.send(Err(ServiceError::ShuttingDown.into())).await;
                            return;
                        }
                        _ = async { moved.wait_for(|m| *m).await.map(|_| ()) } => {
                            let _ = tx.send(Err(ServiceError::ArenaMoved.into())).await;
                            return;
                        }
                    }
                }
            }
        });
        Ok(Box::pin(with_heartbeats(
            ReceiverStream::new(rx),
            self.heartbeat_every,
            before(from_seq),
        )))
    }
}

#[tonic::async_trait]
impl ArenaService for ArenaApi {
    async fn register_bot(
        &self,
        request: Request<pb::RegisterBotRequest>,
    ) -> Result<Response<pb::RegisterBotResponse>, Status> {
        // This node's setting first: on a cluster a node started with
        // `--registration closed` refuses, whatever the holder's.
        let token: Option<TokenHash> = crate::auth::bearer(request.metadata())?;
        crate::arena::accounts::admits_registration(&self.settings, token.as_ref())?;
        let (arena, peer) = here_or_forward!(self, request, register_bot);
        let request = crate::bounds::checked(request)?;
        let req = request.into_inner();
        let reply = self
            .blocking
            .run(move || arena.register(&req, peer, token.as_ref()))
            .await?;
        Ok(Response::new(reply?))
    }

    async fn rotate_bot_key(
        &self,
        request: Request<pb::RotateBotKeyRequest>,
    ) -> Result<Response<pb::RotateBotKeyResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, rotate_bot_key);
        let request = crate::bounds::checked(request)?;
        let token = crate::auth::bearer(request.metadata())?;
        let req = request.into_inner();
        let reply = self
            .blocking
            .run(move || arena.rotate_key(&req, token.as_ref()))
            .await?;
        Ok(Response::new(reply?))
    }

    async fn revoke_bot(
        &self,
        request: Request<pb::RevokeBotRequest>,
    ) -> Result<Response<pb::RevokeBotResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, revoke_bot);
        let request = crate::bounds::checked(request)?;
        let token = crate::auth::bearer(request.metadata())?;
        let req = request.into_inner();
        let reply = self
            .blocking
            .run(move || arena.revoke(&req, token.as_ref()))
            .await?;
        Ok(Response::new(reply?))
    }

    type SeekStream = SeekStream;

    async fn seek(
        &self,
        request: Request<pb::SeekRequest>,
    ) -> Result<Response<SeekStream>, Status> {
        let (arena, _) = here_or_forward!(self, request, seek, stream);
        // The key first: a bad key is UNAUTHENTICATED whatever the request.
        let bot = Self::bot(&arena, &request)?;
        let request = crate::bounds::checked(request)?;
        let (tx, mut rx) = mpsc::channel(STREAM_BUFFER);
        arena.seek(bot, request.get_ref(), tx)?;
        // Relayed, so that the stream ends when the server stops (graceful
        // shutdown waits for open streams); the client closing it drops `rx`,
        // which the arena sees as a cancelled seek.
        let (out, stream) = mpsc::channel(STREAM_BUFFER);
        let mut stop = self.stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    item = rx.recv() => match item {
                        Some(item) => if out.send(item).await.is_err() { return },
                        None => return,
                    },
                    () = out.closed() => return,
                    _ = async { stop.wait_for(|s| *s).await.map(|_| ()) } => {
                        let _ = out.send(Err(ServiceError::ShuttingDown.into())).await;
                        return;
                    }
                }
            }
        });
        // Only here, on the holder: a forwarded stream passes the holder's
        // heartbeats on, so their silence shows that the holder is gone.
        Ok(Response::new(Box::pin(with_heartbeats(
            ReceiverStream::new(stream),
            self.heartbeat_every,
            (),
        ))))
    }

    type StreamBotEventsStream = BotEventStream;

    async fn stream_bot_events(
        &self,
        request: Request<pb::StreamBotEventsRequest>,
    ) -> Result<Response<BotEventStream>, Status> {
        // Served (and counted) here, or on the holder for `peer`.
        let (arena, peer) = here_or_forward!(self, request, stream_bot_events, stream);
        // The key first: a bad key is UNAUTHENTICATED whatever the request,
        // and takes no place in any budget.
        let key = crate::auth::bearer(request.metadata())?;
        let bot = arena.bot_of(key.as_ref())?;
        let request = crate::bounds::checked(request)?;
        let slot = self.streams.open_arena(Some(bot), peer)?;
        let moved = arena.moved();
        let watched = Arc::clone(&arena);
        let last = self
            .blocking
            .run(move || watched.watch_events(bot))
            .await??;
        // A key rotated or revoked stops working at once, here too: the
        // stream it opened reads nothing more and ends UNAUTHENTICATED.
        let read = move |from: u64| {
            if arena.bot_of(key.as_ref()).ok() != Some(bot) {
                return Err(ServiceError::BotKeyUnknown(crate::stream::KEY_GONE));
            }
            arena.events_from(bot, from, EVENTS_PER_READ)
        };
        let stream = self.follow(
            moved,
            last,
            request.get_ref().from_seq,
            false,
            read,
            |e: &pb::BotEvent| (e.seq, false),
        )?;
        Ok(Response::new(Box::pin(Slotted::new(stream, slot))))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, get_leaderboard);
        self.read(Read::List, peer)?;
        let request = crate::bounds::checked(request)?;
        Ok(Response::new(arena.leaderboard(request.get_ref())?))
    }

    async fn get_bot(
        &self,
        request: Request<pb::GetBotRequest>,
    ) -> Result<Response<pb::GetBotResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, get_bot);
        self.read(Read::One, peer)?;
        let request = crate::bounds::checked(request)?;
        if !request.get_ref().bot_id.is_empty() {
            return Ok(Response::new(arena.profile(request.get_ref())?));
        }
        let bot = Self::bot(&arena, &request)?;
        let profile = self.blocking.run(move || arena.own_profile(bot)).await?;
        Ok(Response::new(profile?))
    }

    async fn get_rating_history(
        &self,
        request: Request<pb::GetRatingHistoryRequest>,
    ) -> Result<Response<pb::GetRatingHistoryResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, get_rating_history);
        self.read(Read::List, peer)?;
        let req = crate::bounds::checked(request)?.into_inner().into_inner();
        let reply = self
            .blocking
            .run(move || arena.rating_history(&req))
            .await?;
        Ok(Response::new(reply?))
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, list_tournaments);
        self.read(Read::List, peer)?;
        let request = crate::bounds::checked(request)?;
        Ok(Response::new(arena.list_tournaments(request.get_ref())?))
    }

    async fn list_pools(
        &self,
        request: Request<pb::ListPoolsRequest>,
    ) -> Result<Response<pb::ListPoolsResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, list_pools);
        self.read(Read::One, peer)?;
        let request = crate::bounds::checked(request)?;
        Ok(Response::new(arena.list_pools(request.get_ref())?))
    }

    async fn challenge(
        &self,
        request: Request<pb::ChallengeRequest>,
    ) -> Result<Response<pb::ChallengeResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, challenge);
        self.bot_call(arena, request, |arena, bot, req| arena.challenge(bot, req))
            .await
    }

    async fn answer_challenge(
        &self,
        request: Request<pb::AnswerChallengeRequest>,
    ) -> Result<Response<pb::AnswerChallengeResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, answer_challenge);
        self.bot_call(arena, request, |arena, bot, req| arena.answer(bot, req))
            .await
    }

    async fn cancel_challenge(
        &self,
        request: Request<pb::CancelChallengeRequest>,
    ) -> Result<Response<pb::CancelChallengeResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, cancel_challenge);
        self.bot_call(arena, request, |arena, bot, req| {
            arena.cancel_challenge(bot, req)
        })
        .await
    }

    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, create_tournament);
        let request = crate::bounds::checked(request)?;
        let token = crate::auth::bearer(request.metadata())?;
        let req = request.into_inner();
        let reply = self
            .blocking
            .run(move || arena.create_tournament(&req, token.as_ref()))
            .await?;
        Ok(Response::new(reply?))
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        let (arena, peer) = here_or_forward!(self, request, get_tournament);
        self.read(Read::One, peer)?;
        let request = crate::bounds::checked(request)?;
        Ok(Response::new(arena.tournament(request.get_ref())?))
    }

    async fn join_tournament(
        &self,
        request: Request<pb::JoinTournamentRequest>,
    ) -> Result<Response<pb::JoinTournamentResponse>, Status> {
        let (arena, _) = here_or_forward!(self, request, join_tournament);
        self.bot_call(arena, request, |arena, bot, req| {
            arena.join_tournament(bot, req)
        })
        .await
    }

    type StreamTournamentEventsStream = TournamentEventStream;

    async fn stream_tournament_events(
        &self,
        request: Request<pb::StreamTournamentEventsRequest>,
    ) -> Result<Response<TournamentEventStream>, Status> {
        // Served (and counted) here, or on the holder for `peer`.
        let (arena, peer) = here_or_forward!(self, request, stream_tournament_events, stream);
        self.read(Read::One, peer)?;
        let request = crate::bounds::checked(request)?;
        let slot = self.streams.open_arena(None, peer)?;
        let moved = arena.moved();
        let req = request.into_inner().into_inner();
        let (watched, id) = (Arc::clone(&arena), req.tournament_id.clone());
        let (last, over) = self
            .blocking
            .run(move || watched.watch_tournament(&id))
            .await??;
        let id = req.tournament_id;
        let read = move |from: u64| arena.tournament_events_from(&id, from, EVENTS_PER_READ);
        let stream = self.follow(
            moved,
            last,
            req.from_seq,
            over,
            read,
            |e: &pb::TournamentEvent| {
                let last = matches!(
                    e.event,
                    Some(
                        pb::tournament_event::Event::Finished(_)
                            | pb::tournament_event::Event::Cancelled(_)
                    )
                );
                (e.seq, last)
            },
        )?;
        Ok(Response::new(Box::pin(Slotted::new(stream, slot))))
    }
}
