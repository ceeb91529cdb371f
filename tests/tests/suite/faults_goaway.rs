//! The GOAWAY faults (docs/testing-clients.md): after a seat's event N the
//! server sends GOAWAY on that client's connection, while it goes on
//! serving. Graceful (`STREAM_END_GOAWAY`): the stream ends with
//! UNAVAILABLE, a bare HTTP/2 client sees the GOAWAY (no new stream may open
//! on the connection, which then closes), and a new connection resumes the
//! stream. With a low last stream id (`STREAM_END_GOAWAY_UNPROCESSED`): the
//! calls still open, the stream among them, fail as not processed, with no
//! status, after every event up to N.

use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use prost::Message;
use tokio::net::TcpStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::faults::{fault_words, fired, ledger, test_game, testing_server};
use druids_tests::authed;

/// A deadlock guard for one wait, not a budget.
const GUARD: Duration = Duration::from_secs(90);
/// The seq after which the fault fires.
const AFTER: u64 = 3;

async fn guarded<T>(what: &str, f: impl Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, f)
        .await
        .unwrap_or_else(|_| panic!("{what} (deadlock guard)"))
}

/// A gRPC message in its length-prefixed frame.
fn framed(msg: &impl Message) -> Bytes {
    let mut buf = BytesMut::new();
    buf.put_u8(0);
    buf.put_u32(msg.encoded_len() as u32);
    msg.encode(&mut buf).unwrap();
    buf.freeze()
}

/// How a stream on a bare HTTP/2 connection ended, and the connection.
struct BareStream {
    /// The seqs of the events read.
    seqs: Vec<u64>,
    /// The stream's grpc-status, or the h2 error it ended with.
    end: Result<String, h2::Error>,
    send: h2::client::SendRequest<Bytes>,
    driver: tokio::task::JoinHandle<Result<(), h2::Error>>,
}

/// Opens StreamEvents of `token`'s seat on a bare HTTP/2 connection and
/// reads it to its end.
async fn stream_on_bare_h2(addr: &str, id: &str, token: &str) -> BareStream {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    let driver = tokio::spawn(conn);
    let mut send = send.ready().await.unwrap();
    let req = http::Request::post(format!(
        "http://{addr}/druids.v1.DruidsService/StreamEvents"
    ))
    .header("content-type", "application/grpc")
    .header("te", "trailers")
    .header("authorization", format!("Bearer {token}"))
    .body(())
    .unwrap();
    let (response, mut body_out) = send.send_request(req, false).unwrap();
    let msg = pb::StreamEventsRequest {
        game_id: id.to_owned(),
        from_seq: 1,
    };
    body_out.send_data(framed(&msg), true).unwrap();
    let response = guarded("the response head", response).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let mut buf = BytesMut::new();
    let mut seqs = Vec::new();
    while let Some(chunk) = guarded("the stream's data", body.data()).await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) => {
                return BareStream {
                    seqs,
                    end: Err(e),
                    send,
                    driver,
                };
            }
        };
        let _ = body.flow_control().release_capacity(chunk.len());
        buf.extend_from_slice(&chunk);
        while buf.len() >= 5 {
            let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
            if buf.len() < 5 + len {
                break;
            }
            buf.advance(5);
            let event = pb::GameEvent::decode(buf.split_to(len)).unwrap();
            seqs.push(event.seq);
        }
    }
    let end = guarded("the trailers", body.trailers()).await.map(|t| {
        t.expect("a status in trailers")
            .get("grpc-status")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    });
    BareStream {
        seqs,
        end,
        send,
        driver,
    }
}

/// A test game whose seat 0's stream ends at a GOAWAY fault.
struct GoneAway {
    server: druids_tests::TestServer,
    testing: TestingServiceClient<Channel>,
    id: String,
    tokens: Vec<String>,
    key: String,
    /// The server's address, host:port.
    addr: String,
}

/// A test game whose seat 0's stream ends `how` after seq [`AFTER`], and
/// that stream read to its end on a bare HTTP/2 connection.
async fn gone_away(how: pb::StreamEnd) -> (GoneAway, BareStream) {
    let server = testing_server().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let goaway = pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::AfterSeq(AFTER)),
            }),
            how: how as i32,
        })),
    };
    let (id, tokens, key) = test_game(&mut testing, vec![goaway]).await;
    let url = server.url();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let bare = stream_on_bare_h2(&addr, &id, &tokens[0]).await;
    assert_eq!(
        bare.seqs.last(),
        Some(&AFTER),
        "every event up to the fault: {:?}",
        bare.seqs
    );
    let g = GoneAway {
        server,
        testing,
        id,
        tokens,
        key,
        addr,
    };
    (g, bare)
}

/// Reopens seat `token`'s stream from `AFTER` on a new connection: the
/// server goes on, and the stream resumes where it was.
async fn resumes_on_a_new_connection(url: String, id: &str, token: &str) {
    let chan = Channel::from_shared(url).unwrap().connect().await.unwrap();
    let mut client = pb::druids_service_client::DruidsServiceClient::new(chan);
    let msg = pb::StreamEventsRequest {
        game_id: id.to_owned(),
        from_seq: AFTER,
    };
    let mut resumed = client
        .stream_events(authed(token, msg))
        .await
        .expect("StreamEvents on a new connection")
        .into_inner();
    let next = guarded("the resumed stream", resumed.next())
        .await
        .expect("an event")
        .expect("ok");
    assert_eq!(next.seq, AFTER, "resumed where it was");
}

/// The descriptions of the one fault that fired, in the ledger.
async fn fault_words_of(g: &mut GoneAway) -> Vec<String> {
    let entries = ledger(&mut g.testing, &g.id, &g.key).await;
    assert_eq!(fired(&entries), vec![0], "{entries:#?}");
    fault_words(&entries)
}

#[tokio::test]
async fn goaway_after_event_n_closes_that_connection_gracefully_and_a_new_one_resumes() {
    let (mut g, bare) = gone_away(pb::StreamEnd::Goaway).await;
    let addr = g.addr.clone();
    assert_eq!(bare.end.unwrap(), "14", "UNAVAILABLE after the GOAWAY");
    // The connection was gone away from: no new stream may open on it (h2
    // reports the peer's GOAWAY, graceful: NO_ERROR) ...
    let refused = match guarded("a new stream's readiness", bare.send.ready()).await {
        Ok(mut send) => {
            let req = http::Request::post(format!("http://{addr}/grpc.health.v1.Health/Check"))
                .body(())
                .unwrap();
            send.send_request(req, true).map(|_| ()).unwrap_err()
        }
        Err(e) => e,
    };
    assert!(refused.is_go_away(), "{refused:?}");
    assert_eq!(refused.reason(), Some(h2::Reason::NO_ERROR), "{refused:?}");
    // ... and the server closes it once its streams are done.
    guarded("the connection's close", bare.driver)
        .await
        .unwrap()
        .expect("a graceful close");

    // The server goes on: a new connection resumes the stream, and the
    // fault does not fire again.
    resumes_on_a_new_connection(g.server.url(), &g.id, &g.tokens[0]).await;
    let words = fault_words_of(&mut g).await;
    assert!(words[0].contains("sent GOAWAY"), "{words:?}");
}

#[tokio::test]
async fn a_goaway_with_a_low_last_stream_id_fails_the_open_stream_as_not_processed() {
    let (mut g, bare) = gone_away(pb::StreamEnd::GoawayUnprocessed).await;
    // No status: h2 fails the stream because the GOAWAY's last stream id is
    // below it (a graceful GOAWAY names it, and the stream ends with its
    // trailers, as the test above shows).
    let err = bare.end.expect_err("the stream fails, with no trailers");
    assert!(err.is_go_away() && err.is_remote(), "{err:?}");
    assert_eq!(err.reason(), Some(h2::Reason::NO_ERROR), "{err:?}");
    // The server closed the connection: the client's side ends.
    let _ = guarded("the connection's close", bare.driver).await;

    resumes_on_a_new_connection(g.server.url(), &g.id, &g.tokens[0]).await;
    let words = fault_words_of(&mut g).await;
    assert!(words[0].contains("below every call open"), "{words:?}");
}
