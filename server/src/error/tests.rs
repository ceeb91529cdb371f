//! Errors on the wire: codes, reasons, retry delays and words.

use super::*;

#[test]
fn long_input_is_clipped_at_a_char_boundary() {
    // Byte 64 falls inside an "é" (bytes 1–2, 3–4, …): cut before it.
    let long = format!("a{}", "é".repeat(10_000));
    let quoted = clip(&long);
    assert_eq!(quoted, format!("\"a{}\"… (20001 bytes)", "é".repeat(31)));
    assert_eq!(clip("abc"), "\"abc\"");
}

#[test]
fn every_error_carries_its_reason() {
    let status = Status::from(ServiceError::StaleVersion {
        expected: 1,
        current: 2,
    });
    assert_eq!(status.code(), Code::Aborted);
    let info = status.get_details_error_info().expect("error info");
    assert_eq!(info.reason, "STALE_VERSION");
    assert_eq!(info.domain, ERROR_DOMAIN);
    let status = Status::from(ServiceError::RateLimited {
        what: "reads".into(),
        retry_after: Duration::from_millis(250),
    });
    assert_eq!(
        status.get_details_retry_info().unwrap().retry_delay,
        Some(Duration::from_millis(250))
    );
    let status = Status::from(ServiceError::invalid("game_id", "game_id is required"));
    assert_eq!(
        status.get_details_bad_request().unwrap().field_violations[0].field,
        "game_id"
    );
}

#[test]
fn a_fenced_write_says_the_game_moved_not_that_storage_failed() {
    let fenced = ServiceError::Storage(StoreError::Fenced {
        game_id: "g1".into(),
        epoch: 3,
    });
    let status = Status::from(fenced);
    assert_eq!(status.code(), Code::Unavailable);
    assert_eq!(
        status.get_details_error_info().unwrap().reason,
        "GAME_MOVED"
    );
    assert_eq!(
        status.message(),
        "game g1 is owned by another node now (its lease moved on from epoch 3): \
         nothing was applied; retry (on any node)"
    );
    let down = ServiceError::Storage(StoreError::Corrupt("x".into())).to_string();
    assert!(down.starts_with("storage unavailable"), "{down}");
}
