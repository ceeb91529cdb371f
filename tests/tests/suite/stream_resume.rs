//! The README's stream rules followed literally: a client that skips every
//! event whose `seq` it has already seen, and that opens or resumes its stream
//! as the README says (`from_seq` 0, or the last seq seen + 1), still gets
//! the `DecisionNeeded` it must answer, and sees no event twice. A stream from
//! 0 while a seat must decide used to repeat that seat's `DecisionNeeded`
//! with an old seq, which such a client dropped, and then waited for ever.

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_contract::pb::game_event::Body;
use druids_tests::{Lcg, TestServer, authed, create, state};
use tokio_stream::StreamExt;
use tonic::Streaming;
use tonic::transport::Channel;

/// A client that keeps the highest seq it has seen and skips any event not
/// newer, as a resumable stream invites.
struct LiteralClient {
    last_seen: u64,
    /// Every event it took, in order.
    taken: Vec<pb::GameEvent>,
}

impl LiteralClient {
    /// Reads `stream` until it takes a `DecisionNeeded` naming `seat` (true),
    /// or the stream ends (false). Only a deadlock guard bounds the wait.
    async fn until_my_decision(
        &mut self,
        stream: &mut Streaming<pb::GameEvent>,
        seat: u32,
    ) -> bool {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(60), stream.next())
                .await
                .expect("deadlock guard: the stream sent nothing for 60 s");
            let Some(event) = next else { return false };
            let event = event.expect("event");
            if event.seq <= self.last_seen && self.last_seen > 0 {
                continue; // seen already: the literal rule skips it
            }
            self.last_seen = event.seq;
            let mine = matches!(&event.body, Some(Body::DecisionNeeded(d)) if d.seat == seat);
            self.taken.push(event);
            if mine {
                return true;
            }
        }
    }
}

async fn open(
    client: &mut DruidsServiceClient<Channel>,
    id: &str,
    token: &str,
    from_seq: u64,
) -> Streaming<pb::GameEvent> {
    client
        .stream_events(authed(
            token,
            pb::StreamEventsRequest {
                game_id: id.to_owned(),
                from_seq,
            },
        ))
        .await
        .expect("stream")
        .into_inner()
}

/// Plays the first legal action of the seat holding `token`.
async fn act(client: &mut DruidsServiceClient<Channel>, id: &str, token: &str, rng: &mut Lcg) {
    let legal = druids_tests::legal(client, id, token, false)
        .await
        .expect("legal actions");
    let pick = rng.below(legal.actions.len()) as u32;
    client
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: id.to_owned(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                expected_version: Some(legal.version),
                idempotency_key: format!("{}-{pick}", legal.version),
            },
        ))
        .await
        .expect("submit");
}

#[tokio::test]
async fn a_client_that_skips_seen_seqs_gets_the_pending_decision_after_a_snapshot() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, 5).await;
    let mut rng = Lcg(11);
    // Each seat's literal client; every decision it answers, it first
    // reconnects from 0 (a fresh snapshot while its own decision is pending),
    // every other time it resumes with the last seq seen + 1.
    let mut clients: Vec<LiteralClient> = (0..2)
        .map(|_| LiteralClient {
            last_seen: 0,
            taken: Vec::new(),
        })
        .collect();
    for turn in 0..30u32 {
        let to_act = state(&mut client, &id, None).await.to_act.expect("running");
        let seat = to_act as usize;
        let token = &tokens[seat];
        let me = &mut clients[seat];
        let from = if turn % 2 == 0 { 0 } else { me.last_seen + 1 };
        let from = if me.last_seen == 0 { 0 } else { from };
        let mut stream = open(&mut client, &id, token, from).await;
        assert!(
            me.until_my_decision(&mut stream, to_act).await,
            "turn {turn}: seat {seat} (from_seq {from}) never took its DecisionNeeded"
        );
        drop(stream);
        act(&mut client, &id, token, &mut rng).await;
    }
    // What each client took is the log as its seat sees it, no event twice
    // and none missing, apart from the snapshots standing for what came
    // before them.
    for (seat, me) in clients.iter().enumerate() {
        let seqs: Vec<u64> = me.taken.iter().map(|e| e.seq).collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "seat {seat}: {seqs:?}"
        );
        let mut full = open(&mut client, &id, &tokens[seat], 1).await;
        let mut log = Vec::new();
        while log.len() < me.last_seen as usize {
            log.push(full.next().await.expect("event").expect("event"));
        }
        for event in &me.taken {
            if matches!(event.body, Some(Body::Snapshot(_))) {
                continue;
            }
            let mut logged = log[event.seq as usize - 1].clone();
            if let (Some(Body::DecisionNeeded(d)), Some(Body::DecisionNeeded(l))) =
                (&event.body, &mut logged.body)
            {
                l.deadline_unix_ms = d.deadline_unix_ms;
            }
            assert_eq!(event, &logged, "seat {seat}: seq {}", event.seq);
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_timeout_that_starts_the_autopilot_is_logged_before_the_next_decision() {
    let (server, clock) = TestServer::on_manual_clock(1_700_000_000_000).await;
    let mut client = server.client().await;
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            seed: Some(3),
            options: Some(pb::GameOptions {
                decision_ms: Some(1_000),
                autopilot_after: Some(1),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let id = created.game_id;
    let tokens: Vec<String> = created.seats.into_iter().map(|s| s.token).collect();
    let first = state(&mut client, &id, None).await.to_act.expect("running");
    clock.advance(1_000);
    server.service.expire_due();
    // The seat that timed out is on autopilot now, which decides its turns
    // at once; the game waits for the other seat.
    let view = loop {
        let view = state(&mut client, &id, None).await;
        if view.to_act != Some(first) {
            break view;
        }
        server.service.expire_due();
    };
    assert_eq!(view.autopilot_seats, [first]);
    let other = view.to_act.expect("running");
    let mut me = LiteralClient {
        last_seen: 0,
        taken: Vec::new(),
    };
    let mut stream = open(&mut client, &id, &tokens[other as usize], 0).await;
    assert!(me.until_my_decision(&mut stream, other).await);
    let seqs: Vec<_> = me.taken.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        [view.last_seq - 1, view.last_seq],
        "snapshot, then the decision"
    );
    server.stop().await;
}
