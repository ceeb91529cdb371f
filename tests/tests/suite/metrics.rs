//! Prometheus metrics, scraped over HTTP from a live server after real play:
//! the counters and gauges say what happened.

use std::sync::Arc;

use druids_contract::pb;
use druids_tests::{Lcg, TestServer, authed, create, play_random};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET /metrics` over a plain HTTP/1.1 connection.
pub(crate) async fn scrape(addr: std::net::SocketAddr) -> String {
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = String::new();
    tcp.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
}

/// The value of the sample line starting with `series`.
pub(crate) fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find(|l| l.starts_with(series))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no sample {series} in\n{text}"))
}

#[tokio::test]
async fn metrics_count_games_actions_rejections_and_streams() {
    let server = TestServer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = Arc::clone(&server.service);
    tokio::spawn(druids_server::metrics::serve_metrics(
        listener,
        move || service.render_metrics(),
        std::future::pending(),
    ));

    let mut client = server.client().await;
    let (done, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 1).await;
    let n = play_random(&mut client, &done, &tokens, &mut Lcg(1), 100_000)
        .await
        .unwrap();
    let (running, running_tokens) = create(&mut client, pb::GameKind::Meduris, 3, 2).await;
    play_random(&mut client, &running, &running_tokens, &mut Lcg(2), 5)
        .await
        .unwrap();
    // One stale submission.
    let stale = pb::SubmitActionRequest {
        game_id: running.clone(),
        choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
        expected_version: Some(0),
        idempotency_key: String::new(),
    };
    assert!(
        client
            .submit_action(authed(&running_tokens[0], stale))
            .await
            .is_err()
    );
    let _stream = client
        .stream_events(pb::StreamEventsRequest {
            game_id: running.clone(),
            from_seq: 0,
        })
        .await
        .unwrap();

    let text = scrape(addr).await;
    assert_eq!(
        sample(
            &text,
            "druids_actions_total{kind=\"GAME_KIND_MEDURIS\",origin=\"seat\"}"
        ),
        (n + 5) as f64
    );
    assert_eq!(
        sample(&text, "druids_rejected_total{code=\"Aborted\"}"),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            "druids_games{kind=\"GAME_KIND_MEDURIS\",status=\"GAME_STATUS_FINISHED\"}"
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            "druids_games{kind=\"GAME_KIND_MEDURIS\",status=\"GAME_STATUS_RUNNING\"}"
        ),
        1.0
    );
    assert_eq!(sample(&text, "druids_open_streams"), 1.0);
    assert_eq!(sample(&text, "druids_submit_seconds_count"), (n + 5) as f64);
    assert_eq!(
        sample(&text, "druids_persist_seconds_count"),
        (n + 5) as f64
    );
    server.stop().await;
}
