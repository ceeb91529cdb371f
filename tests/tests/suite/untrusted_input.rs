//! Input a hostile client sends, refused with the right code and a short
//! message, changing nothing: names that would rewrite others' terminals or
//! pass for another bot, a stream asked from beyond its log, a request
//! nested past the decoder's depth, an HTTP body cut off on the way.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{Limits, MemoryStore};
use druids_tests::{TestServer, authed, games_listed, http_face};
use prost_types::{ListValue, Struct, Value, value::Kind as V};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::Code;

use crate::arena::{arena, register};

/// The longest message a refusal here may carry, whatever was sent.
const SHORT: usize = 500;

#[tokio::test]
async fn seat_names_with_control_or_format_characters_are_refused() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for name in [
        "\u{1b}]0;title\u{7}\u{1b}[2J",
        "\u{202e}evil",
        "a\u{0}b",
        "two\nlines",
    ] {
        let created = client
            .create_game(pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                seat_names: vec![name.into(), "plain".into()],
                ..Default::default()
            })
            .await
            .expect_err("an unprintable seat name");
        assert_eq!(created.code(), Code::InvalidArgument, "{created:?}");
        assert!(created.message().contains("seat_names"), "{created:?}");
    }
    assert_eq!(games_listed(&server).await, 0, "no game was made");

    let open = druids_tests::create_waiting(&mut client).await;
    let join = |name: &str| pb::JoinGameRequest {
        game_id: open.game_id.clone(),
        name: name.into(),
        ..Default::default()
    };
    let refused = client
        .join_game(join("\u{1b}[31mseat 0 resigned"))
        .await
        .expect_err("an unprintable name");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().contains("name"), "{refused:?}");
    // The seat is still open for a printable name.
    let joined = client
        .join_game(join("Zoë"))
        .await
        .expect("a printable name")
        .into_inner();
    let seat = joined.seat.expect("the seat claimed");
    assert_eq!((seat.seat, seat.name.as_str()), (1, "Zoë"));
    server.stop().await;
}

#[tokio::test]
async fn bot_names_that_show_nothing_look_alike_or_pass_for_a_house_bot_are_refused() {
    let server = TestServer::start().await;
    let mut a = arena(&server).await;
    register(&mut a, "Alpha").await;
    let try_name = |name: &str| pb::RegisterBotRequest {
        name: name.into(),
        description: "a bot".into(),
        owner_contact: "tests@druids.dev".into(),
    };
    for (name, code) in [
        ("Zed\u{3164}", Code::InvalidArgument),
        ("Zed\u{2800}", Code::InvalidArgument),
        ("Zed\u{fe0f}", Code::InvalidArgument),
        ("house-mcts-9999", Code::InvalidArgument),
        ("\u{410}lpha", Code::AlreadyExists),
        ("Alpha\u{301}", Code::AlreadyExists),
    ] {
        let refused = a.register_bot(try_name(name)).await.expect_err("refused");
        assert_eq!(refused.code(), code, "{name:?}: {refused:?}");
    }
    // A name that only starts like one is fine.
    a.register_bot(try_name("household"))
        .await
        .expect("a plain name");
    server.stop().await;
}

#[tokio::test]
async fn a_bot_log_streamed_from_beyond_its_next_event_is_refused() {
    let server = TestServer::start().await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "Reader").await;
    let last = a
        .get_bot(authed(&key, pb::GetBotRequest::default()))
        .await
        .expect("the bot")
        .into_inner()
        .last_event_seq;
    for from_seq in [last + 2, u64::MAX] {
        let refused = a
            .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq }))
            .await
            .expect_err("beyond the log");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().contains("from_seq"), "{refused:?}");
    }
    // Its next event is a resume that waits.
    a.stream_bot_events(authed(
        &key,
        pb::StreamBotEventsRequest { from_seq: last + 1 },
    ))
    .await
    .expect("a resume from the next event");
    server.stop().await;
}

#[tokio::test]
async fn a_request_nested_past_the_decoders_depth_gets_a_short_message() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut value = Value {
        kind: Some(V::NumberValue(1.0)),
    };
    for _ in 0..120 {
        value = Value {
            kind: Some(V::ListValue(ListValue {
                values: vec![value],
            })),
        };
    }
    let fields = Struct {
        fields: [("deep".to_owned(), value)].into(),
    };
    let action = pb::Action {
        game: Some(pb::action::Game::Generic(pb::GenericValue {
            name: "roll".into(),
            fields: Some(fields),
        })),
    };
    let refused = client
        .submit_action(pb::SubmitActionRequest {
            game_id: "g".into(),
            choice: Some(pb::submit_action_request::Choice::Action(action)),
            ..Default::default()
        })
        .await
        .expect_err("too deep to decode");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().len() < SHORT,
        "{} bytes: {}",
        refused.message().len(),
        refused.message()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_body_cut_off_on_the_way_is_a_bad_request_not_a_large_one() {
    let server = TestServer::with(Arc::new(MemoryStore::default()), Limits::unthrottled()).await;
    let base = http_face(&server).await;
    let addr = base.trim_start_matches("http://").trim_end_matches('/');
    let bodies: [&[u8]; 2] = [
        // Ten bytes announced, two sent.
        b"POST /api/v1/CreateGame HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{}",
        // A chunk size that is not hexadecimal.
        b"POST /api/v1/CreateGame HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
    ];
    for request in bodies {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
        tcp.write_all(request).await.expect("send");
        tcp.shutdown().await.expect("end of what is sent");
        let mut answer = String::new();
        tcp.read_to_string(&mut answer).await.expect("the answer");
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert!(answer.contains("\"INVALID_ARGUMENT\""), "{answer}");
    }
    assert_eq!(games_listed(&server).await, 0, "no game was made");
    server.stop().await;
}

/// A working bot key sent to a game its bot has no seat in is told that
/// (PERMISSION_DENIED), not that the key is unknown: a bot that takes
/// TOKEN_UNKNOWN for a dead key would register again for nothing.
#[tokio::test]
async fn a_bot_key_on_a_game_without_its_bot_is_not_an_unknown_token() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut a = arena(&server).await;
    let (_, key) = register(&mut a, "wanderer").await;
    let game = druids_tests::create_waiting(&mut client).await.game_id;
    let status = crate::trust::refused(
        client
            .get_state(authed(
                &key,
                pb::GetStateRequest {
                    game_id: game.clone(),
                },
            ))
            .await,
        Code::PermissionDenied,
        "TOKEN_OF_OTHER_GAME",
    );
    assert!(status.message().contains("bot's API key"), "{status:?}");
    let unknown = crate::trust::refused(
        client
            .get_state(authed("not-a-key", pb::GetStateRequest { game_id: game }))
            .await,
        Code::Unauthenticated,
        "TOKEN_UNKNOWN",
    );
    // A bot whose key was rotated away or revoked learns that it may be why.
    assert!(
        unknown.message().contains("once rotated or revoked"),
        "{unknown:?}"
    );
    server.stop().await;
}
