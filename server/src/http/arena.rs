//! The arena over HTTP: every unary RPC of `ArenaService` as
//! `POST /api/v1/<Method>` (JSON in, JSON out, the bot's key as
//! `authorization: Bearer`), and its event logs as Server-Sent Events or
//! NDJSON: `GET /api/v1/bot/events` (the calling bot's) and
//! `GET /api/v1/tournaments/{id}/events`. As for the game service, each call
//! goes through the very [`ArenaApi`] methods the gRPC face serves. Seek is
//! gRPC only: closing its stream cancels the seek, which a browser cannot
//! tell from a dropped connection.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use druids_contract::pb::{self, arena_service_server::ArenaService};
use tonic::Request;

use super::call::{Call, grpc_request};
use super::event_stream::{Events, Sequenced, from_seq, stream_response};
use super::segment::Segment;
use super::{ApiError, Ctx};
use crate::arena_api::ArenaApi;

/// The unary methods of `druids.v1.ArenaService`.
const METHODS: &[&str] = &[
    "RegisterBot",
    "RotateBotKey",
    "RevokeBot",
    "GetLeaderboard",
    "GetBot",
    "GetRatingHistory",
    "ListTournaments",
    "ListPools",
    "Challenge",
    "AnswerChallenge",
    "CancelChallenge",
    "CreateTournament",
    "GetTournament",
    "JoinTournament",
];

/// Whether `method` is a unary method of the arena.
pub(super) fn is_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// `POST /api/v1/<Method>` of a method of [`METHODS`].
pub(super) async fn rpc(
    api: Arc<ArenaApi>,
    call: Call,
    method: &str,
) -> Result<Response, ApiError> {
    macro_rules! unary {
        ($rpc:ident) => {
            call.unary_on(api, |a: Arc<ArenaApi>, r| async move { a.$rpc(r).await })
                .await
        };
    }
    match method {
        "RegisterBot" => unary!(register_bot),
        "RotateBotKey" => unary!(rotate_bot_key),
        "RevokeBot" => unary!(revoke_bot),
        "GetLeaderboard" => unary!(get_leaderboard),
        "GetBot" => unary!(get_bot),
        "GetRatingHistory" => unary!(get_rating_history),
        "ListTournaments" => unary!(list_tournaments),
        "ListPools" => unary!(list_pools),
        "Challenge" => unary!(challenge),
        "AnswerChallenge" => unary!(answer_challenge),
        "CancelChallenge" => unary!(cancel_challenge),
        "CreateTournament" => unary!(create_tournament),
        "GetTournament" => unary!(get_tournament),
        "JoinTournament" => unary!(join_tournament),
        _ => unreachable!("is_method checked {method}"),
    }
}

/// `GET /api/v1/bot/events?from_seq=N`: StreamBotEvents of the bot whose key
/// is the bearer token.
pub(super) async fn bot_events(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let request = |from_seq| pb::StreamBotEventsRequest { from_seq };
    log(&ctx, peer, query, &headers, request, |a, r| async move {
        a.stream_bot_events(r).await
    })
    .await
}

/// `GET /api/v1/tournaments/{id}/events?from_seq=N`: StreamTournamentEvents.
pub(super) async fn tournament_events(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Segment(tournament_id): Segment,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let request = |from_seq| pb::StreamTournamentEventsRequest {
        tournament_id,
        from_seq,
    };
    log(&ctx, peer, query, &headers, request, |a, r| async move {
        a.stream_tournament_events(r).await
    })
    .await
}

/// One of the arena's event logs from the query's `from_seq` (or after
/// `Last-Event-ID`), opened with `open` on the request `request` makes.
async fn log<Req, E, F, Fut>(
    ctx: &Ctx,
    peer: SocketAddr,
    query: Option<String>,
    headers: &HeaderMap,
    request: impl FnOnce(u64) -> Req,
    open: F,
) -> Response
where
    E: Sequenced,
    F: FnOnce(Arc<ArenaApi>, Request<Req>) -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<Events<E>>, tonic::Status>>,
{
    let stream = async {
        let from_seq = from_seq(query.as_deref(), headers)?;
        let req = grpc_request(ctx.local, peer, headers, request(from_seq))?;
        let events = open(Arc::clone(&ctx.arena), req).await?.into_inner();
        Ok::<_, ApiError>(stream_response(events, headers, ctx.keepalive()))
    };
    stream.await.unwrap_or_else(IntoResponse::into_response)
}
