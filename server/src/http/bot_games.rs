//! `GET /api/v1/bots/{bot_id}/games`: a bot's finished games as
//! newline-delimited JSON (`application/x-ndjson`), one `ExportReplay`
//! answer per line, a page at a time — what a bot author downloads to study
//! its games. It is `ListGames` (by bot, finished games only) followed by
//! `ExportReplay` of each game, through the same service methods as their
//! gRPC twins (the same limits and errors); a running game is never listed,
//! so nothing secret of it (its seed, a seat's goods) can be exported, and a
//! finished game of a duplicate match still being played (whose seed the
//! match's other games share) is left out of its page.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use druids_contract::json::to_json;
use druids_contract::pb::{self, druids_service_server::DruidsService};

use super::call::grpc_request;
use super::segment::Segment;
use super::{ApiError, Ctx};

/// Games in one page when `max` is not given.
const DEFAULT_GAMES: u32 = 20;
/// Most games in one page (each line is a whole replay, a few to a few
/// dozen kilobytes); a larger `max` is read as this, as page sizes are.
pub const MAX_GAMES: u32 = 100;

/// The response header holding the cursor of the next page (absent on the
/// last page): pass it back as `?page_token=`.
pub const NEXT_PAGE_HEADER: &str = "x-next-page-token";

/// What the query string asks: `max` games after the cursor `page_token`.
struct Page {
    max: u32,
    page_token: String,
}

fn page(query: Option<&str>) -> Result<Page, ApiError> {
    let [max, page_token] =
        super::query::read(query, [("max", "max"), ("page_token", "pageToken")])?;
    let max = match max {
        None => DEFAULT_GAMES,
        Some(n) => match n.parse::<u32>() {
            // 0 is the default, as a gRPC page_size of 0 is.
            Ok(0) => DEFAULT_GAMES,
            Ok(n) => n.min(MAX_GAMES),
            Err(_) => {
                let n = crate::error::clip(&n);
                return Err(ApiError::bad_json(format!("max={n} is not a count")));
            }
        },
    };
    Ok(Page {
        max,
        page_token: page_token.unwrap_or_default(),
    })
}

/// One page of the bot's finished games, newest first; a game whose
/// duplicate match is still being played is left out of it.
pub(super) async fn export(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Segment(bot_id): Segment,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let answer = async {
        let page = page(query.as_deref())?;
        let list = pb::ListGamesRequest {
            bot_id,
            status: pb::GameStatus::Finished as i32,
            page_size: page.max,
            page_token: page.page_token,
            ..Default::default()
        };
        let req = grpc_request(ctx.local, peer, &headers, list)?;
        let listed = ctx.service.list_games(req).await?.into_inner();
        let mut body = String::new();
        for game in listed.games {
            let export = pb::ExportReplayRequest {
                game_id: game.game_id,
            };
            let req = grpc_request(ctx.local, peer, &headers, export)?;
            let replay = match ctx.service.export_replay(req).await {
                Ok(replay) => replay.into_inner(),
                // Over, but its duplicate match is not: the seed it shares
                // with the match's other games stays secret until then.
                Err(refused) if druids_contract::replay::withheld(&refused) => continue,
                Err(refused) => return Err(refused.into()),
            };
            body.push_str(&to_json(&replay).to_string());
            body.push('\n');
        }
        let mut response = ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response();
        if !listed.next_page_token.is_empty()
            && let Ok(next) = HeaderValue::from_str(&listed.next_page_token)
        {
            response.headers_mut().insert(NEXT_PAGE_HEADER, next);
        }
        Ok::<_, ApiError>(response)
    };
    answer.await.unwrap_or_else(IntoResponse::into_response)
}
