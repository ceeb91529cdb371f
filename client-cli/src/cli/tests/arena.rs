//! The arena's commands as typed: bots' keys, challenges, tournaments and
//! the ladder's event flags, each parsed and turned into its request.

use clap::Parser;
use druids_contract::pb;
use druids_contract::pb::create_tournament_request::Format;

use crate::arena::accounts::{revoke_request, rotate_request};
use crate::arena::challenge::challenge_request;
use crate::arena::tournament::{CreateArgs, TournamentCommand, create_request};
use crate::cli::{Cli, Command, parse_without_env};
use crate::connect::CliError;

fn parse(args: &[&str]) -> Result<Command, clap::Error> {
    Cli::try_parse_from(args.iter().copied()).map(|c| c.command)
}

fn parsed(args: &[&str]) -> Command {
    parse_without_env(args.iter().copied()).unwrap().command
}

#[test]
fn a_challenge_names_its_opponents_and_maybe_a_clock() {
    let Command::Challenge(c) = parse(&[
        "druids",
        "challenge",
        "--key",
        "k",
        "--game",
        "dolmen",
        "--opponent",
        "b1",
        "--opponent",
        "b2",
        "--rated",
        "--expires-secs",
        "120",
        "--decision-ms",
        "500",
        "--time-bank-ms",
        "0",
    ])
    .unwrap() else {
        panic!("challenge")
    };
    assert_eq!(
        challenge_request(&c).unwrap(),
        pb::ChallengeRequest {
            kind: pb::GameKind::Dolmen as i32,
            opponents: vec!["b1".into(), "b2".into()],
            rated: true,
            expires_in_secs: 120,
            time_control: Some(pb::TimeControl {
                decision_ms: 500,
                time_bank_ms: 0
            }),
        }
    );
    let Command::Challenge(c) = parse(&[
        "druids",
        "challenge",
        "--key",
        "k",
        "--game",
        "meduris",
        "--opponent",
        "b1",
    ])
    .unwrap() else {
        panic!("challenge")
    };
    let r = challenge_request(&c).unwrap();
    assert_eq!(
        (r.expires_in_secs, r.time_control, r.rated),
        (0, None, false)
    );
    let four = [
        "druids",
        "challenge",
        "--key",
        "k",
        "--game",
        "meduris",
        "--opponent",
        "a",
        "--opponent",
        "b",
        "--opponent",
        "c",
        "--opponent",
        "d",
    ];
    let Command::Challenge(c) = parse(&four).unwrap() else {
        panic!("challenge")
    };
    assert!(matches!(challenge_request(&c), Err(CliError::Usage(_))));
    // No opponent; half a clock; a clock out of range; an unknown game.
    let base = ["druids", "challenge", "--key", "k", "--game", "meduris"];
    assert!(parse(&base).is_err());
    for extra in [
        &["--opponent", "b", "--decision-ms", "500"][..],
        &["--opponent", "b", "--time-bank-ms", "500"],
        &[
            "--opponent",
            "b",
            "--decision-ms",
            "50",
            "--time-bank-ms",
            "0",
        ],
        &["--opponent", "b", "--expires-secs", "601"],
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        assert!(parse(&args).is_err(), "{extra:?}");
    }
}

#[test]
fn an_answer_is_accept_or_decline() {
    let Command::AnswerChallenge(a) =
        parse(&["druids", "answer-challenge", "c1", "--key", "k", "--accept"]).unwrap()
    else {
        panic!("answer-challenge")
    };
    assert_eq!((a.challenge_id.as_str(), a.accept), ("c1", true));
    let Command::AnswerChallenge(a) = parse(&[
        "druids",
        "answer-challenge",
        "c1",
        "--key",
        "k",
        "--decline",
    ])
    .unwrap() else {
        panic!("answer-challenge")
    };
    assert!(!a.accept && a.decline);
    let answer = ["druids", "answer-challenge", "c1", "--key", "k"];
    assert!(parse(&answer).is_err());
    assert!(parse(&[&answer[..], &["--accept", "--decline"]].concat()).is_err());
}

#[test]
fn rotate_and_revoke_pick_their_key() {
    let Command::RotateKey(r) = parsed(&["druids", "rotate-key", "--key", "k"]) else {
        panic!("rotate-key")
    };
    let (token, req) = rotate_request(&r).unwrap();
    assert_eq!((token.as_str(), req.bot_id.as_str()), ("k", ""));
    let Command::RotateKey(r) = parsed(&[
        "druids",
        "rotate-key",
        "--bot-id",
        "b1",
        "--operator-key",
        "op",
    ]) else {
        panic!("rotate-key")
    };
    let (token, req) = rotate_request(&r).unwrap();
    assert_eq!((token.as_str(), req.bot_id.as_str()), ("op", "b1"));
    let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "--key", "k"]) else {
        panic!("revoke-bot")
    };
    let (token, req) = revoke_request(&r).unwrap();
    assert_eq!((token.as_str(), req.bot_id.as_str()), ("k", ""));
    let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "b1", "--operator-key", "op"])
    else {
        panic!("revoke-bot")
    };
    let (token, req) = revoke_request(&r).unwrap();
    assert_eq!((token.as_str(), req.bot_id.as_str()), ("op", "b1"));
    let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "b1", "--key", "k"]) else {
        panic!("revoke-bot")
    };
    assert_eq!(revoke_request(&r).unwrap().0, "k");
    let Command::RevokeBot(r) = parsed(&["druids", "revoke-bot", "--operator-key", "op"]) else {
        panic!("revoke-bot")
    };
    assert!(matches!(revoke_request(&r), Err(CliError::Usage(_))));
    // --bot-id needs the operator key; no key at all is an error (unless
    // the environment gives one).
    let parse = |args: &[&str]| parse_without_env(args.iter().copied());
    assert!(parse(&["druids", "rotate-key", "--key", "k", "--bot-id", "b1"]).is_err());
    assert!(parse(&["druids", "rotate-key"]).is_err());
    assert!(parse(&["druids", "revoke-bot", "b1"]).is_err());
}

#[test]
fn events_go_with_an_api_key() {
    // --events: with or without --seek, never with --game-id;
    // --accept-challenges only with it.
    let events = [
        "druids",
        "bot",
        "--key",
        "k",
        "--events",
        "--accept-challenges",
    ];
    let Command::Bot(b) = Cli::try_parse_from(events).unwrap().command else {
        panic!("bot")
    };
    assert!(b.events && b.accept_challenges && b.seek.is_none());
    let both = [
        "druids", "bot", "--key", "k", "--events", "--seek", "dolmen:2",
    ];
    assert!(Cli::try_parse_from(both).is_ok());
    let one = ["druids", "bot", "--game-id", "g", "--token", "t"];
    assert!(Cli::try_parse_from([&one[..], &["--events"]].concat()).is_err());
    let ladder = ["druids", "bot", "--key", "k", "--seek", "dolmen:2"];
    assert!(Cli::try_parse_from([&ladder[..], &["--accept-challenges"]].concat()).is_err());
}

fn tournament(args: &[&str]) -> Result<TournamentCommand, clap::Error> {
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
    match tournament(&args)? {
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
    assert!(parse_without_env(without_key).is_err());
    let op = [&no_key[..], &["--swiss", "1", "--operator-key", "op"]].concat();
    let TournamentCommand::Create(c) = tournament(&op).unwrap() else {
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
        assert_eq!(tournament(&args).is_ok(), ok, "{players}");
    }
}

#[test]
fn show_join_and_follow_parse() {
    assert!(matches!(
        tournament(&["show", "t1", "--json"]).unwrap(),
        TournamentCommand::Show { tournament_id, json: true } if tournament_id == "t1"
    ));
    assert!(matches!(
        tournament(&["join", "t1", "--key", "k"]).unwrap(),
        TournamentCommand::Join { tournament_id, key, json: false } if tournament_id == "t1" && key == "k"
    ));
    assert!(matches!(
        tournament(&["follow", "t1", "--from-seq", "7"]).unwrap(),
        TournamentCommand::Follow {
            from_seq: 7,
            json: false,
            ..
        }
    ));
    assert!(tournament(&["show"]).is_err());
    assert!(tournament(&[]).is_err());
}
