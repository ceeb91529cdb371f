//! Cairn, the test tree's third game (`tests/cairn/`), through the contract
//! on a real server: registered through the documented files and shown in
//! the generic messages, it is hosted only by a server told to; there it is
//! listed, created, played to its end by legal-action ids alone, its
//! secrets kept from every other viewer, bad input refused with the right
//! codes and nothing changed, its replay re-run, its JSON readable, and a
//! game in play rebuilt after a restart.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_server::Limits;
use druids_server::catalog::Catalog;
use druids_store::{Sync, sqlite::SqliteStore};
use druids_tests::{Lcg, TestServer, all_events, authed, play_random, state};
use prost_types::value::Kind as V;
use tonic::Code;
use tonic::transport::Channel;

/// Cairn's `GameKind` number (`ListGameTypes` names it).
const CAIRN: i32 = 1000;

/// Limits of a server that hosts the test tree's games too.
fn hosting_cairn() -> Limits {
    Limits {
        catalog: Catalog::with_test_games(),
        ..Limits::unthrottled()
    }
}

async fn cairn_server() -> TestServer {
    TestServer::with(
        Arc::new(druids_server::MemoryStore::default()),
        hosting_cairn(),
    )
    .await
}

/// Creates a Cairn game of `players` with every seat claimed.
async fn create(
    client: &mut DruidsServiceClient<Channel>,
    players: u32,
    seed: u64,
) -> (String, Vec<String>) {
    let reply = client
        .create_game(pb::CreateGameRequest {
            kind: CAIRN,
            players,
            seed: Some(seed),
            ..Default::default()
        })
        .await
        .expect("create a cairn game")
        .into_inner();
    (
        reply.game_id,
        reply.seats.into_iter().map(|s| s.token).collect(),
    )
}

/// The generic part of a state.
fn generic(st: &pb::StateView) -> &pb::GenericValue {
    match &st.game {
        Some(pb::state_view::Game::Generic(g)) => g,
        other => panic!("a cairn state is generic: {other:?}"),
    }
}

/// Field `key` of a JSON object.
fn field<'a>(fields: &'a prost_types::Struct, key: &str) -> Option<&'a V> {
    fields.fields.get(key).and_then(|v| v.kind.as_ref())
}

/// Each seat's offering as a state shows it (`None`: absent).
fn offerings(st: &pb::StateView) -> Vec<Option<f64>> {
    let fields = generic(st).fields.as_ref().expect("fields");
    let Some(V::ListValue(seats)) = field(fields, "seats") else {
        panic!("seats is a list")
    };
    seats
        .values
        .iter()
        .map(|s| match &s.kind {
            Some(V::StructValue(s)) => match field(s, "offering") {
                Some(V::NumberValue(n)) => Some(*n),
                None => None,
                other => panic!("an offering is a number: {other:?}"),
            },
            other => panic!("a seat is an object: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_server_told_to_hosts_the_test_game() {
    let plain = TestServer::start().await;
    let mut client = plain.client().await;
    let listed = client
        .list_game_types(pb::ListGameTypesRequest {})
        .await
        .expect("list")
        .into_inner();
    assert!(listed.game_types.iter().all(|t| t.kind != CAIRN));
    let refused = client
        .create_game(pb::CreateGameRequest {
            kind: CAIRN,
            players: 2,
            ..Default::default()
        })
        .await
        .expect_err("not hosted here");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("kind"), "{}", refused.message());

    let server = cairn_server().await;
    let mut client = server.client().await;
    let listed = client
        .list_game_types(pb::ListGameTypesRequest {})
        .await
        .expect("list")
        .into_inner()
        .game_types;
    let cairn = listed
        .iter()
        .find(|t| t.kind == CAIRN)
        .expect("listed where hosted");
    assert_eq!(cairn.name, "cairn");
    assert!(cairn.generic && cairn.dice_driven);
    assert_eq!((cairn.min_players, cairn.max_players), (2, 4));
    assert_eq!(cairn.rules, "tests/cairn/README.md#cairn-rules");
    assert!(
        listed
            .iter()
            .filter(|t| t.kind != CAIRN)
            .all(|t| !t.generic)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cairn_games_are_played_to_their_end_by_legal_action_ids() {
    let server = cairn_server().await;
    let mut client = server.client().await;
    for players in 2..=4u32 {
        let (id, tokens) = create(&mut client, players, u64::from(players)).await;
        let played = play_random(&mut client, &id, &tokens, &mut Lcg(7), 10_000)
            .await
            .expect("play");
        let end = state(&mut client, &id, None).await;
        assert_eq!(end.status, pb::GameStatus::Finished as i32, "{players}");
        let outcome = end.outcome.clone().expect("an outcome");
        assert_eq!(outcome.scores.len(), players as usize);
        // Every event has words and a generic body, and the stream ends.
        let events = all_events(&mut client, &id, None).await;
        assert!(events.len() > played);
        for e in &events {
            assert!(!e.description.is_empty(), "{e:?}");
        }
        let revealed = events
            .iter()
            .filter(|e| matches!(&e.body, Some(Body::Generic(g)) if g.name == "revealed"))
            .count();
        assert_eq!(revealed, players as usize);
        // The replay re-runs to the recorded result.
        let replay = client
            .export_replay(pb::ExportReplayRequest {
                game_id: id.clone(),
            })
            .await
            .expect("replay")
            .into_inner();
        assert_eq!(replay.kind, CAIRN);
        let again = druids_contract::replay::verify(&replay).expect("the replay re-runs");
        assert_eq!(again, Some(outcome));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offerings_stay_secret_from_every_other_viewer() {
    let server = cairn_server().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, 3, 11).await;
    // The three offerings hidden (the first three decisions), then a few turns.
    play_random(&mut client, &id, &tokens, &mut Lcg(3), 3)
        .await
        .expect("hide");
    let spectator = state(&mut client, &id, None).await;
    assert_eq!(offerings(&spectator), vec![None, None, None]);
    for (seat, token) in tokens.iter().enumerate() {
        let own = state(&mut client, &id, Some(token)).await;
        let seen = offerings(&own);
        for (other, offering) in seen.iter().enumerate() {
            assert_eq!(
                offering.is_some(),
                other == seat,
                "seat {seat} sees {seen:?}"
            );
        }
        // Events: a `hidden` value only for its owner.
        let events = {
            let mut s = client
                .stream_events(authed(
                    token,
                    pb::StreamEventsRequest {
                        game_id: id.clone(),
                        from_seq: 1,
                    },
                ))
                .await
                .expect("stream")
                .into_inner();
            let mut out = Vec::new();
            while out.len() < 3 {
                let e = s.message().await.expect("event").expect("more events");
                if let Some(Body::Generic(g)) = e.body
                    && g.name == "hidden"
                {
                    out.push((e.description, g));
                }
            }
            out
        };
        for (description, g) in events {
            let fields = g.fields.expect("fields");
            let Some(V::NumberValue(owner)) = field(&fields, "seat") else {
                panic!("a seat")
            };
            let shown = field(&fields, "value").is_some();
            assert_eq!(shown, *owner as usize == seat, "{fields:?}");
            assert_eq!(description.contains("worth"), shown, "{description}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_cairn_actions_are_refused_and_change_nothing() {
    let server = cairn_server().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, 2, 5).await;
    let before = format!("{:?}", state(&mut client, &id, Some(&tokens[0])).await);
    let action = |name: &str, fields: druids_contract::codec::generic::Fields| pb::Action {
        game: Some(pb::action::Game::Generic(fields.value(name))),
    };
    use druids_contract::codec::generic::Fields;
    let cases = [
        (
            action("roll", Fields::new()),
            Code::FailedPrecondition,
            "ILLEGAL_ACTION",
        ),
        (
            action("hide", Fields::new().number("value", 9)),
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        ),
        (
            action("fly", Fields::new()),
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        ),
        (
            pb::Action {
                game: Some(pb::action::Game::Dolmen(pb::DolmenAction::default())),
            },
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        ),
    ];
    for (a, code, reason) in cases {
        let refused = client
            .submit_action(authed(
                &tokens[0],
                pb::SubmitActionRequest {
                    game_id: id.clone(),
                    choice: Some(pb::submit_action_request::Choice::Action(a.clone())),
                    expected_version: Some(0),
                    idempotency_key: String::new(),
                },
            ))
            .await
            .expect_err("refused");
        assert_eq!(refused.code(), code, "{a:?}: {}", refused.message());
        let info = tonic_types::StatusExt::get_error_details(&refused);
        assert_eq!(
            info.error_info().map(|i| i.reason.as_str()),
            Some(reason),
            "{a:?}"
        );
    }
    let after = format!("{:?}", state(&mut client, &id, Some(&tokens[0])).await);
    assert_eq!(before, after);
    // The action itself, as sent, is accepted where it is legal.
    client
        .submit_action(authed(
            &tokens[0],
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pb::submit_action_request::Choice::Action(action(
                    "hide",
                    Fields::new().number("value", 2),
                ))),
                expected_version: Some(0),
                idempotency_key: String::new(),
            },
        ))
        .await
        .expect("a legal hide");
    let mine = state(&mut client, &id, Some(&tokens[0])).await;
    assert_eq!(offerings(&mine)[0], Some(2.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cairn_states_read_as_json_objects() {
    let server = cairn_server().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, 2, 8).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(1), 4)
        .await
        .expect("play");
    let st = state(&mut client, &id, Some(&tokens[1])).await;
    let json = druids_contract::json::to_json(&st);
    assert_eq!(json["kind"], CAIRN, "{json}");
    let view = &json["generic"];
    assert_eq!(view["name"], "cairn", "{json}");
    assert_eq!(view["fields"]["seats"][1]["hidden"], true, "{json}");
    assert!(
        view["fields"]["seats"][0].get("offering").is_none(),
        "{json}"
    );
    assert!(view["fields"]["seats"][1]["offering"].is_number(), "{json}");
    assert_eq!(json["decision"]["generic"]["name"], "turn", "{json}");
    // And back: the JSON face reads what it writes, its number as a kind too.
    let back: pb::StateView = druids_contract::json::from_json(&json).expect("reads back");
    assert_eq!(back, st);
    let create: pb::CreateGameRequest =
        druids_contract::json::from_json(&serde_json::json!({"kind": CAIRN, "players": 2}))
            .expect("a number is a kind");
    assert_eq!(create.kind, CAIRN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cairn_game_in_play_is_rebuilt_after_a_restart() {
    let dir = std::env::temp_dir().join(format!("druids-cairn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("cairn.db");
    let open = || Arc::new(SqliteStore::open(&db, Sync::Normal).unwrap());
    let server = TestServer::with(open(), hosting_cairn()).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, 2, 21).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(2), 6)
        .await
        .expect("play");
    let before = state(&mut client, &id, Some(&tokens[0])).await;
    server.stop().await;
    let server = TestServer::with(open(), hosting_cairn()).await;
    let mut client = server.client().await;
    let after = state(&mut client, &id, Some(&tokens[0])).await;
    assert_eq!(before.game, after.game);
    assert_eq!(before.version, after.version);
    play_random(&mut client, &id, &tokens, &mut Lcg(9), 10_000)
        .await
        .expect("play on");
    let end = state(&mut client, &id, None).await;
    assert_eq!(end.status, pb::GameStatus::Finished as i32);
    server.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
