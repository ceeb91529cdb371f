//! The arena through its contract (`ArenaService`), on a real server over
//! TCP: bots register, seek and play rated matches by matchmaking alone
//! (rated Meduris as duplicate matches, one game per seat rotation, one
//! after another), their keys act for their seats, the leaderboard and
//! profiles show the results, each bot's event log resumes from any seq, keys
//! rotate, and a restart loses no result or rating.
//!
//! One submodule per arena feature; the helpers they and other arena
//! modules share (clients, registration, playing seats, reading bot events)
//! live here.

mod bad_input;
mod challenges;
mod five_players;
mod rated_matches;
mod round_robin;

use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_server::Limits;
use druids_tests::{Lcg, TestServer, authed};
use tonic::Code;
use tonic::transport::Channel;

pub(crate) type Arena = ArenaServiceClient<Channel>;

pub(crate) async fn arena(server: &TestServer) -> Arena {
    ArenaServiceClient::connect(server.url())
        .await
        .expect("connect")
}

/// The operator key of the arena tests: only the operator names a
/// tournament's entrants.
pub(crate) const OPERATOR: &str = "operator-key-of-the-arena-tests";

/// Limits for arena tests: a quick fit, a generous clock, and none of the
/// rules against cheap identities (every bot established, no cap on a
/// pair's rated matches; `arena_sybils.rs` tests those rules).
pub(crate) fn limits() -> Limits {
    let mut limits = Limits::unthrottled();
    limits.arena.operator_key = Some(OPERATOR.into());
    limits.arena.bot_tournaments_per_hour = 1_000;
    limits.arena.fit_secs = 0;
    // Real bots only: no house bot joins a seek that waits.
    limits.arena.house_bots = druids_server::arena::house::Levels(Vec::new());
    limits.arena.established_matches = 0;
    limits.arena.established_opponents = 0;
    limits.arena.pair_matches_per_day = u32::MAX;
    limits
}

pub(crate) async fn register(arena: &mut Arena, name: &str) -> (String, String) {
    let reply = arena
        .register_bot(pb::RegisterBotRequest {
            name: name.to_owned(),
            description: format!("{name}, a random bot"),
            owner_contact: "tests@druids.dev".into(),
        })
        .await
        .expect("register")
        .into_inner();
    (reply.bot_id, reply.api_key)
}

/// An unrated two-player Meduris challenge (one game) of `opponents`,
/// expiring in 10 minutes, on the arena's clock.
pub(crate) fn meduris_challenge(opponents: Vec<String>) -> pb::ChallengeRequest {
    pb::ChallengeRequest {
        kind: pb::GameKind::Meduris as i32,
        opponents,
        rated: false,
        expires_in_secs: 600,
        time_control: None,
    }
}

/// Bot `from_key` challenges with `req`: the challenge made.
pub(crate) async fn challenge(
    arena: &mut Arena,
    from_key: &str,
    req: pb::ChallengeRequest,
) -> pb::ChallengeInfo {
    arena
        .challenge(authed(from_key, req))
        .await
        .expect("challenge")
        .into_inner()
        .challenge
        .expect("the challenge")
}

/// Bot `from_key` challenges with `req`, and the bot of `to_key` accepts:
/// the match starts. The challenge's id.
pub(crate) async fn challenge_accepted(
    arena: &mut Arena,
    from_key: &str,
    to_key: &str,
    req: pb::ChallengeRequest,
) -> String {
    let challenge = challenge(arena, from_key, req).await;
    let accept = pb::AnswerChallengeRequest {
        challenge_id: challenge.challenge_id.clone(),
        accept: true,
        reason: String::new(),
    };
    arena
        .answer_challenge(authed(to_key, accept))
        .await
        .expect("accept");
    challenge.challenge_id
}

/// Whether a failed call is the server going away (a restart), to be retried:
/// only what the docs tell clients to retry ([`druids_tests::retry_allowed`]).
fn gone(s: &tonic::Status) -> bool {
    druids_tests::retry_allowed(s)
}

/// How long a call refused for a rate limit asks to wait (its RetryInfo),
/// as the docs tell clients: a server process has the default read limits.
fn retry_delay(s: &tonic::Status) -> Option<Duration> {
    use tonic_types::StatusExt;
    if s.code() != Code::ResourceExhausted {
        return None;
    }
    s.get_details_retry_info()?.retry_delay
}

/// Plays the bot's seat of `game_id` at random with its API key until the game
/// ends; a server that restarts meanwhile is waited for.
pub(crate) async fn play_seat(url: String, game_id: String, key: String, seat: u32, seed: u64) {
    let mut rng = Lcg(seed);
    let client = druids_contract::pb::druids_service_client::DruidsServiceClient::new(
        tonic::transport::Endpoint::from_shared(url)
            .unwrap()
            .connect_lazy(),
    );
    loop {
        let mut client = client.clone();
        let state = match client
            .get_state(authed(
                &key,
                pb::GetStateRequest {
                    game_id: game_id.clone(),
                },
            ))
            .await
        {
            Ok(reply) => reply.into_inner().state.unwrap(),
            Err(s) if gone(&s) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(s) if let Some(delay) = retry_delay(&s) => {
                tokio::time::sleep(delay).await;
                continue;
            }
            Err(s) => panic!("the key reads its seat's view: {s:?}"),
        };
        assert_eq!(state.viewer_seat, Some(seat), "the key acts for its seat");
        let over = [pb::GameStatus::Finished, pb::GameStatus::Abandoned];
        match state.to_act {
            None if over.contains(&state.status()) => return,
            // Its duplicate match's other games are yet to reach its next die.
            None => {
                assert!(state.waiting_for_match, "{state:?}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Some(s) if s != seat => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Some(_) => {}
        }
        let legal = match client
            .get_legal_actions(authed(
                &key,
                pb::GetLegalActionsRequest {
                    game_id: game_id.clone(),
                    ..Default::default()
                },
            ))
            .await
        {
            Ok(reply) => reply.into_inner(),
            Err(s) if gone(&s) => continue,
            Err(s) if let Some(delay) = retry_delay(&s) => {
                tokio::time::sleep(delay).await;
                continue;
            }
            Err(s) => panic!("legal actions: {s:?}"),
        };
        if legal.actions.is_empty() {
            continue;
        }
        let pick = rng.below(legal.actions.len()) as u32;
        let submitted = submit_pick(&mut client, &key, &game_id, pick, legal.version).await;
        if let Err(s) = submitted {
            // The clock may have decided first, or the server restarted.
            assert!(
                gone(&s) || matches!(s.code(), Code::Aborted | Code::FailedPrecondition),
                "{s:?}"
            );
        }
    }
}

/// Submits legal action `pick` of the key's seat at `version` (keyed by it).
pub(crate) async fn submit_pick(
    client: &mut druids_contract::pb::druids_service_client::DruidsServiceClient<Channel>,
    key: &str,
    game_id: &str,
    pick: u32,
    version: u64,
) -> Result<tonic::Response<pb::SubmitActionResponse>, tonic::Status> {
    client
        .submit_action(authed(
            key,
            pb::SubmitActionRequest {
                game_id: game_id.to_owned(),
                choice: Some(pb::submit_action_request::Choice::LegalActionId(pick)),
                expected_version: Some(version),
                idempotency_key: format!("v{version}"),
            },
        ))
        .await
}

/// Seeks once and plays the match it brings to its end; the match's result.
pub(crate) async fn seek_and_play(
    url: String,
    key: String,
    req: pb::SeekRequest,
    seed: u64,
) -> pb::MatchFinished {
    let mut arena = ArenaServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let mut stream = arena
        .seek(authed(&key, req))
        .await
        .expect("seek")
        .into_inner();
    let mut games = 0;
    let mut played = Vec::new();
    let mut playing = tokio::task::JoinSet::new();
    let mut service =
        druids_contract::pb::druids_service_client::DruidsServiceClient::connect(url.clone())
            .await
            .expect("connect");
    loop {
        let event = druids_tests::heartbeats::next_event(&mut stream)
            .await
            .expect("seek event")
            .expect("the seek stream ends after match_finished");
        match event.event.expect("an event") {
            pb::seek_event::Event::Seeking(s) => assert!(s.pool_size >= 1),
            pb::seek_event::Event::Heartbeat(_) => unreachable!("next_event skips heartbeats"),
            pb::seek_event::Event::Waiting(w) => assert!(!w.message.is_empty()),
            pb::seek_event::Event::MatchStarted(m) => assert!(m.games >= 1),
            pb::seek_event::Event::GameStarted(g) => {
                assert_eq!(g.index, games, "games are told in the order of their index");
                if let Some(previous) = played.last() {
                    let refused = service
                        .export_replay(pb::ExportReplayRequest {
                            game_id: String::clone(previous),
                        })
                        .await
                        .expect_err("no replay (and seed) while the duplicate match runs");
                    assert_eq!(refused.code(), Code::FailedPrecondition);
                }
                games += 1;
                // A duplicate match's games are played at once.
                playing.spawn(play_seat(
                    url.clone(),
                    g.game_id.clone(),
                    key.clone(),
                    g.seat,
                    seed + u64::from(games),
                ));
                played.push(g.game_id);
            }
            pb::seek_event::Event::MatchFinished(f) => {
                while let Some(game) = playing.join_next().await {
                    game.expect("a seat played to the end");
                }
                assert!(
                    druids_tests::heartbeats::next_event(&mut stream)
                        .await
                        .expect("end")
                        .is_none(),
                    "then the stream ends"
                );
                // The seed, shared by the match's games, is published with
                // the replays once the match is over.
                for id in &played {
                    let replay = service
                        .export_replay(pb::ExportReplayRequest {
                            game_id: id.clone(),
                        })
                        .await
                        .expect("the replay once the match is over")
                        .into_inner();
                    assert_ne!(replay.seed, 0);
                    // And the key still reads the ended game as its seat.
                    let view = service
                        .get_state(authed(
                            &key,
                            pb::GetStateRequest {
                                game_id: id.clone(),
                            },
                        ))
                        .await
                        .expect("the key reads its ended game")
                        .into_inner()
                        .state
                        .unwrap();
                    assert!(view.viewer_seat.is_some());
                }
                return f;
            }
        }
    }
}

fn meduris_seek(players: u32) -> pb::SeekRequest {
    pb::SeekRequest {
        kind: pb::GameKind::Meduris as i32,
        min_players: players,
        max_players: players,
        rated: true,
    }
}

/// The bot's events from `from` on, read until `enough` says they are all there.
pub(crate) async fn bot_events(
    arena: &mut Arena,
    key: &str,
    from: u64,
    enough: impl Fn(&[pb::BotEvent]) -> bool,
) -> Vec<pb::BotEvent> {
    // A generous deadline that only guards a hang.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let mut stream = arena
            .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq: from }))
            .await
            .expect("events")
            .into_inner();
        let mut out = Vec::new();
        // The stream stays open: read until the events wanted are there;
        // when it falls quiet without them, open it again.
        loop {
            if enough(&out) {
                return out;
            }
            match tokio::time::timeout(
                Duration::from_secs(1),
                druids_tests::heartbeats::next_event(&mut stream),
            )
            .await
            {
                Ok(next) => match next.expect("event") {
                    Some(e) => out.push(e),
                    None => break,
                },
                Err(_quiet) => break,
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bot's events never got there: {out:?}"
        );
    }
}

/// Plays every game the bot's event log announces, from `from_seq` on,
/// reconnecting (to `url`, which may restart) when the stream breaks; runs
/// until aborted.
pub(crate) async fn follow_events(url: String, key: String, seed: u64) {
    // Dropped (and its games' players aborted) when this task is aborted.
    let mut games = tokio::task::JoinSet::new();
    let mut next = 1;
    loop {
        let Ok(mut client) = ArenaServiceClient::connect(url.clone()).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(stream) = client
            .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: next }))
            .await
        else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let mut stream = stream.into_inner();
        while let Ok(Some(event)) = druids_tests::heartbeats::next_event(&mut stream).await {
            next = event.seq + 1;
            if let Some(pb::bot_event::Event::GameStarted(g)) = event.event {
                games.spawn(play_seat(
                    url.clone(),
                    g.game_id,
                    key.clone(),
                    g.seat,
                    seed + event.seq,
                ));
            }
        }
    }
}

/// Waits (up to a minute) until `done` says yes about the tournament.
pub(crate) async fn wait_tournament(
    arena: &mut Arena,
    id: &str,
    done: impl Fn(&pb::Tournament) -> bool,
) -> pb::Tournament {
    for _ in 0..1200 {
        let t = arena
            .get_tournament(pb::GetTournamentRequest {
                tournament_id: id.to_owned(),
            })
            .await
            .expect("tournament")
            .into_inner()
            .tournament
            .unwrap();
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("tournament {id} did not get there");
}

/// The bot's events from its first, read until `enough` says the list holds
/// what the caller waits for (a condition, never a quiet period: a loaded
/// machine can pause a stream for longer than any guess). Gives up only
/// after two minutes without it, naming what it got.
pub(crate) async fn bot_events_until(
    arena: &mut Arena,
    key: &str,
    enough: impl Fn(&[pb::BotEvent]) -> bool,
) -> Vec<pb::BotEvent> {
    let mut stream = arena
        .stream_bot_events(authed(key, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("events")
        .into_inner();
    let mut out = Vec::new();
    let read = async {
        while !enough(&out) {
            match druids_tests::heartbeats::next_event(&mut stream).await {
                Ok(Some(e)) => out.push(e),
                other => panic!("the bot's event stream ended early: {other:?}; got {out:?}"),
            }
        }
    };
    if tokio::time::timeout(Duration::from_secs(120), read)
        .await
        .is_err()
    {
        panic!("the awaited bot events never came; got {out:?}");
    }
    out
}

/// The ids of the house bots of `server`, once they have registered (they
/// do as the server starts, in a task of their own); panics if none has
/// after 6,000 looks.
pub(crate) async fn house_bots(server: &TestServer) -> Vec<String> {
    let house = server.service.arena().expect("an arena");
    for _ in 0..6_000 {
        let ids = house.house_bot_ids();
        if !ids.is_empty() {
            return ids;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no house bot registered")
}
