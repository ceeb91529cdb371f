//! Idempotency across nodes: a keyed create or join retried on another node
//! gets the first answer.

use std::time::Duration;

use druids_contract::pb;

use super::{Nodes, retryable};

/// CreateGame and JoinGame with a `request_id` are retry-safe across nodes:
/// the same request sent to A twice, then to B, gets A's answer every time
/// (the same game, the same tokens); after A is killed, B (having taken the
/// game over) answers retries of A's create and join as A did; one game was
/// created.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_keyed_create_or_join_retried_on_another_node_gets_the_first_answer() {
    let mut nodes = Nodes::start("cluster_request_ids", 2);
    let (mut a, mut b) = (nodes.client(0), nodes.client(1));
    let create = pb::CreateGameRequest {
        kind: pb::GameKind::Meduris as i32,
        players: 3,
        open_seats: vec![2],
        request_id: "create-once".into(),
        ..Default::default()
    };
    let first = a.create_game(create.clone()).await.expect("A").into_inner();
    let again = a
        .create_game(create.clone())
        .await
        .expect("A again")
        .into_inner();
    let on_b = b.create_game(create.clone()).await.expect("B").into_inner();
    for reply in [&again, &on_b] {
        assert_eq!(reply.game_id, first.game_id);
        assert_eq!(reply.seats, first.seats, "the same tokens");
    }
    let join = pb::JoinGameRequest {
        game_id: first.game_id.clone(),
        seat: Some(2),
        name: "late".into(),
        request_id: "join-once".into(),
    };
    let joined = a
        .join_game(join.clone())
        .await
        .expect("join on A")
        .into_inner();

    // A dies: the retries reach B, which answers as A did once it has taken
    // the game over.
    nodes.kill(0);
    let mut picker = nodes.picker(3);
    let joined_again = on_some_node!(picker, b => b.join_game(join.clone()).await);
    assert_eq!(joined_again, joined, "the same seat and token");
    let created_again = on_some_node!(picker, b => b.create_game(create.clone()).await);
    assert_eq!(created_again.game_id, first.game_id);
    assert_eq!(created_again.seats, first.seats, "the same tokens");
    let listed = nodes
        .client(1)
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list")
        .into_inner();
    assert_eq!(listed.games.len(), 1, "one game created: {listed:?}");
}
