//! `POST /web/v1/practice`: a game against built-in bots for a person at a
//! browser, who has no bot of their own to run.
//!
//! The game is created through the contract like any other, and each bot
//! plays its seat through the contract too ([`crate::seat_bot`]), as
//! `druids bot` does over the network; here the calls go to the in-process
//! service from tokio tasks. A bot sees only what its seat may see. The bots
//! play on after a restart ([`crate::practice_bots`]).
//! Its decisions are taken on the server's bots' shared CPU budget, and one
//! address has at most `--practice-games-per-address` practice games in play
//! ([`crate::bot_cpu`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use druids_bots::Strategy;
use druids_contract::Kind;
use druids_contract::pb;
use tonic::Code;

use super::call::{grpc_request, read_json};
use super::{ApiError, Ctx};
use crate::bot_cpu::Owner;
use crate::catalog::Catalog;
use crate::error::clip;
use crate::practice_bots;

/// The person's (and the bots') time per decision: a person who leaves the
/// game is replaced by the autopilot once this runs out.
const PERSON_DECISION_MS: u32 = 600_000;
/// Longest pause a bot may be asked to make before each action.
const MAX_DELAY_MS: u64 = 5_000;

/// What the page asks for.
struct Practice {
    kind: Kind,
    players: u32,
    strategy: Strategy,
    seed: Option<u64>,
    delay: Duration,
}

/// The fields of a practice request; any other is refused, as the
/// contract's JSON refuses unknown fields (and, as it, takes
/// `bot_delay_ms` for `botDelayMs`).
const FIELDS: [&str; 6] = [
    "kind",
    "players",
    "strategy",
    "seed",
    "botDelayMs",
    "bot_delay_ms",
];

fn parse(json: &serde_json::Value, games: &Catalog) -> Result<Practice, ApiError> {
    let bad = |m: String| ApiError::bad_json(m);
    let fields = json
        .as_object()
        .ok_or_else(|| bad("the body is not a JSON object".into()))?;
    if let Some(unknown) = fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(bad(format!(
            "unknown field {}: expected {}",
            clip(unknown),
            FIELDS.join(", ")
        )));
    }
    let kind = match &json["kind"] {
        serde_json::Value::String(name) => name.as_str(),
        serde_json::Value::Null => "",
        _ => return Err(bad("kind is not a string: a game's name".into())),
    };
    let kind = self::kind(kind, games)?;
    let players = match &json["players"] {
        serde_json::Value::Null => 2,
        v => v
            .as_u64()
            .ok_or_else(|| bad("players is not a whole number".into()))?,
    };
    // Bounded before any seat is named (crate::bounds).
    let range = crate::bounds::game::players_of(kind.number())?;
    if !range.contains(&u32::try_from(players).unwrap_or(u32::MAX)) {
        return Err(bad(format!(
            "players is {players}; this game has {} to {} players",
            range.start(),
            range.end()
        )));
    }
    let strategy = match &json["strategy"] {
        serde_json::Value::Null => "greedy",
        serde_json::Value::String(name) => name.as_str(),
        _ => return Err(bad("strategy is not a string: a strategy's name".into())),
    };
    let strategy = strategy.parse::<Strategy>().map_err(|e| {
        let names: Vec<_> = Strategy::names().collect();
        bad(format!(
            "strategy {}: expected one of {}",
            clip(&e.given),
            names.join(", ")
        ))
    })?;
    // Seeds are 64-bit: like every uint64 of the proto3 JSON mapping, a
    // string, though a plain number is accepted too.
    let not_a_seed = || bad("seed is not a 64-bit unsigned number (or its decimal string)".into());
    let seed = match &json["seed"] {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.parse().map_err(|_| not_a_seed())?),
        v => Some(v.as_u64().ok_or_else(not_a_seed)?),
    };
    if fields.contains_key("botDelayMs") && fields.contains_key("bot_delay_ms") {
        return Err(bad("botDelayMs is given twice (as bot_delay_ms too)".into()));
    }
    let delay = fields
        .get("botDelayMs")
        .or_else(|| fields.get("bot_delay_ms"));
    let delay_ms = match delay.unwrap_or(&serde_json::Value::Null) {
        serde_json::Value::Null => 0,
        v => v
            .as_u64()
            .filter(|&ms| ms <= MAX_DELAY_MS)
            .ok_or_else(|| bad(format!("botDelayMs must be 0 to {MAX_DELAY_MS}")))?,
    };
    Ok(Practice {
        kind,
        players: players as u32,
        strategy,
        seed,
        delay: Duration::from_millis(delay_ms),
    })
}

/// The hosted game a practice request names: its short name ("meduris") or
/// its `GameKind` enum name ("GAME_KIND_MEDURIS").
fn kind(name: &str, games: &Catalog) -> Result<Kind, ApiError> {
    games
        .kinds()
        .find(|k| name == k.name() || k.proto().is_some_and(|p| p.as_str_name() == name))
        .ok_or_else(|| {
            let names: Vec<_> = games.kinds().map(Kind::name).collect();
            ApiError::bad_json(format!(
                "kind {}: expected one of {}",
                clip(name),
                names.join(", ")
            ))
        })
}

/// Creates the game (seat 0 for the person, bots elsewhere), starts the bots
/// and answers `{"gameId", "seat", "token"}`.
pub(super) async fn practice(
    State(ctx): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match start(&ctx, peer, &headers, body).await {
        Ok(json) => (
            [(header::CONTENT_TYPE, "application/json")],
            json.to_string(),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

async fn start(
    ctx: &Ctx,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: Body,
) -> Result<serde_json::Value, ApiError> {
    let p = parse(
        &read_json(&ctx.service, headers, body).await?,
        ctx.service.catalog(),
    )?;
    let seat_names = (0..p.players)
        .map(|s| match s {
            0 => "player".to_owned(),
            s => crate::service::seat_name(p.strategy, s),
        })
        .collect();
    let create = pb::CreateGameRequest {
        kind: p.kind.number(),
        players: p.players,
        seed: p.seed,
        seat_names,
        // A person who leaves is replaced by the autopilot after one long
        // turn, so the game ends and gives its place in the bots' budget back.
        options: Some(pb::GameOptions {
            decision_ms: Some(PERSON_DECISION_MS),
            autopilot_after: Some(1),
            ..Default::default()
        }),
        ..Default::default()
    };
    // The game's place in the bots' CPU budget, within its address's quota,
    // before anything is made.
    let mut lease = ctx
        .service
        .bot_cpu()
        .lease(Owner::Address(crate::quota::client_address(peer.ip())))?;
    // The request of the person's browser: its address counts for limits.
    let req = grpc_request(ctx.local, peer, &HeaderMap::new(), create)?;
    let created = ctx.service.create_practice_game(req).await?;
    lease.bind(&created.game_id);
    let mut seats = created.seats.into_iter();
    let human = seats
        .next()
        .ok_or_else(|| ApiError::new(Code::Internal, "the game has no seat", ""))?;
    let bots = practice_bots::Bots {
        game_id: created.game_id.clone(),
        kind: p.kind,
        seats: seats
            .map(|seat| (seat.token, p.strategy, bot_seed(p.seed, seat.seat.into())))
            .collect(),
        delay: p.delay,
    };
    practice_bots::play(&ctx.service, bots, Arc::new(lease));
    Ok(serde_json::json!({
        "gameId": created.game_id,
        "seat": human.seat,
        "token": human.token,
    }))
}

/// The seed of the bot on seat `seat`: drawn from the game's seed when the
/// person chose one (so that the same request plays the same game against
/// the random and greedy bots, whose choices depend on nothing else; MCTS
/// thinks for a time, so its choices also depend on the machine), else
/// secret and fresh.
fn bot_seed(game_seed: Option<u64>, seat: u64) -> u64 {
    let Some(seed) = game_seed else {
        return rand::random::<u64>();
    };
    // SplitMix64 of the game's seed and the seat: seats draw apart.
    let mut x = seed ^ seat.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_with_defaults_and_limits() {
        let p = parse(&serde_json::json!({"kind": "dolmen"}), &Catalog::default()).unwrap();
        assert_eq!(p.kind, Kind::Dolmen);
        assert_eq!(p.players, 2);
        assert_eq!(p.strategy, Strategy::Greedy);
        assert_eq!(p.seed, None);
        let catalog = Catalog::default();
        let p = parse(
            &serde_json::json!({
                "kind": "GAME_KIND_MEDURIS", "players": 3, "strategy": "mcts",
                "seed": "18446744073709551615", "botDelayMs": MAX_DELAY_MS
            }),
            &catalog,
        )
        .unwrap();
        assert_eq!(p.seed, Some(u64::MAX));
        assert_eq!(p.delay, Duration::from_millis(MAX_DELAY_MS));
        let snake = serde_json::json!({"kind": "dolmen", "bot_delay_ms": 7});
        assert_eq!(
            parse(&snake, &catalog).unwrap().delay,
            Duration::from_millis(7)
        );
        for bad in [
            serde_json::json!({"kind": "dolmen", "botDelayMs": 7, "bot_delay_ms": 7}),
            serde_json::json!({"kind": "meduris", "players": 5}),
            serde_json::json!({"kind": "dolmen", "players": u64::MAX}),
            serde_json::json!({"kind": "dolmen", "botDelayMs": MAX_DELAY_MS + 1}),
            serde_json::json!({"kind": "chess"}),
            serde_json::json!({"kind": "dolmen", "strategy": "x"}),
            serde_json::json!({"kind": "dolmen", "strategy": 3}),
            serde_json::json!({"kind": "dolmen", "seats": 3}),
            serde_json::json!({"kind": "dolmen", "seed": "-1"}),
            serde_json::json!({"kind": 2}),
            serde_json::json!(["dolmen"]),
        ] {
            assert!(parse(&bad, &catalog).is_err(), "{bad}");
        }
        let Err(e) = parse(
            &serde_json::json!({"kind": "dolmen", "botDelay": 9}),
            &catalog,
        ) else {
            panic!("an unknown field is refused");
        };
        assert!(
            e.message.contains("unknown field \"botDelay\""),
            "{}",
            e.message
        );
    }
}
