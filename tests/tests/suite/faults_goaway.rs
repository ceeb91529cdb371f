//! The GOAWAY fault (docs/testing-clients.md): after a seat's event N the
//! server sends GOAWAY on that client's connection and ends the stream with
//! UNAVAILABLE, while it goes on serving: a bare HTTP/2 client sees the
//! GOAWAY (no new stream may open on the connection, which then closes), and
//! a new connection resumes the stream.

use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use druids_contract::pb;
use druids_contract::pb::testing_service_client::TestingServiceClient;
use prost::Message;
use tokio::net::TcpStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::faults::{fired, ledger, test_game, testing_server};
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

/// Opens StreamEvents of `token`'s seat on a bare HTTP/2 connection; returns
/// the seqs read and the stream's grpc-status, and the connection's sender.
async fn stream_on_bare_h2(
    addr: &str,
    id: &str,
    token: &str,
) -> (
    Vec<u64>,
    String,
    h2::client::SendRequest<Bytes>,
    tokio::task::JoinHandle<Result<(), h2::Error>>,
) {
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
        let chunk = chunk.unwrap();
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
    let trailers = guarded("the trailers", body.trailers())
        .await
        .unwrap()
        .expect("a status in trailers");
    let status = trailers
        .get("grpc-status")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (seqs, status, send, driver)
}

#[tokio::test]
async fn goaway_after_event_n_closes_that_connection_gracefully_and_a_new_one_resumes() {
    let server = testing_server().await;
    let mut testing = TestingServiceClient::connect(server.url()).await.unwrap();
    let goaway = pb::Fault {
        seat: 0,
        kind: Some(pb::fault::Kind::EndStream(pb::EndStreamFault {
            at: Some(pb::StreamPoint {
                point: Some(pb::stream_point::Point::AfterSeq(AFTER)),
            }),
            how: pb::StreamEnd::Goaway as i32,
        })),
    };
    let (id, tokens, key) = test_game(&mut testing, vec![goaway]).await;
    let url = server.url();
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let (seqs, status, send, driver) = stream_on_bare_h2(addr, &id, &tokens[0]).await;
    assert_eq!(
        seqs.last(),
        Some(&AFTER),
        "events up to the fault: {seqs:?}"
    );
    assert_eq!(status, "14", "UNAVAILABLE after the GOAWAY");
    // The connection was gone away from: no new stream may open on it (h2
    // reports the peer's GOAWAY, graceful: NO_ERROR) ...
    let refused = match guarded("a new stream's readiness", send.ready()).await {
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
    guarded("the connection's close", driver)
        .await
        .unwrap()
        .expect("a graceful close");

    // The server goes on: a new connection resumes the stream, and the
    // fault does not fire again.
    let chan = Channel::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = pb::druids_service_client::DruidsServiceClient::new(chan);
    let msg = pb::StreamEventsRequest {
        game_id: id.clone(),
        from_seq: AFTER,
    };
    let mut resumed = client
        .stream_events(authed(&tokens[0], msg))
        .await
        .expect("StreamEvents on a new connection")
        .into_inner();
    let next = guarded("the resumed stream", resumed.next())
        .await
        .expect("an event")
        .expect("ok");
    assert_eq!(next.seq, AFTER, "resumed where it was");

    let entries = ledger(&mut testing, &id, &key).await;
    assert_eq!(fired(&entries), vec![0], "{entries:#?}");
    let words: Vec<_> = entries
        .iter()
        .filter_map(|e| match &e.entry {
            Some(pb::ledger_entry::Entry::Fault(f)) => Some(f.description.clone()),
            _ => None,
        })
        .collect();
    assert!(words[0].contains("sent GOAWAY"), "{words:?}");
}
