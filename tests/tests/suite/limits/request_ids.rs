//! CreateGame and JoinGame with a request id can be retried safely, also
//! across a restart: the same id and request answer the first answer again,
//! another request under the same id is refused as `KEY_REUSED`.

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, play_random};
use tonic::Code;

use super::MEDURIS;
use crate::trust::refused;

async fn keyed_create(
    client: &mut DruidsServiceClient<tonic::transport::Channel>,
    request_id: &str,
    seed: u64,
) -> Result<pb::CreateGameResponse, tonic::Status> {
    client
        .create_game(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 3,
            seed: Some(seed),
            open_seats: vec![2],
            request_id: request_id.into(),
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner())
}

async fn keyed_join(
    client: &mut DruidsServiceClient<tonic::transport::Channel>,
    game_id: &str,
    request_id: &str,
    name: &str,
) -> Result<pb::JoinGameResponse, tonic::Status> {
    client
        .join_game(pb::JoinGameRequest {
            game_id: game_id.into(),
            seat: None,
            name: name.into(),
            request_id: request_id.into(),
        })
        .await
        .map(|r| r.into_inner())
}

crate::stores::on_each_store!(create_and_join_with_a_request_id_are_retry_safe_across_restarts);

async fn create_and_join_with_a_request_id_are_retry_safe_across_restarts(
    backend: crate::stores::Backend,
) {
    let db = crate::stores::TestDb::new(backend, "requests");
    let open = || db.open();
    let server = TestServer::with(open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let first = keyed_create(&mut client, "create-7f3a", 5).await.unwrap();
    let again = keyed_create(&mut client, "create-7f3a", 5).await.unwrap();
    assert_eq!(again.game_id, first.game_id);
    assert_eq!(again.seats, first.seats, "the same tokens");
    let other = keyed_create(&mut client, "create-7f3a", 6).await;
    refused(other, Code::AlreadyExists, "KEY_REUSED");
    let joined = keyed_join(&mut client, &first.game_id, "join-91c2", "late")
        .await
        .unwrap();
    assert!(joined.started);
    let rejoined = keyed_join(&mut client, &first.game_id, "join-91c2", "late")
        .await
        .unwrap();
    assert_eq!(rejoined, joined);
    refused(
        keyed_join(&mut client, &first.game_id, "join-91c2", "someone else").await,
        Code::AlreadyExists,
        "KEY_REUSED",
    );
    server.stop().await;

    // After a restart on the same file: the same answers, nothing new.
    let server = TestServer::with(open(), Limits::unthrottled()).await;
    let mut client = server.client().await;
    let after = keyed_create(&mut client, "create-7f3a", 5).await.unwrap();
    assert_eq!(
        (&after.game_id, &after.seats),
        (&first.game_id, &first.seats)
    );
    let rejoined = keyed_join(&mut client, &first.game_id, "join-91c2", "late")
        .await
        .unwrap();
    assert_eq!(rejoined, joined);
    let games = client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1);
    // The tokens work: every seat can play.
    let mut tokens = vec![String::new(); 3];
    for s in after.seats.iter().chain(rejoined.seat.iter()) {
        tokens[s.seat as usize] = s.token.clone();
    }
    play_random(&mut client, &first.game_id, &tokens, &mut Lcg(2), 10)
        .await
        .unwrap();
    server.stop().await;
}
