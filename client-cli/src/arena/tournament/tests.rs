//! `druids arena-tournament`: parsing, requests, text and resuming.

use super::*;
use crate::cli::{Cli, Command};
use clap::Parser;

fn parse(args: &[&str]) -> Result<TournamentCommand, clap::Error> {
    let args = ["druids", "arena-tournament"].iter().chain(args).copied();
    match Cli::try_parse_from(args)?.command {
        Command::ArenaTournament(t) => Ok(t.command),
        _ => panic!("arena-tournament"),
    }
}

fn create(extra: &[&str]) -> Result<CreateArgs, clap::Error> {
    let base = [
        "create",
        "--name",
        "cup",
        "--game",
        "meduris",
        "--players",
        "2",
        "--key",
        "k",
    ];
    let args: Vec<&str> = base.iter().chain(extra).copied().collect();
    match parse(&args)? {
        TournamentCommand::Create(c) => Ok(c),
        _ => panic!("create"),
    }
}

#[test]
fn create_builds_its_request() {
    let c = create(&[
        "--entrant",
        "b1",
        "--entrant",
        "b2",
        "--swiss",
        "5",
        "--rated",
        "--decision-ms",
        "1000",
        "--time-bank-ms",
        "5000",
        "--open-for",
        "600",
        "--max-entrants",
        "16",
    ])
    .unwrap();
    assert_eq!(
        create_request(&c),
        pb::CreateTournamentRequest {
            name: "cup".into(),
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            entrants: vec!["b1".into(), "b2".into()],
            format: Some(Format::Swiss(pb::Swiss { rounds: 5 })),
            rated: true,
            time_control: Some(pb::TimeControl {
                decision_ms: 1000,
                time_bank_ms: 5000
            }),
            open_entry: Some(pb::OpenEntry {
                closes_in_secs: 600,
                max_entrants: 16
            }),
        }
    );
    let r = create_request(&create(&["--round-robin", "--games-per-group", "3"]).unwrap());
    assert_eq!(
        (r.format, r.open_entry, r.time_control, r.rated),
        (
            Some(Format::RoundRobin(pb::RoundRobin { games_per_group: 3 })),
            None,
            None,
            false
        )
    );
    let r = create_request(&create(&["--gauntlet", "champ", "--games", "4"]).unwrap());
    assert_eq!(
        r.format,
        Some(Format::Gauntlet(pb::Gauntlet {
            opponent: "champ".into(),
            games: 4
        }))
    );
    let r = create_request(&create(&["--round-robin"]).unwrap());
    assert_eq!(
        r.format,
        Some(Format::RoundRobin(pb::RoundRobin { games_per_group: 0 }))
    );
}

#[test]
fn create_needs_one_format_and_consistent_flags() {
    for bad in [
        &[][..],
        &["--round-robin", "--swiss", "3"],
        &["--swiss", "3", "--gauntlet", "x"],
        &["--swiss", "0"],
        &["--swiss", "3", "--games-per-group", "2"],
        &["--round-robin", "--games", "2"],
        &["--round-robin", "--max-entrants", "8"],
        &["--round-robin", "--open-for", "0"],
        &["--round-robin", "--open-for", "86401"],
        &["--round-robin", "--decision-ms", "1000"],
        &["--round-robin", "--time-bank-ms", "1000"],
    ] {
        assert!(create(bad).is_err(), "{bad:?}");
    }
    // A player count, a known game, some key.
    let no_key = [
        "create",
        "--name",
        "n",
        "--game",
        "dolmen",
        "--players",
        "2",
    ];
    let without_key = [
        &["druids", "arena-tournament"][..],
        &no_key,
        &["--swiss", "1"],
    ]
    .concat();
    assert!(crate::cli::parse_without_env(without_key).is_err());
    let op = [&no_key[..], &["--swiss", "1", "--operator-key", "op"]].concat();
    let TournamentCommand::Create(c) = parse(&op).unwrap() else {
        panic!("create")
    };
    assert_eq!(c.operator_key.as_deref(), Some("op"));
    // Fewer than 2 is no game; 5 is Die Dolmengötter's most (the server
    // holds each game to its bounds).
    for (players, ok) in [("1", false), ("5", true)] {
        let args = [
            "create",
            "--name",
            "n",
            "--game",
            "dolmen",
            "--players",
            players,
            "--swiss",
            "1",
            "--key",
            "k",
        ];
        assert_eq!(parse(&args).is_ok(), ok, "{players}");
    }
}

#[test]
fn show_join_and_follow_parse() {
    assert!(matches!(
        parse(&["show", "t1", "--json"]).unwrap(),
        TournamentCommand::Show { tournament_id, json: true } if tournament_id == "t1"
    ));
    assert!(matches!(
        parse(&["join", "t1", "--key", "k"]).unwrap(),
        TournamentCommand::Join { tournament_id, key, json: false } if tournament_id == "t1" && key == "k"
    ));
    assert!(matches!(
        parse(&["follow", "t1", "--from-seq", "7"]).unwrap(),
        TournamentCommand::Follow {
            from_seq: 7,
            json: false,
            ..
        }
    ));
    assert!(parse(&["show"]).is_err());
    assert!(parse(&[]).is_err());
}

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
