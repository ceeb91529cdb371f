//! The contract, over real TCP: a `druids-server` on an ephemeral port driven by
//! the generated client. Complete games; every error code provoked, with the
//! state checked unchanged afterwards; idempotent retries; stream resume;
//! hidden information kept hidden. One submodule per concern; the helpers
//! more than one of them uses live here.

mod errors;
mod games;
mod hidden;
mod input;
mod retries;
mod service;
mod streams;

use druids_contract::pb;
use tonic::Code;

const MEDURIS: pb::GameKind = pb::GameKind::Meduris;

fn place_worker(good: pb::MedurisGood) -> pb::Action {
    pb::Action {
        game: Some(pb::action::Game::Meduris(pb::MedurisAction {
            kind: Some(pb::meduris_action::Kind::PlaceWorker(
                pb::meduris_action::PlaceWorker {
                    plateau: good as i32,
                },
            )),
        })),
    }
}

fn submit(
    game_id: &str,
    action: pb::Action,
    version: Option<u64>,
    key: &str,
) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        game_id: game_id.to_owned(),
        choice: Some(pb::submit_action_request::Choice::Action(action)),
        expected_version: version,
        idempotency_key: key.to_owned(),
    }
}

fn assert_code<T: std::fmt::Debug>(result: Result<T, tonic::Status>, code: Code, needle: &str) {
    match result {
        Ok(v) => panic!("expected {code:?}, got a reply: {v:?}"),
        Err(status) => {
            assert_eq!(status.code(), code, "wrong code for {:?}", status.message());
            assert!(
                status.message().contains(needle),
                "message {:?} should mention {needle:?}",
                status.message()
            );
        }
    }
}
