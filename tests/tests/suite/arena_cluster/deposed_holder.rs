//! A holder deposed by another node's takeover has its arena writes refused
//! by the database.

use druids_store::Sync;
use druids_store::postgres::PostgresStore;
use druids_tests::postgres::PgCluster;

fn bot_record(name: &str) -> druids_store::BotRecord {
    druids_store::BotRecord {
        id: format!("id-{name}"),
        name: name.to_owned(),
        description: String::new(),
        owner_contact: String::new(),
        key_hash: druids_store::TokenHash::of(name),
        registered_unix_ms: 1,
        revoked_unix_ms: None,
    }
}

/// Fencing, on the database itself: once another node took the arena over,
/// a write of the old holder is refused and changes nothing.
#[test]
fn a_deposed_holders_arena_writes_are_refused() {
    use druids_store::{Accounts, ArenaLease, Leases, StoreError};
    let db = PgCluster::shared().database("arena_cluster_fence");
    let (one, two) = (
        PostgresStore::open(&db, Sync::Full).unwrap(),
        PostgresStore::open(&db, Sync::Full).unwrap(),
    );
    one.renew("n1", "http://n1", 60_000).unwrap();
    two.renew("n2", "http://n2", 60_000).unwrap();
    let free = one.arena_holder().unwrap();
    assert_eq!(free.node, None, "no node held the arena yet");
    let first = one
        .claim_arena("n1", free.epoch)
        .unwrap()
        .expect("a free arena");
    one.fence_arena(Some(("n1", first)));
    one.register_bot(&bot_record("before")).unwrap();
    assert_eq!(
        two.claim_arena("n2", first).unwrap(),
        None,
        "a live holder keeps the arena"
    );
    // The holder's lease runs out (as when it stalls or dies): n2 takes over.
    one.release("n1").unwrap();
    let second = two.claim_arena("n2", first).unwrap().expect("a takeover");
    assert!(second > first);
    two.fence_arena(Some(("n2", second)));
    let refused = one
        .register_bot(&bot_record("late"))
        .expect_err("the deposed holder's write");
    assert!(matches!(refused, StoreError::Fenced { .. }), "{refused:?}");
    two.register_bot(&bot_record("after")).unwrap();
    let names: Vec<String> = two.bots().unwrap().into_iter().map(|b| b.name).collect();
    assert_eq!(names, ["before", "after"]);
    let holder = two.arena_holder().unwrap();
    assert_eq!((holder.node.as_deref(), holder.epoch), (Some("n2"), second));
}
