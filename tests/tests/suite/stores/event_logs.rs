//! [`druids_store::EventLogs`]: each bot's and each tournament's log,
//! appended by seq, read from a seq with a limit, its last seq known (0 for
//! none), a stored seq never overwritten, an unknown owner refused, all
//! after a reopen. The two logs are checked alike: they are one concern.

use druids_store::{EventLog, Store};

use super::tournaments::tournament;
use super::{Backend, TestDb, bot, on_every_store, refused};

on_every_store!(event_logs_page_from_a_seq);

async fn event_logs_page_from_a_seq(backend: Backend) {
    let db = TestDb::new(backend, "event_logs");
    let store = db.open();
    assert!(store.register_bot(&bot("a", "a", 1)).unwrap());
    assert!(store.register_bot(&bot("b", "b", 2)).unwrap());
    store.create_tournament(&tournament("a", b"1")).unwrap();
    store.create_tournament(&tournament("b", b"2")).unwrap();
    for log in [EventLog::Bot, EventLog::Tournament] {
        append_and_refuse(store.as_ref(), log);
    }
    drop(store);

    let store = db.open();
    for log in [EventLog::Bot, EventLog::Tournament] {
        read_back(store.as_ref(), log);
    }
}

fn event(log: EventLog, owner: &str, seq: u64) -> Vec<u8> {
    format!("{log:?}:{owner}:{seq}").into_bytes()
}

/// Owner `a` gets 10 events and `b` 3; a taken seq and an unknown owner
/// are refused and change nothing.
fn append_and_refuse(store: &dyn Store, log: EventLog) {
    assert_eq!(store.last_event(log, "a").unwrap(), 0, "{log:?}");
    assert!(store.events(log, "a", 0, 10).unwrap().is_empty());
    for seq in 1..=10 {
        store
            .append_event(log, "a", seq, &event(log, "a", seq))
            .unwrap();
    }
    for seq in 1..=3 {
        store
            .append_event(log, "b", seq, &event(log, "b", seq))
            .unwrap();
    }
    assert!(
        refused(store.append_event(log, "a", 4, b"other")),
        "{log:?}: a stored seq is kept"
    );
    assert!(
        refused(store.append_event(log, "nobody", 1, b"x")),
        "{log:?}: no such owner"
    );
    assert_eq!(
        store.events(log, "a", 4, 1).unwrap(),
        [(4, event(log, "a", 4))],
        "{log:?}: the refused append changed nothing"
    );
    assert!(store.events(log, "nobody", 0, 10).unwrap().is_empty());
}

/// What [`append_and_refuse`] stored, paged after a reopen; the log goes on.
fn read_back(store: &dyn Store, log: EventLog) {
    let page = |from: u64, limit: usize| store.events(log, "a", from, limit).unwrap();
    let a = |seqs: &[u64]| -> Vec<(u64, Vec<u8>)> {
        seqs.iter().map(|&s| (s, event(log, "a", s))).collect()
    };
    assert_eq!(page(4, 3), a(&[4, 5, 6]), "{log:?}");
    assert_eq!(page(0, 2), a(&[1, 2]));
    assert_eq!(page(9, 100), a(&[9, 10]));
    assert!(page(11, 100).is_empty());
    assert!(page(1, 0).is_empty());
    assert_eq!(page(1, usize::MAX).len(), 10);
    assert!(page(u64::MAX, 1).is_empty());
    assert_eq!(
        store.events(log, "b", 2, 10).unwrap(),
        [2, 3].map(|s| (s, event(log, "b", s)))
    );
    assert_eq!(store.last_event(log, "a").unwrap(), 10);
    assert_eq!(store.last_event(log, "b").unwrap(), 3);
    assert_eq!(store.last_event(log, "nobody").unwrap(), 0);
    assert!(store.events(log, "nobody", 0, 10).unwrap().is_empty());

    store
        .append_event(log, "b", 4, &event(log, "b", 4))
        .unwrap();
    assert_eq!(store.last_event(log, "b").unwrap(), 4);
}
