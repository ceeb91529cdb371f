//! `POST /api/v1/<Method>` and the event streams: each HTTP request becomes a
//! `tonic::Request` for the same `DruidsService` method the gRPC face calls.
//!
//! Building the request here, rather than calling the service's internals,
//! is what keeps the faces identical: the method validates, authenticates,
//! applies limits and fails exactly as it does for gRPC.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use druids_contract::pb::{
    self, druids_service_server::DruidsService, testing_service_server::TestingService,
};
use tonic::{Code, Request};

use super::call::{Call, grpc_request, message, ok, read_json};
use super::event_stream::{from_seq, stream_response};
use super::segment::Segment;
use super::{ApiError, Ctx};
use crate::service::EventStream;

/// `POST /api/v1/<Method>`: one RPC of the contract, JSON in, JSON out.
pub(super) async fn rpc(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Segment(method): Segment,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let json = match read_json(&ctx.service, &headers, body).await {
        Ok(json) => json,
        Err(e) => return e.into_response(),
    };
    let call = Call {
        service: Arc::clone(&ctx.service),
        local: ctx.local,
        peer,
        headers,
        json,
    };
    let result = match method.as_str() {
        "CreateGame" => {
            call.unary(|s, r: Request<pb::CreateGameRequest>| async move { s.create_game(r).await })
                .await
        }
        "JoinGame" => {
            call.unary(|s, r: Request<pb::JoinGameRequest>| async move { s.join_game(r).await })
                .await
        }
        "GetLegalActions" => {
            call.unary(|s, r: Request<pb::GetLegalActionsRequest>| async move {
                s.get_legal_actions(r).await
            })
            .await
        }
        "SubmitAction" => {
            call.unary(
                |s, r: Request<pb::SubmitActionRequest>| async move { s.submit_action(r).await },
            )
            .await
        }
        "Resign" => {
            call.unary(|s, r: Request<pb::ResignRequest>| async move { s.resign(r).await })
                .await
        }
        "GetState" => {
            call.unary(|s, r: Request<pb::GetStateRequest>| async move { s.get_state(r).await })
                .await
        }
        "ListGames" => {
            call.unary(|s, r: Request<pb::ListGamesRequest>| async move { s.list_games(r).await })
                .await
        }
        "ExportReplay" => {
            call.unary(
                |s, r: Request<pb::ExportReplayRequest>| async move { s.export_replay(r).await },
            )
            .await
        }
        "ListGameTypes" => {
            call.unary(|s, r: Request<pb::ListGameTypesRequest>| async move {
                s.list_game_types(r).await
            })
            .await
        }
        "GetReplayViews" => {
            call.unary(|s, r: Request<pb::GetReplayViewsRequest>| async move {
                s.get_replay_views(r).await
            })
            .await
        }
        // TestingService (refused unless --test-faults, as over gRPC).
        "CreateTestGame" => {
            call.unary(|s, r: Request<pb::CreateTestGameRequest>| async move {
                s.create_test_game(r).await
            })
            .await
        }
        "AttachFaultPlan" => {
            call.unary(|s, r: Request<pb::AttachFaultPlanRequest>| async move {
                s.attach_fault_plan(r).await
            })
            .await
        }
        "AdvanceClock" => {
            call.unary(
                |s, r: Request<pb::AdvanceClockRequest>| async move { s.advance_clock(r).await },
            )
            .await
        }
        "GetLedger" => {
            call.unary(|s, r: Request<pb::GetLedgerRequest>| async move { s.get_ledger(r).await })
                .await
        }
        "StreamEvents" => match message::<pb::StreamEventsRequest>(&call.json) {
            Ok(msg) => game_stream(&ctx, peer, &call.headers, msg).await,
            Err(e) => Err(e),
        },
        other if super::arena::is_method(other) => {
            super::arena::rpc(Arc::clone(&ctx.arena), call, other).await
        }
        // An unknown method is an unknown path (404 NOT_FOUND, as every
        // other unknown path); a known path with the wrong HTTP method is
        // 405 (`assets::wrong_method`).
        other => Err(ApiError::new(
            Code::NotFound,
            format!(
                "no method {} in druids.v1.DruidsService, druids.v1.ArenaService or druids.v1.TestingService",
                crate::error::clip(other)
            ),
            "",
        )),
    };
    result.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/games`: ListGameTypes, the games this server hosts, for
/// clients that only read (the web viewer's forms and boards).
pub(super) async fn game_types(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let answer = async {
        // It reads no parameter: one given is a mistake, refused.
        let [] = super::query::read(query.as_deref(), [])?;
        let req = grpc_request(ctx.local, peer, &headers, pb::ListGameTypesRequest {})?;
        let resp = ctx.service.list_game_types(req).await?;
        Ok::<_, ApiError>(ok(resp.get_ref()))
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/v1/games/{id}/events?from_seq=N`: StreamEvents as Server-Sent
/// Events (`Accept: text/event-stream`) or newline-delimited JSON (anything
/// else). `Last-Event-ID`, which browsers send when they reconnect, resumes
/// after that seq and wins over `from_seq`.
pub(super) async fn events(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Segment(game_id): Segment,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let from_seq = match from_seq(query.as_deref(), &headers) {
        Ok(n) => n,
        Err(e) => return e.into_response(),
    };
    let msg = pb::StreamEventsRequest { game_id, from_seq };
    game_stream(&ctx, peer, &headers, msg)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// Opens StreamEvents and turns it into a streaming HTTP body. Errors before
/// the first event (unknown game, bad token, too many streams) are ordinary
/// HTTP errors; the stream ends when the game is over, as over gRPC.
async fn game_stream(
    ctx: &Ctx,
    peer: SocketAddr,
    headers: &HeaderMap,
    msg: pb::StreamEventsRequest,
) -> Result<Response, ApiError> {
    let req = grpc_request(ctx.local, peer, headers, msg)?;
    let events: EventStream = ctx.service.stream_events(req).await?.into_inner();
    Ok(stream_response(events, headers, ctx.keepalive()))
}
