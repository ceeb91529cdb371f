//! A node's own `--registration` holds for the calls it receives: node 1,
//! started with `closed`, refuses an anonymous RegisterBot although the
//! arena's holder (node 0) is open, and still takes the operator key; node 0
//! registers anyone. Before, the holder's setting alone decided.

use druids_contract::pb;
use druids_tests::authed;
use tonic::Code;
use tonic_types::StatusExt;

use super::{Nodes, OPERATOR, arena};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_node_refuses_registration_whatever_the_holder_says() {
    let nodes = Nodes::start_with("arena_cluster_registration", 2, |i| {
        if i == 1 {
            vec![("DRUIDS_REGISTRATION", "closed")]
        } else {
            Vec::new()
        }
    });
    assert_eq!(nodes.holder(), 0, "the open node holds the arena");
    let request = |name: &str| pb::RegisterBotRequest {
        name: name.to_owned(),
        ..Default::default()
    };
    let refused = arena(&nodes.url(1))
        .register_bot(request("through-the-closed-node"))
        .await
        .expect_err("a closed node refuses");
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    assert_eq!(
        refused
            .get_details_error_info()
            .map(|i| i.reason)
            .as_deref(),
        Some("REGISTRATION_CLOSED")
    );
    arena(&nodes.url(1))
        .register_bot(authed(OPERATOR, request("by-the-operator")))
        .await
        .expect("the operator key registers through the closed node");
    arena(&nodes.url(0))
        .register_bot(request("through-the-open-node"))
        .await
        .expect("the open holder registers anyone");
}
