//! The command line as a whole: flags, subcommands and their checks, read
//! as `druids …` would be. Each command's own parsing is tested here, beside
//! the one parser, so that the commands' modules never reach back up to it.

mod arena;

use super::*;
use crate::args::StrategyArg;
use clap::{CommandFactory, FromArgMatches};
use druids_contract::pb;

#[test]
fn the_command_line_is_consistent() {
    Cli::command().debug_assert();
    command().debug_assert();
}

#[test]
fn conformance_shows_and_reads_no_druids_server() {
    let help = |sub: &str| {
        let e = command()
            .try_get_matches_from(["druids", sub, "--help"])
            .expect_err("help");
        assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp);
        e.to_string()
    };
    let shown = help("conformance");
    assert!(shown.contains("--server <SERVER>"), "{shown}");
    assert!(!shown.contains("[env: DRUIDS_SERVER="), "{shown}");
    let shown = help("create");
    assert!(shown.contains("[env: DRUIDS_SERVER="), "{shown}");
    // Typed after or before the subcommand, it reaches ServerArgs.
    for args in [
        ["druids", "conformance", "--server", "h:1", "--list"],
        ["druids", "--server", "h:1", "conformance", "--list"],
    ] {
        let m = command().try_get_matches_from(args).unwrap();
        assert_eq!(
            m.value_source("server"),
            Some(clap::parser::ValueSource::CommandLine)
        );
        let cli = Cli::from_arg_matches(&m).unwrap();
        assert_eq!(cli.server.server.as_deref(), Some("h:1"));
    }
}

#[test]
fn games_come_from_the_registry_and_bots_are_a_list() {
    let cli = Cli::try_parse_from([
        "druids",
        "tournament",
        "--game",
        "dolmen",
        "--bots",
        "random,greedy,mcts",
    ])
    .unwrap();
    let Command::Tournament(t) = cli.command else {
        panic!("tournament")
    };
    assert_eq!(t.game, druids_contract::Kind::Dolmen);
    assert_eq!(
        t.bots,
        [StrategyArg::Random, StrategyArg::Greedy, StrategyArg::Mcts]
    );
    assert!(
        Cli::try_parse_from(["druids", "create", "--game", "chess", "--players", "2"]).is_err()
    );
    let cli = Cli::try_parse_from(["druids", "list", "--status", "waiting-for-players"]).unwrap();
    let Command::List(l) = cli.command else {
        panic!("list")
    };
    assert_eq!(l.status, Some(pb::GameStatus::WaitingForPlayers));
}

#[test]
fn bot_plays_one_seat_or_the_ladder() {
    let one = ["druids", "bot", "--game-id", "g", "--token", "t"];
    let Command::Bot(b) = Cli::try_parse_from(one).unwrap().command else {
        panic!("bot")
    };
    assert_eq!((b.game_id.as_deref(), b.seek), (Some("g"), None));
    let ladder = [
        "druids",
        "bot",
        "--key",
        "k",
        "--seek",
        "meduris:4",
        "--rated",
        "--games",
        "3",
        "--concurrent",
        "2",
        "--strategy",
        "greedy",
    ];
    let Command::Bot(b) = Cli::try_parse_from(ladder).unwrap().command else {
        panic!("bot")
    };
    assert_eq!(b.seek.map(|p| p.max_players), Some(4));
    assert!(b.rated);
    assert_eq!(
        (b.games, b.concurrent, b.key.as_deref()),
        (Some(3), 2, Some("k"))
    );
    // Neither a game nor a pool; both; ladder flags without --seek.
    assert!(Cli::try_parse_from(["druids", "bot", "--token", "t"]).is_err());
    assert!(
        Cli::try_parse_from(["druids", "bot", "--game-id", "g", "--seek", "meduris:2"]).is_err()
    );
    assert!(
        Cli::try_parse_from(["druids", "bot", "--game-id", "g", "--token", "t", "--rated"])
            .is_err()
    );
    let Command::Leaderboard(l) = Cli::try_parse_from(["druids", "leaderboard", "dolmen:3"])
        .unwrap()
        .command
    else {
        panic!("leaderboard")
    };
    assert_eq!(
        (l.pool.kind, l.pool.min_players),
        (druids_contract::Kind::Dolmen, 3)
    );
}
