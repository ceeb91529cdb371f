//! `druids arena-tournament`: text and resuming (its parsing is tested with
//! the command line, `crate::cli`).

use super::*;

fn bot(id: &str, name: &str) -> pb::BotRef {
    pb::BotRef {
        bot_id: id.into(),
        name: name.into(),
        ..Default::default()
    }
}

fn standing(rank: u32, b: pb::BotRef, points: f64) -> pb::Standing {
    pb::Standing {
        rank,
        bot: Some(b),
        points,
        matches: 2,
        strength: Some(pb::FittedStrength {
            strength: 1600.0,
            low: 1400.0,
            high: 1800.0,
        }),
    }
}

#[test]
fn standings_and_events_as_text() {
    let t = pb::Tournament {
        tournament_id: "t1".into(),
        name: "cup".into(),
        kind: pb::GameKind::Dolmen as i32,
        players: 2,
        settings: Some(pb::CreateTournamentRequest {
            format: Some(Format::Swiss(pb::Swiss { rounds: 3 })),
            rated: true,
            ..Default::default()
        }),
        status: pb::TournamentStatus::Open as i32,
        rounds_started: 0,
        rounds_total: 3,
        standings: vec![standing(1, bot("b1", "alpha"), 1.5)],
        results: vec![],
        created_unix_ms: 1_795_000_000_123,
        entrants: vec![bot("b1", "alpha")],
        entry_closes_unix_ms: 1_795_000_060_000,
    };
    let text = tournament_text(&t);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "tournament t1 (cup): dolmen, 2 players, swiss, 3 round(s), rated"
    );
    assert_eq!(
        lines[1],
        "status open, round 0/3, 1 entrant(s), 0 match(es) finished, created 2026-11-18 11:06:40 UTC"
    );
    assert_eq!(lines[2], "entry closes 2026-11-18 11:07:40 UTC");
    assert!(lines[3].starts_with("rank  bot"));
    assert_eq!(
        lines[4],
        "   1  alpha                        1.50        2  1600 (1400–1800)     b1"
    );
    let e = |event| pb::TournamentEvent {
        seq: 4,
        at_unix_ms: 1_795_000_000_123,
        event: Some(event),
    };
    let round = e(Event::RoundStarted(pb::RoundStarted {
        round: 2,
        matches: vec![pb::TournamentMatch {
            match_id: "m1".into(),
            bots: vec![bot("b1", "alpha"), bot("b2", "beta")],
        }],
        byes: vec![bot("b3", "gamma")],
    }));
    assert_eq!(
        event_line(&round),
        "#4 2026-11-18 11:06:40 round 2: m1 (alpha vs beta); byes: gamma"
    );
    assert!(!is_last(&round));
    let done = e(Event::Finished(pb::TournamentFinished {
        standings: vec![
            standing(1, bot("b1", "alpha"), 2.0),
            standing(2, bot("b2", "beta"), 1.0),
        ],
    }));
    assert_eq!(
        event_line(&done),
        "#4 2026-11-18 11:06:40 finished: 1. alpha 2.00, 2. beta 1.00"
    );
    assert!(is_last(&done));
    let cancelled = e(Event::Cancelled(pb::TournamentCancelled {
        reason: "1 entrant".into(),
    }));
    assert!(is_last(&cancelled));
    assert!(event_line(&cancelled).ends_with("cancelled: 1 entrant"));
    assert_eq!(
        status_name(pb::TournamentStatus::Cancelled as i32),
        "cancelled"
    );
}
