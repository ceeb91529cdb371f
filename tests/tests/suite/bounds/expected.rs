//! What the contract answers a request with one field at its maximum, and
//! the code names the HTTP face writes.

use tonic::Code;

/// What the contract answers a field at its maximum with: INVALID_ARGUMENT,
/// unless any value of it is valid.
pub(super) fn expected(method: &str, label: &str, path: &str) -> Code {
    // This server runs without --test-faults: every TestingService call is
    // refused before anything is read (the plans' own bounds, with the mode
    // on, are `faults::`' tests).
    if method.starts_with("druids.v1.TestingService/") {
        return Code::FailedPrecondition;
    }
    match (method.rsplit('/').next().unwrap_or(""), label, path) {
        // Any seed is a seed (the start_from replay's too: its first action
        // does not depend on the dice); an unapplied replay's outcome and
        // status are not read.
        ("CreateGame", "", "seed") => Code::Ok,
        ("CreateGame", "start_from", "start_from.replay.seed") => Code::Ok,
        ("CreateGame", "start_from", p)
            if p.starts_with("start_from.replay.outcome.") || p == "start_from.replay.status" =>
        {
            Code::Ok
        }
        // Page sizes above their maximum are read as the maximum.
        (
            "GetLegalActions" | "ListGames" | "GetLeaderboard" | "GetReplayViews"
            | "GetRatingHistory" | "ListTournaments",
            _,
            "page_size",
        ) => Code::Ok,
        // Any version may be stale.
        ("SubmitAction", _, "expected_version") => Code::Aborted,
        // A log streamed from past its next event is refused, as the game's
        // (StreamBotEvents and StreamTournamentEvents fall to the default).
        _ => Code::InvalidArgument,
    }
}

/// The code name of a gRPC code as the HTTP face writes it.
pub(super) fn code_name(code: Code) -> String {
    let name = format!("{code:?}");
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}
