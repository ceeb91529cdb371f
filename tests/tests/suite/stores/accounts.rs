//! [`druids_store::Accounts`]: bots under unique names, their keys rotated
//! and revoked, read back in registration order after a reopen.

use druids_store::{BotRecord, TokenHash};

use super::{Backend, TestDb, bot, on_every_store, refused};

on_every_store!(
    bots_register_under_unique_names_and_rotate_keys,
    revocations_keep_their_first_time_until_a_new_key,
);

/// A taken name registers nothing; a key rotation replaces the hash; bots are
/// listed in registration order (not by id, not by time), also by a store
/// opened again.
async fn bots_register_under_unique_names_and_rotate_keys(backend: Backend) {
    let db = TestDb::new(backend, "arena_bots");
    let store = db.open();
    assert!(store.register_bot(&bot("c3", "gamma", 1)).unwrap());
    assert!(store.register_bot(&bot("a1", "alpha", 2)).unwrap());
    assert!(
        !store.register_bot(&bot("d4", "alpha", 3)).unwrap(),
        "the name is taken"
    );
    assert!(
        refused(store.register_bot(&bot("a1", "delta", 4))),
        "the id is taken"
    );
    assert!(store.register_bot(&bot("b2", "beta", 5)).unwrap());

    store.set_bot_key("a1", &TokenHash([42; 32])).unwrap();
    store.set_bot_key("a1", &TokenHash([43; 32])).unwrap();
    assert!(refused(store.set_bot_key("zz", &TokenHash([1; 32]))));

    let expected = vec![
        bot("c3", "gamma", 1),
        bot("a1", "alpha", 43),
        bot("b2", "beta", 5),
    ];
    assert_eq!(store.bots().unwrap(), expected);
    drop(store);

    let store = db.open();
    assert_eq!(store.bots().unwrap(), expected, "after a reopen");
    assert!(store.register_bot(&bot("e5", "epsilon", 6)).unwrap());
    let ids: Vec<String> = store.bots().unwrap().into_iter().map(|b| b.id).collect();
    assert_eq!(ids, ["c3", "a1", "b2", "e5"], "registration order goes on");
}

/// A revocation keeps its first time (revoking again is no change), an
/// unknown bot is refused, it is read back after a reopen, and a new key
/// clears it.
async fn revocations_keep_their_first_time_until_a_new_key(backend: Backend) {
    let db = TestDb::new(backend, "arena_revoke");
    let store = db.open();
    assert!(store.register_bot(&bot("a1", "alpha", 1)).unwrap());
    assert!(store.register_bot(&bot("b2", "beta", 2)).unwrap());
    store.revoke_bot("b2", 1_700_000_003_000).unwrap();
    store
        .revoke_bot("b2", 1_700_000_004_000)
        .expect("revoking again is no change");
    assert!(refused(store.revoke_bot("zz", 1)), "no such bot");
    let revoked = BotRecord {
        revoked_unix_ms: Some(1_700_000_003_000),
        ..bot("b2", "beta", 2)
    };
    let expected = vec![bot("a1", "alpha", 1), revoked.clone()];
    assert_eq!(store.bots().unwrap(), expected);
    drop(store);

    let store = db.open();
    assert_eq!(store.bots().unwrap(), expected, "after a reopen");
    store.set_bot_key("b2", &TokenHash([7; 32])).unwrap();
    assert_eq!(
        store.bots().unwrap(),
        [bot("a1", "alpha", 1), bot("b2", "beta", 7)],
        "a new key clears the revocation"
    );
    store.revoke_bot("b2", 1_700_000_005_000).unwrap();
    drop(store);

    let store = db.open();
    assert_eq!(
        store.bots().unwrap()[1].revoked_unix_ms,
        Some(1_700_000_005_000),
        "revoked again after the new key, read after a reopen"
    );
}
