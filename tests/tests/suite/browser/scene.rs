//! What the browser test shows the pages: games of every kind and size
//! (finished, at seat 0's decision, with secrets, one live), a ladder played
//! by bots with a tournament, and two bots ready for a challenge sent from
//! the browser; and the plan `run.mjs` follows through them.

use std::path::Path;
use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::arena_service_client::ArenaServiceClient;
use druids_tests::{Lcg, TestServer, authed, create, play_random, state};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::arena::{play_seat, register, seek_and_play, wait_tournament};

pub(super) type Client = pb::druids_service_client::DruidsServiceClient<tonic::transport::Channel>;
pub(super) type Arena = ArenaServiceClient<tonic::transport::Channel>;

/// The version a replay is stepped to.
pub(super) const REPLAY_STEP: u64 = 9;

/// Everything set up for the pages.
pub(super) struct Scene {
    /// Finished games to replay: (name, id).
    pub finished: Vec<(&'static str, String)>,
    /// A four-player Meduris at seat 0's decision, and its tokens.
    pub big: (String, Vec<String>),
    /// A three-player Meduris and a five-player Die Dolmengötter with
    /// secrets (goods; other seats' dolmens), and their tokens.
    pub meduris: (String, Vec<String>),
    pub dolmen: (String, Vec<String>),
    /// The ladder's bots (id, key), the challenger's id and key, the
    /// challenged bot's id.
    pub bots: Vec<(String, String)>,
    pub me: (String, String),
    pub rival: String,
    /// The live game a spectator's page follows, and its player.
    pub live: String,
    /// A tournament with a game in play (its bots silent, its clock long).
    pub running_tournament: String,
    player: Option<JoinHandle<()>>,
    /// The two bots' players, who answer the challenge and play it.
    answerers: Vec<JoinHandle<()>>,
}

impl Scene {
    pub(super) async fn set_up(server: &TestServer, a: &mut Arena) -> Scene {
        let mut client = server.client().await;
        // Finished games to replay, and a four-player Meduris at seat 0's turn.
        let mut finished = Vec::new();
        for (name, kind, players, seed) in [
            ("meduris", pb::GameKind::Meduris, 2, 3),
            ("dolmen", pb::GameKind::Dolmen, 3, 4),
        ] {
            let (id, tokens) = create(&mut client, kind, players, seed).await;
            play_random(&mut client, &id, &tokens, &mut Lcg(seed), usize::MAX)
                .await
                .expect("play");
            finished.push((name, id));
        }
        let (big, big_tokens) = create(&mut client, pb::GameKind::Meduris, 4, 12).await;
        play_random(&mut client, &big, &big_tokens, &mut Lcg(12), 120)
            .await
            .expect("play");
        until_seat_zero(&mut client, &big, &big_tokens, 12).await;
        // Seats with secrets: Meduris goods, dolmens of other seats.
        let (med_id, med_tokens) = create(&mut client, pb::GameKind::Meduris, 3, 5).await;
        play_random(&mut client, &med_id, &med_tokens, &mut Lcg(5), 40)
            .await
            .expect("play");
        let (dol_id, dol_tokens) = create(&mut client, pb::GameKind::Dolmen, 5, 5).await;
        until_foreign_dolmen(&mut client, &dol_id, &dol_tokens, 0).await;
        // A game waiting for a player: its open seat, in the list.
        druids_tests::create_waiting(&mut client).await;
        // The ladder, and a bot ready to be challenged from the browser.
        let bots = ladder(server, a).await;
        let running_tournament = in_play(a, client.clone()).await;
        let (me, me_key) = register(a, "my-bot").await;
        let (rival, rival_key) = register(a, "greedy-rival").await;
        // A rated match each, so that both are on the leaderboard the page
        // offers opponents from.
        let seek = pb::SeekRequest {
            kind: pb::GameKind::Dolmen as i32,
            min_players: 2,
            max_players: 2,
            rated: true,
        };
        tokio::join!(
            seek_and_play(server.url(), me_key.clone(), seek, 7),
            seek_and_play(server.url(), rival_key.clone(), seek, 8)
        );
        let challenged = tokio::spawn(answer_and_play(server.url(), rival_key.clone()));
        let challenger = tokio::spawn(answer_and_play(server.url(), me_key.clone()));
        // A live game, played once the spectator's page follows it.
        let (live_id, live_tokens) = create(&mut client, pb::GameKind::Dolmen, 2, 11).await;
        let player = {
            let service = Arc::clone(&server.service);
            let mut client = server.client().await;
            let (id, tokens) = (live_id.clone(), live_tokens.clone());
            tokio::spawn(async move {
                while service.open_streams() == 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                play_random(&mut client, &id, &tokens, &mut Lcg(11), usize::MAX)
                    .await
                    .expect("play the live game");
            })
        };

        Scene {
            finished,
            big: (big, big_tokens),
            meduris: (med_id, med_tokens),
            dolmen: (dol_id, dol_tokens),
            bots,
            me: (me, me_key),
            rival,
            live: live_id,
            running_tournament,
            player: Some(player),
            answerers: vec![challenged, challenger],
        }
    }

    /// The plan `run.mjs` follows.
    pub(super) fn plan(
        &self,
        base: &str,
        chromium: &Path,
        screenshots: &Path,
        user_data: &Path,
    ) -> Value {
        let (finished, replay_step) = (&self.finished, REPLAY_STEP);
        let (big, big_tokens) = &self.big;
        let (med_id, med_tokens) = &self.meduris;
        let (dol_id, dol_tokens) = &self.dolmen;
        let (bots, me_key, rival, live_id) = (&self.bots, &self.me.1, &self.rival, &self.live);
        json!({
            "base": base,
            "chromium": chromium,
            "screenshots": screenshots,
            "userDataDir": user_data,
            "widths": [360, 768, 1280],
            "list": true,
            "spectate": {"gameId": live_id},
            "replays": finished.iter().map(|(name, id)| json!({"name": name, "gameId": id, "step": replay_step})).collect::<Vec<_>>(),
            "human": [{"kind": "meduris", "seed": 7}, {"kind": "dolmen", "seed": 8}],
            "resign": {"kind": "dolmen", "seed": 9},
            "boards": [
                {"name": "Meduris, 4 players, seat 0 to decide", "path": format!("/games/{big}#token={}", big_tokens[0])},
                {"name": "Meduris, 3 players", "path": format!("/games/{med_id}")},
                {"name": "Die Dolmengötter, 5 players", "path": format!("/games/{dol_id}")},
            ],
            "secrets": [
                {"name": "meduris", "gameId": med_id, "token": med_tokens[0], "seat": 0},
                {"name": "dolmen", "gameId": dol_id, "token": dol_tokens[0], "seat": 0},
            ],
            "ladder": {"game": "dolmen", "players": 2, "botId": bots[0].0, "tournament": LADDER_CUP},
            "runningTournament": self.running_tournament,
            "challenge": {"key": me_key, "kind": "GAME_KIND_DOLMEN", "opponentId": rival},
            "errors": [
                {"name": "unknown game", "path": "/games/0123456789abcdef"},
                {"name": "bad token", "path": format!("/games/{med_id}#token=00ff")},
                {"name": "unknown page", "path": "/no/such/page"},
                {"name": "unknown bot", "path": "/bots/00000000000000ff"},
                {"name": "unknown pool", "path": "/ladder/chess/2"},
                {"name": "pool of too many players", "path": "/ladder/meduris/9"},
                {"name": "malformed address", "path": "/games/%E0%A4%A"},
            ],
        })
    }

    /// Stops the bots that answer challenges, and waits for the live game's
    /// player to finish.
    pub(super) async fn stop_bots(&mut self) {
        for a in &self.answerers {
            a.abort();
        }
        if let Some(player) = self.player.take() {
            player.await.expect("the live game played");
        }
    }
}

/// Plays random actions until a seat other than `seat` has a dolmen on the
/// board (its value hidden from `seat`), with the game still running.
async fn until_foreign_dolmen(client: &mut Client, game_id: &str, tokens: &[String], seat: u32) {
    let mut rng = Lcg(5);
    for _ in 0..2000 {
        let st = state(client, game_id, None).await;
        let Some(pb::state_view::Game::Dolmen(v)) = &st.game else {
            panic!("not a dolmen game")
        };
        if v.circles
            .iter()
            .any(|c| c.stack.iter().any(|d| d.seat != seat))
        {
            return;
        }
        assert_eq!(st.status, pb::GameStatus::Running as i32, "over too early");
        play_random(client, game_id, tokens, &mut rng, 1)
            .await
            .expect("play");
    }
    panic!("no dolmen of another seat after 2000 actions");
}

/// Plays random actions until it is seat 0's decision.
async fn until_seat_zero(client: &mut Client, game_id: &str, tokens: &[String], seed: u64) {
    let mut rng = Lcg(seed);
    while state(client, game_id, None).await.to_act != Some(0) {
        play_random(client, game_id, tokens, &mut rng, 1)
            .await
            .expect("play");
    }
}

/// Plays the games of a bot's matches and accepts every challenge to it,
/// until aborted.
async fn answer_and_play(url: String, key: String) {
    let mut arena = ArenaServiceClient::connect(url.clone())
        .await
        .expect("connect");
    let mut stream = arena
        .stream_bot_events(authed(&key, pb::StreamBotEventsRequest { from_seq: 1 }))
        .await
        .expect("events")
        .into_inner();
    let mut games = tokio::task::JoinSet::new();
    while let Ok(Some(event)) = druids_tests::heartbeats::next_event(&mut stream).await {
        match event.event {
            Some(pb::bot_event::Event::ChallengeReceived(c)) => {
                arena
                    .answer_challenge(authed(
                        &key,
                        pb::AnswerChallengeRequest {
                            challenge_id: c.challenge_id,
                            accept: true,
                            ..Default::default()
                        },
                    ))
                    .await
                    .expect("accept");
            }
            Some(pb::bot_event::Event::GameStarted(g)) => {
                games.spawn(play_seat(
                    url.clone(),
                    g.game_id,
                    key.clone(),
                    g.seat,
                    event.seq,
                ));
            }
            _ => {}
        }
    }
}

/// The name of the ladder's finished tournament.
pub(super) const LADDER_CUP: &str = "Autumn cup";

/// A round-robin tournament of two silent bots on a ten-minute clock: its
/// one game stays in play while the pages look at it. Returns its id once
/// the game has started.
async fn in_play(a: &mut Arena, mut client: Client) -> String {
    let mut entrants = Vec::new();
    for name in ["dee", "eve"] {
        entrants.push(register(a, name).await.0);
    }
    let t = a
        .create_tournament(authed(
            crate::arena::OPERATOR,
            pb::CreateTournamentRequest {
                name: "Winter cup".into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants,
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                time_control: Some(pb::TimeControl {
                    decision_ms: 600_000,
                    time_bank_ms: 0,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("a tournament in play")
        .into_inner()
        .tournament
        .unwrap();
    for _ in 0..1200 {
        if !running_games(&mut client, &t.tournament_id)
            .await
            .is_empty()
        {
            return t.tournament_id;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the tournament's game never started");
}

/// The games of tournament `id` in play, as ListGames answers.
pub(super) async fn running_games(client: &mut Client, id: &str) -> Vec<pb::GameSummary> {
    client
        .list_games(pb::ListGamesRequest {
            tournament_id: id.to_owned(),
            status: pb::GameStatus::Running as i32,
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games
}

/// A ladder: three bots play rated two-player Die Dolmengötter matches (by
/// matchmaking) and a round-robin tournament. Returns the bots (id, key).
async fn ladder(server: &TestServer, a: &mut Arena) -> Vec<(String, String)> {
    let mut bots = Vec::new();
    for name in ["ada", "bob", "cy"] {
        bots.push(register(a, name).await);
    }
    let seek = pb::SeekRequest {
        kind: pb::GameKind::Dolmen as i32,
        min_players: 2,
        max_players: 2,
        rated: true,
    };
    for (round, (x, y)) in [(0, 1), (1, 2), (0, 2), (0, 1)].into_iter().enumerate() {
        let first = seek_and_play(server.url(), bots[x].1.clone(), seek, 100 + round as u64);
        let second = seek_and_play(server.url(), bots[y].1.clone(), seek, 200 + round as u64);
        tokio::join!(first, second);
    }
    let players: Vec<_> = bots
        .iter()
        .map(|(_, key)| tokio::spawn(answer_and_play(server.url(), key.clone())))
        .collect();
    let t = a
        .create_tournament(authed(
            crate::arena::OPERATOR,
            pb::CreateTournamentRequest {
                name: LADDER_CUP.into(),
                kind: pb::GameKind::Dolmen as i32,
                players: 2,
                entrants: bots.iter().map(|(id, _)| id.clone()).collect(),
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                ..Default::default()
            },
        ))
        .await
        .expect("tournament")
        .into_inner()
        .tournament
        .unwrap();
    wait_tournament(a, &t.tournament_id, |t| {
        t.status == pb::TournamentStatus::Finished as i32
    })
    .await;
    for p in players {
        p.abort();
    }
    bots
}
