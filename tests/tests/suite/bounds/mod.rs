//! Every number a client sends is bounded before anything is built for it.
//!
//! The test walks the contract's descriptors: for every method of both
//! services and every numeric field of its request (nested messages, lists
//! and oneof members included, so a field added later cannot be forgotten),
//! it sends a valid request with that one field at its largest value, and one
//! with every numeric field at once, over gRPC and (for `DruidsService`) over
//! `POST /api/v1/<Method>`, to a real `druids-server` process. Each answer
//! must come with the code the contract documents for that field (INVALID_
//! ARGUMENT unless the table below says otherwise) and an ErrorInfo, and a
//! refused request must change nothing. The HTTP-only numbers (the practice
//! page's, the event stream's `from_seq` and `Last-Event-ID`) are sent at
//! their maximum too. The server's peak RSS is printed: the largest a single
//! anonymous request can make it.

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::process::ServerProcess;
use druids_tests::{authed, raw};
use prost::Message;
use prost_reflect::DynamicMessage;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const OPERATOR: &str = "operator-key-of-the-bounds-test";

mod expected;
mod fields;

use expected::{code_name, expected};
use fields::{dotted, numeric_paths, set_max};

/// A valid request of a method, and the bearer token it is sent with.
struct Baseline {
    /// The method (`druids.v1.DruidsService/CreateGame`), and a label when
    /// a method has several baselines.
    method: &'static str,
    label: &'static str,
    body: Vec<u8>,
    token: Option<String>,
}

/// What a request may not change when it is refused: every game, the two
/// bots and the tournament, as the contract shows them.
async fn world(
    games: &mut DruidsServiceClient<Channel>,
    arena: &mut ArenaServiceClient<Channel>,
    bots: &[String],
    tournament: &str,
) -> Vec<u8> {
    let mut out = games
        .list_games(pb::ListGamesRequest {
            page_size: 1000,
            ..Default::default()
        })
        .await
        .expect("ListGames")
        .into_inner()
        .encode_to_vec();
    for bot in bots {
        let profile = arena
            .get_bot(pb::GetBotRequest {
                bot_id: bot.clone(),
            })
            .await
            .expect("GetBot")
            .into_inner();
        out.extend(profile.encode_to_vec());
    }
    let t = arena
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: tournament.to_owned(),
        })
        .await
        .expect("GetTournament")
        .into_inner();
    out.extend(t.encode_to_vec());
    out
}

/// The process's peak resident set, KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_number_of_every_request_is_bounded_before_anything_is_built() {
    let dir = std::env::temp_dir().join(format!("druids-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let server = ServerProcess::start(
        &[
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--operator-key",
            OPERATOR,
            "--max-setups-per-second",
            "0",
            "--max-reads-per-second",
            "0",
            "--max-anonymous-reads-per-second",
            "0",
            "--log",
            "warn",
        ],
        &[],
        &dir.join("server.log"),
    );
    let http_base = format!("http://{}", server.http.clone().expect("an HTTP face"));
    let rss_at_start = peak_rss_kib(server.pid());
    let mut games = DruidsServiceClient::connect(server.url()).await.unwrap();
    let mut arena = ArenaServiceClient::connect(server.url()).await.unwrap();

    // What the baselines refer to: a running game, one with an open seat,
    // two bots and an open tournament.
    let (game, tokens) = druids_tests::create(&mut games, pb::GameKind::Meduris, 2, 7).await;
    let open = druids_tests::create_waiting(&mut games).await.game_id;
    // A finished game, for the replay's views.
    let (ended, ended_tokens) = druids_tests::create(&mut games, pb::GameKind::Meduris, 2, 8).await;
    druids_tests::play_random(
        &mut games,
        &ended,
        &ended_tokens,
        &mut druids_tests::Lcg(8),
        100_000,
    )
    .await
    .expect("a game played to its end");
    let first = druids_tests::legal(&mut games, &game, &tokens[0], false)
        .await
        .unwrap()
        .actions[0]
        .action
        .clone();
    let replay = pb::Replay {
        kind: pb::GameKind::Meduris as i32,
        players: 2,
        seed: 7,
        actions: vec![pb::ReplayAction {
            seat: 0,
            action: first,
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut bots = Vec::new();
    for name in ["bounds-a", "bounds-b"] {
        let r = arena
            .register_bot(pb::RegisterBotRequest {
                name: name.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        bots.push((r.bot_id, r.api_key));
    }
    let tournament = arena
        .create_tournament(authed(
            OPERATOR,
            pb::CreateTournamentRequest {
                name: "bounds".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 86_400,
                    max_entrants: 0,
                }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .tournament_id;

    let dolmen = pb::GameKind::Dolmen as i32;
    let key = Some(bots[0].1.clone());
    let baselines = vec![
        Baseline {
            method: "druids.v1.DruidsService/CreateGame",
            label: "",
            body: pb::CreateGameRequest {
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                ..Default::default()
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.DruidsService/CreateGame",
            label: "start_from",
            body: pb::CreateGameRequest {
                start_from: Some(pb::StartFrom {
                    replay: Some(replay),
                    actions: 1,
                }),
                ..Default::default()
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.DruidsService/JoinGame",
            label: "",
            body: pb::JoinGameRequest {
                game_id: open.clone(),
                seat: Some(1),
                ..Default::default()
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.DruidsService/GetLegalActions",
            label: "",
            body: pb::GetLegalActionsRequest {
                game_id: game.clone(),
                ..Default::default()
            }
            .encode_to_vec(),
            token: Some(tokens[0].clone()),
        },
        Baseline {
            method: "druids.v1.DruidsService/SubmitAction",
            label: "",
            body: pb::SubmitActionRequest {
                game_id: game.clone(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(0)),
                expected_version: Some(0),
                idempotency_key: String::new(),
            }
            .encode_to_vec(),
            token: Some(tokens[0].clone()),
        },
        Baseline {
            method: "druids.v1.DruidsService/StreamEvents",
            label: "",
            body: pb::StreamEventsRequest {
                game_id: game.clone(),
                from_seq: 0,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.DruidsService/ListGames",
            label: "",
            body: pb::ListGamesRequest::default().encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/Seek",
            label: "",
            body: pb::SeekRequest {
                kind: dolmen,
                min_players: 2,
                ..Default::default()
            }
            .encode_to_vec(),
            token: key.clone(),
        },
        Baseline {
            method: "druids.v1.ArenaService/StreamBotEvents",
            label: "",
            body: pb::StreamBotEventsRequest { from_seq: 1 }.encode_to_vec(),
            token: key.clone(),
        },
        Baseline {
            method: "druids.v1.ArenaService/GetLeaderboard",
            label: "",
            body: pb::GetLeaderboardRequest {
                kind: dolmen,
                players: 2,
                ..Default::default()
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/Challenge",
            label: "",
            body: pb::ChallengeRequest {
                kind: dolmen,
                opponents: vec![bots[1].0.clone()],
                ..Default::default()
            }
            .encode_to_vec(),
            token: key.clone(),
        },
        Baseline {
            method: "druids.v1.ArenaService/CreateTournament",
            label: "",
            body: pb::CreateTournamentRequest {
                name: "bounded".into(),
                kind: dolmen,
                players: 2,
                entrants: bots.iter().map(|b| b.0.clone()).collect(),
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 600,
                    max_entrants: 8,
                }),
                ..Default::default()
            }
            .encode_to_vec(),
            token: Some(OPERATOR.into()),
        },
        Baseline {
            method: "druids.v1.DruidsService/GetReplayViews",
            label: "",
            body: pb::GetReplayViewsRequest {
                game_id: ended.clone(),
                seat: Some(0),
                from_version: 1,
                page_size: 2,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/GetRatingHistory",
            label: "",
            body: pb::GetRatingHistoryRequest {
                bot_id: bots[0].0.clone(),
                kind: dolmen,
                players: 2,
                ..Default::default()
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/ListTournaments",
            label: "",
            body: pb::ListTournamentsRequest::default().encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/ListPools",
            label: "",
            body: pb::ListPoolsRequest { kind: dolmen }.encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.TestingService/CreateTestGame",
            label: "",
            body: pb::CreateTestGameRequest {
                game: Some(pb::CreateGameRequest {
                    kind: pb::GameKind::Meduris as i32,
                    players: 2,
                    ..Default::default()
                }),
                plan: None,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.TestingService/AttachFaultPlan",
            label: "",
            body: pb::AttachFaultPlanRequest {
                game_id: game.clone(),
                plan: None,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.TestingService/AdvanceClock",
            label: "",
            body: pb::AdvanceClockRequest {
                game_id: game.clone(),
                by_ms: 1,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.TestingService/GetLedger",
            label: "",
            body: pb::GetLedgerRequest {
                game_id: game.clone(),
                from_index: 0,
                page_size: 10,
            }
            .encode_to_vec(),
            token: None,
        },
        Baseline {
            method: "druids.v1.ArenaService/StreamTournamentEvents",
            label: "",
            body: pb::StreamTournamentEventsRequest {
                tournament_id: tournament.clone(),
                from_seq: 1,
            }
            .encode_to_vec(),
            token: None,
        },
    ];

    let pool = druids_contract::json::pool();
    let bot_ids: Vec<String> = bots.iter().map(|b| b.0.clone()).collect();
    let mut grpc = raw::client(&server.url()).await;
    let mut before = world(&mut games, &mut arena, &bot_ids, &tournament).await;
    let mut sent = 0;
    let mut methods_with_numbers = 0;
    for service in pool.services() {
        for method in service.methods() {
            let full = format!("{}/{}", service.full_name(), method.name());
            let input = method.input();
            let mut paths = Vec::new();
            numeric_paths(&input, &Vec::new(), &mut paths);
            if paths.is_empty() {
                continue;
            }
            methods_with_numbers += 1;
            let mine: Vec<&Baseline> = baselines.iter().filter(|b| b.method == full).collect();
            assert!(
                !mine.is_empty(),
                "{full} has numeric fields: give it a baseline request in this test"
            );
            for base in mine {
                let mut variants: Vec<(String, DynamicMessage)> = Vec::new();
                let mut all = DynamicMessage::decode(input.clone(), base.body.as_slice()).unwrap();
                for path in &paths {
                    let mut one =
                        DynamicMessage::decode(input.clone(), base.body.as_slice()).unwrap();
                    set_max(&mut one, path);
                    set_max(&mut all, path);
                    variants.push((dotted(path), one));
                }
                // With every field at its maximum, any of the fields' own
                // refusals is right (the first field checked wins).
                let refusals: Vec<Code> = variants
                    .iter()
                    .map(|(p, _)| expected(&full, base.label, p))
                    .filter(|&c| c != Code::Ok)
                    .collect();
                variants.push(("every numeric field".into(), all));
                let want_of = |path: &str| match path {
                    "every numeric field" if refusals.is_empty() => Code::Ok,
                    "every numeric field" => refusals[0],
                    _ => expected(&full, base.label, path),
                };
                // The refused ones first, the world compared once after them
                // (a refusal changes nothing, so neither do all of them); then
                // the accepted ones, which may.
                variants.sort_by_key(|(p, _)| want_of(p) == Code::Ok);
                let mut refused_world_checked = false;
                for (path, msg) in variants {
                    let want = want_of(&path);
                    if want == Code::Ok && !refused_world_checked {
                        let after = world(&mut games, &mut arena, &bot_ids, &tournament).await;
                        assert!(
                            after == before,
                            "{full} [{}]: a refused request changed something",
                            base.label
                        );
                        refused_world_checked = true;
                    }
                    let acceptable = |code: Code| {
                        code == want || (path == "every numeric field" && refusals.contains(&code))
                    };
                    let what = format!("{full} [{}] {path} at its maximum", base.label);
                    let body = msg.encode_to_vec();
                    let mut request = tonic::Request::new(body.clone());
                    if let Some(t) = &base.token {
                        request
                            .metadata_mut()
                            .insert("authorization", format!("Bearer {t}").parse().unwrap());
                    }
                    let grpc_path = format!("/{full}");
                    let answer = if method.is_server_streaming() {
                        raw::open_stream(&mut grpc, &grpc_path, request).await
                    } else {
                        raw::unary(&mut grpc, &grpc_path, request).await.map(|_| ())
                    };
                    sent += 1;
                    match answer {
                        Ok(()) => assert_eq!(want, Code::Ok, "{what}: accepted"),
                        Err(status) => {
                            assert!(acceptable(status.code()), "{what}: {status:?}");
                            assert!(
                                status.get_details_error_info().is_some(),
                                "{what}: no ErrorInfo on {status:?}"
                            );
                        }
                    }
                    // The HTTP face decodes into the same messages.
                    if full.starts_with("druids.v1.DruidsService/")
                        && !(method.is_server_streaming() && want == Code::Ok)
                    {
                        let json = serde_json::to_string(&msg).unwrap();
                        let auth = base
                            .token
                            .as_ref()
                            .map(|t| ("authorization", format!("Bearer {t}")));
                        let mut headers = vec![("content-type", "application/json".to_owned())];
                        headers.extend(auth);
                        let headers: Vec<(&str, &str)> =
                            headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                        let (status, _, body) = crate::web::http(
                            &http_base,
                            "POST",
                            &format!("/api/v1/{}", method.name()),
                            &headers,
                            &json,
                        )
                        .await;
                        sent += 1;
                        if want == Code::Ok {
                            assert_eq!(status, 200, "{what} over HTTP: {body}");
                        } else {
                            let body: serde_json::Value = serde_json::from_str(&body)
                                .unwrap_or_else(|e| panic!("{what} over HTTP: {e}: {body}"));
                            assert!(
                                [want]
                                    .iter()
                                    .chain(&refusals)
                                    .any(|&c| acceptable(c) && body["code"] == code_name(c)),
                                "{what} over HTTP: {body}"
                            );
                            assert_ne!(body["reason"], "", "{what} over HTTP: {body}");
                        }
                    }
                }
                let after = world(&mut games, &mut arena, &bot_ids, &tournament).await;
                assert!(
                    refused_world_checked || after == before,
                    "{full} [{}]: a refused request changed something",
                    base.label
                );
                before = after;
            }
        }
    }
    let with_baselines: std::collections::BTreeSet<&str> =
        baselines.iter().map(|b| b.method).collect();
    assert_eq!(
        methods_with_numbers,
        with_baselines.len(),
        "the walk met every method a baseline was written for"
    );

    // The numbers only the HTTP face reads.
    let max = u64::MAX.to_string();
    let practice = [
        serde_json::json!({"kind": "dolmen", "players": u64::MAX}),
        serde_json::json!({"kind": "meduris", "players": u32::MAX}),
        serde_json::json!({"kind": "dolmen", "botDelayMs": u64::MAX}),
        serde_json::json!({"kind": "dolmen", "bot_delay_ms": u64::MAX}),
    ];
    for body in practice {
        let (status, _, answer) = crate::web::http(
            &http_base,
            "POST",
            "/web/v1/practice",
            &[("content-type", "application/json")],
            &body.to_string(),
        )
        .await;
        assert_eq!(status, 400, "practice {body}: {answer}");
        assert!(
            answer.contains("INVALID_ARGUMENT"),
            "practice {body}: {answer}"
        );
        sent += 1;
    }
    let events = format!("/api/v1/games/{game}/events");
    for (query, headers) in [
        (format!("{events}?from_seq={max}"), vec![]),
        (events.clone(), vec![("last-event-id", max.as_str())]),
    ] {
        let (status, _, answer) = crate::web::http(&http_base, "GET", &query, &headers, "").await;
        assert_eq!(status, 400, "{query} {headers:?}: {answer}");
        sent += 1;
    }
    let after = world(&mut games, &mut arena, &bot_ids, &tournament).await;
    assert!(after == before, "the HTTP-only numbers changed something");

    let peak = peak_rss_kib(server.pid());
    eprintln!(
        "{sent} requests with numbers at their maximum: peak RSS of the server {:.1} MiB \
         ({:.1} MiB at start; debug build)",
        peak as f64 / 1024.0,
        rss_at_start as f64 / 1024.0
    );
    server.kill();
}
