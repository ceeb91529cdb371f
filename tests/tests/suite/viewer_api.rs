//! What the web viewer reads from the server, through the contract: the views
//! of a finished game after each of its actions (`GetReplayViews`, exactly
//! what `GetState` showed each viewer then, so the viewer re-applies no
//! rule), the engine's wording of every pending decision, games listed with
//! their results and filtered by the arena's matches (on every store), and
//! the ladder's reads (a bot's rating history, the tournaments, a bot's own
//! profile by its key).

use std::sync::Arc;

use druids_contract::engine::Seat;
use druids_contract::pb;
use druids_server::MemoryStore;
use druids_server::Store;
use druids_server::auth::TokenHash;
use druids_server::store::{ArenaFilter, EndedQuery, GameRecord};
use druids_store::MatchRecord;
use druids_tests::{Lcg, TestServer, authed, create, legal, play_random, state};
use tonic::{Code, Request};
use tonic_types::StatusExt;

use crate::arena::{arena, register, seek_and_play};
use crate::stores::{Backend, TestDb, on_each_store};

/// A state as GetReplayViews gives it back: without what only a live game
/// has (the log's last seq, the clock, autopilot marks).
fn replayable(mut s: pb::StateView) -> pb::StateView {
    s.last_seq = 0;
    s.deadline_unix_ms = None;
    s.autopilot_seats.clear();
    s
}

fn reason(status: &tonic::Status) -> String {
    status
        .get_details_error_info()
        .map(|i| i.reason)
        .unwrap_or_default()
}

async fn views(
    client: &mut pb::druids_service_client::DruidsServiceClient<tonic::transport::Channel>,
    game_id: &str,
    seat: Option<u32>,
    page_size: u32,
) -> Vec<pb::StateView> {
    let mut out = Vec::new();
    loop {
        let page = client
            .get_replay_views(pb::GetReplayViewsRequest {
                game_id: game_id.to_owned(),
                seat,
                from_version: out.len() as u64,
                page_size,
            })
            .await
            .expect("replay views")
            .into_inner();
        assert!(!page.views.is_empty());
        assert!(page.views.len() <= page_size.clamp(1, 100) as usize);
        out.extend(page.views);
        if out.len() as u64 == page.last_version + 1 {
            return out;
        }
    }
}

/// Every view of a finished game, page by page, is the state GetState gave
/// the same viewer (a spectator, a seat) right after that action; the
/// pending decision is always worded by the engine, circles by their letter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_views_are_what_get_state_showed_after_each_action() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for (kind, players, seed) in [(pb::GameKind::Dolmen, 3, 21), (pb::GameKind::Meduris, 2, 4)] {
        let (id, tokens) = create(&mut client, kind, players, seed).await;
        let mut seen: Vec<(pb::StateView, pb::StateView)> = Vec::new();
        let mut circles_named = 0;
        let mut rng = Lcg(seed);
        loop {
            let spectator = state(&mut client, &id, None).await;
            let seat0 = state(&mut client, &id, Some(&tokens[0])).await;
            assert_eq!(spectator.version, seen.len() as u64);
            if let Some(seat) = spectator.to_act {
                let text = &spectator.decision_description;
                assert!(!text.is_empty(), "the decision is worded");
                assert!(!circle_by_number(text), "{text}");
                if text.contains("circle ") {
                    circles_named += 1;
                }
                let asked = legal(&mut client, &id, &tokens[seat as usize], false)
                    .await
                    .expect("legal");
                assert_eq!(&asked.decision_description, text);
            } else {
                assert!(spectator.decision_description.is_empty());
            }
            let over = spectator.to_act.is_none();
            seen.push((spectator, seat0));
            if over {
                break;
            }
            // A running game has no replay views.
            if seen.len() == 3 {
                let refused = client
                    .get_replay_views(pb::GetReplayViewsRequest {
                        game_id: id.clone(),
                        ..Default::default()
                    })
                    .await
                    .expect_err("running");
                assert_eq!(refused.code(), Code::FailedPrecondition);
                assert_eq!(reason(&refused), "GAME_RUNNING");
                assert!(
                    refused.message().contains("its replay is available once")
                        && !refused.message().contains("export"),
                    "{refused:?}"
                );
            }
            play_random(&mut client, &id, &tokens, &mut rng, 1)
                .await
                .expect("play");
        }
        if kind == pb::GameKind::Dolmen {
            assert!(circles_named > 0, "a dolmen decision names its circle");
        }
        let spectator = views(&mut client, &id, None, 7).await;
        let seat0 = views(&mut client, &id, Some(0), 100).await;
        assert_eq!(spectator.len(), seen.len());
        for (v, ((s, s0), (r, r0))) in seen
            .into_iter()
            .zip(spectator.into_iter().zip(seat0))
            .enumerate()
        {
            assert_eq!(replayable(s), r, "{kind:?} spectator view {v}");
            assert_eq!(replayable(s0), r0, "{kind:?} seat 0 view {v}");
        }
        // Out of range: a seat the game lacks, a version past its end.
        for (seat, from_version, field) in
            [(Some(players), 0, "seat"), (None, 9_999, "from_version")]
        {
            let refused = client
                .get_replay_views(pb::GetReplayViewsRequest {
                    game_id: id.clone(),
                    seat,
                    from_version,
                    page_size: 0,
                })
                .await
                .expect_err("out of range");
            assert_eq!(refused.code(), Code::InvalidArgument, "{field}");
            assert!(refused.message().contains(field), "{}", refused.message());
        }
        // A page is at most 100 views, and 20 unasked.
        let page = |size| pb::GetReplayViewsRequest {
            game_id: id.clone(),
            page_size: size,
            ..Default::default()
        };
        let n = |r: pb::GetReplayViewsResponse| r.views.len();
        assert_eq!(
            n(client.get_replay_views(page(0)).await.unwrap().into_inner()),
            20
        );
        assert_eq!(
            n(client
                .get_replay_views(page(5_000))
                .await
                .unwrap()
                .into_inner()),
            100
        );
    }
    let missing = client
        .get_replay_views(pb::GetReplayViewsRequest {
            game_id: "nope".into(),
            ..Default::default()
        })
        .await
        .expect_err("no such game");
    assert_eq!(missing.code(), Code::NotFound);
    server.stop().await;
}

/// Whether a description names a circle by a number ("circle 24") rather
/// than by its letter on the board.
fn circle_by_number(text: &str) -> bool {
    text.split("circle ")
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

fn game(id: &str, created: u64) -> GameRecord {
    GameRecord {
        id: id.to_owned(),
        kind: druids_contract::Kind::Dolmen,
        players: 2,
        seed: 1,
        seed_chosen: false,
        options: pb::GameOptions::default(),
        created_unix_ms: created,
        seats: (0..2)
            .map(|s| (Seat(s), format!("p{s}"), TokenHash([s + 1; 32])))
            .collect(),
        request: None,
    }
}

fn outcome(first: i32) -> pb::Outcome {
    pb::Outcome {
        scores: vec![first, 3],
        winners: vec![0],
        ranking: vec![0, 1],
        by_safeguard: false,
        ..Default::default()
    }
}

const A: &str = "00000000000000aa";
const B: &str = "00000000000000bb";
const C: &str = "00000000000000cc";

/// Ended games come back with their results and their matches, filtered by
/// bot, tournament, arena or not and rated or not; games without a match
/// are nobody's.
async fn ended_games_list_with_results_and_matches(store: Arc<dyn Store>) {
    let matches = [
        ("m1", true, [A, B], Some("00000000000000f1")),
        ("m2", false, [A, C], None),
    ];
    for (i, (id, rated, bots, tournament)) in matches.iter().enumerate() {
        store
            .create_match(&MatchRecord {
                id: (*id).to_owned(),
                kind: druids_contract::Kind::Dolmen,
                rated: *rated,
                seed: 5,
                options: pb::GameOptions::default(),
                bots: bots.iter().map(|b| (*b).to_owned()).collect(),
                games: 1,
                created_unix_ms: 100 + i as u64,
                tournament: tournament.map(|t| (t.to_owned(), 1)),
            })
            .unwrap();
    }
    for (i, id) in ["plain", "g1", "g2", "open"].iter().enumerate() {
        store.create_game(&game(id, 1_000 + i as u64)).unwrap();
    }
    store.add_match_game("m1", 0, "g1").unwrap();
    store.add_match_game("m2", 0, "g2").unwrap();
    for (i, id) in ["plain", "g1", "g2"].iter().enumerate() {
        store.finish(id, 0, &outcome(10 + i as i32), 2_000).unwrap();
    }
    let list = |arena: ArenaFilter| -> Vec<pb::GameSummary> {
        store
            .list_ended(&EndedQuery {
                arena,
                limit: 10,
                ..Default::default()
            })
            .unwrap()
    };
    let ids = |arena: ArenaFilter| -> Vec<String> {
        list(arena).into_iter().map(|g| g.game_id).collect()
    };
    let all = list(ArenaFilter::default());
    assert_eq!(
        all.iter().map(|g| g.game_id.as_str()).collect::<Vec<_>>(),
        ["g2", "g1", "plain"],
        "newest first; a game in play is not listed"
    );
    assert_eq!(all[1].outcome, Some(outcome(11)));
    assert_eq!((all[1].match_id.as_str(), all[1].rated), ("m1", true));
    assert_eq!((all[0].match_id.as_str(), all[0].rated), ("m2", false));
    assert_eq!((all[2].match_id.as_str(), all[2].rated), ("", false));
    let bot = |b: &str| ArenaFilter {
        bot_id: Some(b.to_owned()),
        ..Default::default()
    };
    assert_eq!(ids(bot(A)), ["g2", "g1"]);
    assert_eq!(ids(bot(B)), ["g1"]);
    assert_eq!(ids(bot(C)), ["g2"]);
    assert!(ids(bot("00000000000000dd")).is_empty());
    let arena = |a: bool| ArenaFilter {
        arena: Some(a),
        ..Default::default()
    };
    assert_eq!(ids(arena(true)), ["g2", "g1"]);
    assert_eq!(ids(arena(false)), ["plain"]);
    let rated = |r: bool| ArenaFilter {
        rated: Some(r),
        ..Default::default()
    };
    assert_eq!(ids(rated(true)), ["g1"]);
    assert_eq!(ids(rated(false)), ["g2", "plain"]);
    let tournament = ArenaFilter {
        tournament_id: Some("00000000000000f1".into()),
        ..Default::default()
    };
    assert_eq!(ids(tournament), ["g1"]);
    let both = ArenaFilter {
        bot_id: Some(A.into()),
        rated: Some(false),
        ..Default::default()
    };
    assert_eq!(ids(both), ["g2"]);
}

on_each_store!(ended_games_list_on_each_store);

async fn ended_games_list_on_each_store(backend: Backend) {
    let db = TestDb::new(backend, "viewer_list");
    ended_games_list_with_results_and_matches(db.open()).await;
}

#[tokio::test]
async fn ended_games_list_in_memory() {
    ended_games_list_with_results_and_matches(Arc::new(MemoryStore::default())).await;
}

/// After rated matches found by matchmaking: ListGames gives a bot's games
/// (with their results, match and rating) and keeps them apart from games
/// created with CreateGame; GetRatingHistory gives one point per rated
/// match, ending at the leaderboard's rating; GetBot with only a key is that
/// bot; ListTournaments lists a tournament with its status.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_ladder_pages_read_games_histories_profiles_and_tournaments() {
    let server = TestServer::with(Arc::new(MemoryStore::default()), crate::arena::limits()).await;
    let mut a = arena(&server).await;
    let mut client = server.client().await;
    let (ada, ada_key) = register(&mut a, "ada").await;
    let (bob, bob_key) = register(&mut a, "bob").await;
    let (plain, plain_tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 3).await;
    play_random(&mut client, &plain, &plain_tokens, &mut Lcg(3), usize::MAX)
        .await
        .expect("play");
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    for round in 0..2 {
        let first = seek_and_play(server.url(), ada_key.clone(), seek, 10 + round);
        let second = seek_and_play(server.url(), bob_key.clone(), seek, 20 + round);
        let (x, y) = tokio::join!(first, second);
        assert_eq!(x.match_id, y.match_id);
    }
    let lister = client.clone();
    let list = |req: pb::ListGamesRequest| {
        let mut client = lister.clone();
        async move { client.list_games(req).await.expect("list").into_inner() }
    };
    let by_ada = list(pb::ListGamesRequest {
        bot_id: ada.clone(),
        ..Default::default()
    })
    .await;
    assert_eq!(by_ada.games.len(), 2, "{by_ada:?}");
    for g in &by_ada.games {
        assert_eq!(g.status, pb::GameStatus::Finished as i32);
        assert!(g.rated && !g.match_id.is_empty());
        let end = state(&mut client, &g.game_id, None).await;
        assert_eq!(g.outcome, end.outcome, "the list shows the result");
        assert_eq!(g.seats.len(), 2);
        assert!(g.seats.iter().any(|s| s.name == "ada"));
    }
    let others = list(pb::ListGamesRequest {
        arena: Some(false),
        ..Default::default()
    })
    .await;
    assert_eq!(
        others
            .games
            .iter()
            .map(|g| g.game_id.as_str())
            .collect::<Vec<_>>(),
        [plain.as_str()]
    );
    assert!(others.games[0].outcome.is_some() && others.games[0].match_id.is_empty());
    // Pages keep their filters: the next page of one query is refused for another.
    let first = list(pb::ListGamesRequest {
        bot_id: bob.clone(),
        page_size: 1,
        ..Default::default()
    })
    .await;
    assert!(first.next_page_token.starts_with("v2."));
    let second = list(pb::ListGamesRequest {
        bot_id: bob.clone(),
        page_size: 1,
        page_token: first.next_page_token.clone(),
        ..Default::default()
    })
    .await;
    assert_eq!(second.games.len(), 1);
    assert_ne!(second.games[0].game_id, first.games[0].game_id);
    let mixed = client
        .list_games(pb::ListGamesRequest {
            bot_id: ada.clone(),
            page_size: 1,
            page_token: first.next_page_token,
            ..Default::default()
        })
        .await
        .expect_err("a token of another query");
    assert_eq!(mixed.code(), Code::InvalidArgument);
    let bad = client
        .list_games(pb::ListGamesRequest {
            bot_id: "robert'); drop table".into(),
            ..Default::default()
        })
        .await
        .expect_err("not a bot id");
    assert_eq!(bad.code(), Code::InvalidArgument);

    // The rating history: one point per rated match, the last one the
    // leaderboard's rating.
    let historian = a.clone();
    let history = |page_size: u32, page_token: String| {
        let mut a = historian.clone();
        let ada = ada.clone();
        async move {
            a.get_rating_history(pb::GetRatingHistoryRequest {
                bot_id: ada,
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                page_size,
                page_token,
            })
            .await
            .expect("history")
            .into_inner()
        }
    };
    let whole = history(0, String::new()).await;
    assert_eq!(whole.points.len(), 2);
    assert!(whole.next_page_token.is_empty());
    assert!(whole.points[0].at_unix_ms <= whole.points[1].at_unix_ms);
    assert_eq!(whole.points[1].before, whole.points[0].after);
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    let ada_row = board
        .entries
        .iter()
        .find(|e| e.bot.as_ref().is_some_and(|b| b.bot_id == ada))
        .expect("ada is rated");
    assert_eq!(whole.points[1].after, ada_row.rating);
    let one = history(1, String::new()).await;
    assert_eq!(one.points, whole.points[..1]);
    let rest = history(1, one.next_page_token).await;
    assert_eq!(rest.points, whole.points[1..]);
    let wrong_pool = a
        .get_rating_history(pb::GetRatingHistoryRequest {
            bot_id: ada.clone(),
            kind: pb::GameKind::Meduris as i32,
            players: 5,
            ..Default::default()
        })
        .await
        .expect_err("no five-player Meduris");
    assert_eq!(wrong_pool.code(), Code::InvalidArgument);

    // A bot's own profile by its key alone.
    let me = a
        .get_bot(authed(&bob_key, pb::GetBotRequest::default()))
        .await
        .expect("own profile")
        .into_inner();
    assert_eq!(me.bot.unwrap().bot_id, bob);
    assert_eq!(me.recent_matches.len(), 2);
    let anonymous = a
        .get_bot(Request::new(pb::GetBotRequest::default()))
        .await
        .expect_err("no key");
    assert_eq!(anonymous.code(), Code::Unauthenticated);

    // Tournaments, newest first, by status.
    let created = a
        .create_tournament(authed(
            &ada_key,
            pb::CreateTournamentRequest {
                name: "spring cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: vec![ada.clone()],
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 600,
                    max_entrants: 8,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .unwrap();
    let listed = a
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .expect("tournaments")
        .into_inner();
    assert_eq!(listed.tournaments.len(), 1);
    let t = &listed.tournaments[0];
    assert_eq!(
        (
            t.tournament_id.as_str(),
            t.name.as_str(),
            t.entrants,
            t.status
        ),
        (
            created.tournament_id.as_str(),
            "spring cup",
            1,
            pb::TournamentStatus::Open as i32
        )
    );
    let running = a
        .list_tournaments(pb::ListTournamentsRequest {
            status: pb::TournamentStatus::Running as i32,
            ..Default::default()
        })
        .await
        .expect("tournaments")
        .into_inner();
    assert!(running.tournaments.is_empty());
    server.stop().await;
}
