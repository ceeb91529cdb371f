//! One large matchmaking pass does not block the arena (issue 27): the
//! games of a pass are created at once, each told to its bots as soon as it
//! exists, and no pass holds the arena's lock while it writes, so
//! `GetLeaderboard` and new seeks are answered while games are still being
//! created. A tournament's round opens its matches the same way, and a round
//! tells the ends of games and matches once it has let the lock go; a
//! challenge's match is recorded without the lock too. The
//! store under the server is a real in-memory store whose game creations (or
//! the bots' logs' game ends) wait at a gate the test opens: what is checked
//! is the order of events, never how long anything took.

use std::sync::Arc;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::MemoryStore;
use druids_tests::{TestServer, authed};
use tokio::sync::mpsc;

use crate::arena::{
    Arena, arena, bot_events_until, challenge, limits, meduris_challenge, register,
};
use crate::gated_store::{GUARD, Gate, Gated, GatedStore, OpenOnDrop};

/// What a seeking bot's stream said: (bot, its first event) or (bot, the
/// game it was told it plays).
enum Heard {
    Seeking(usize),
    Game(usize, String),
}

/// Opens a two-player unrated Meduris seek (one game a match) for bot
/// `bot` and reports its stream's `Seeking` and `GameStarted` on `heard`.
async fn seek(server: &TestServer, bot: usize, key: String, heard: mpsc::UnboundedSender<Heard>) {
    let mut a = arena(server).await;
    tokio::spawn(async move {
        let mut stream = a
            .seek(authed(
                &key,
                pb::SeekRequest {
                    kind: pb::GameKind::Meduris as i32,
                    min_players: 2,
                    max_players: 2,
                    rated: false,
                },
            ))
            .await
            .expect("seek")
            .into_inner();
        while let Ok(Some(event)) = druids_tests::heartbeats::next_event(&mut stream).await {
            let said = match event.event {
                Some(pb::seek_event::Event::Seeking(_)) => Heard::Seeking(bot),
                Some(pb::seek_event::Event::GameStarted(g)) => Heard::Game(bot, g.game_id),
                _ => continue,
            };
            if heard.send(said).is_err() {
                return;
            }
        }
    });
}

/// Two new bots (`name`-0 and -1) seek and are matched, one game; the first
/// resigns it, which ends the game and its match. Their keys, and the game.
pub(crate) async fn match_resigned(
    server: &TestServer,
    a: &mut Arena,
    name: &str,
) -> (Vec<String>, String) {
    let mut keys = Vec::new();
    for i in 0..2 {
        keys.push(register(a, &format!("{name}-{i}")).await.1);
    }
    let (tx, mut heard) = mpsc::unbounded_channel();
    for (bot, key) in keys.iter().enumerate() {
        seek(server, bot, key.clone(), tx.clone()).await;
    }
    let game = loop {
        if let Heard::Game(_, game) = next(&mut heard).await {
            break game;
        }
    };
    let mut games = DruidsServiceClient::connect(server.url())
        .await
        .expect("connect");
    let resign = pb::ResignRequest {
        game_id: game.clone(),
        idempotency_key: String::new(),
    };
    games
        .resign(authed(&keys[0], resign))
        .await
        .expect("resign");
    (keys, game)
}

/// The first event of tournament `id`'s log that `pick` picks (`what`,
/// guarded against a deadlock).
pub(crate) async fn tournament_event<T>(
    a: &mut Arena,
    id: &str,
    what: &str,
    pick: impl Fn(pb::tournament_event::Event) -> Option<T>,
) -> T {
    let mut events = a
        .stream_tournament_events(pb::StreamTournamentEventsRequest {
            tournament_id: id.to_owned(),
            from_seq: 1,
        })
        .await
        .expect("the tournament's events")
        .into_inner();
    loop {
        let event = tokio::time::timeout(GUARD, druids_tests::heartbeats::next_event(&mut events))
            .await
            .unwrap_or_else(|_| panic!("never happened: {what}"))
            .expect("the stream stays open")
            .expect("the stream goes on while the tournament runs");
        if let Some(picked) = event.event.and_then(&pick) {
            return picked;
        }
    }
}

/// A server over a [`GatedStore`] whose `gated` calls wait, and its gate.
pub(crate) async fn gated_server(gated: Gated) -> (Arc<Gate>, TestServer) {
    let gate = Arc::new(Gate::default());
    let store = GatedStore::new(MemoryStore::default(), Arc::clone(&gate), gated);
    (gate, TestServer::with(Arc::new(store), limits()).await)
}

/// Asks for the two-player Meduris leaderboard, which reads the arena's
/// state under its lock: it must be answered (`when`, guarded against a
/// deadlock).
pub(crate) async fn leaderboard_answers(a: &mut Arena, when: &str) {
    tokio::time::timeout(
        GUARD,
        a.get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        }),
    )
    .await
    .unwrap_or_else(|_| panic!("GetLeaderboard is not answered {when}"))
    .expect("the leaderboard");
}

/// The next thing a seek's stream said (guarded against a deadlock).
async fn next(heard: &mut mpsc::UnboundedReceiver<Heard>) -> Heard {
    tokio::time::timeout(GUARD, heard.recv())
        .await
        .expect("the arena answers while a pass creates games")
        .expect("the seeks' streams are open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_creates_its_games_at_once_and_the_arena_answers_meanwhile() {
    let (gate, server) = gated_server(Gated::CreateGame).await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let mut keys = Vec::new();
    for i in 0..10 {
        keys.push(register(&mut a, &format!("pass-{i}")).await.1);
    }
    let (tx, mut heard) = mpsc::unbounded_channel();

    // Two bots seek: a pass forms their match, and its game's creation waits.
    for (bot, key) in keys.iter().enumerate().take(2) {
        seek(&server, bot, key.clone(), tx.clone()).await;
    }
    gate.until("the first match's game is being created", |c| {
        c.waiting == 1
    })
    .await;

    // Meanwhile the arena answers: the leaderboard, and eight more seeks
    // (each told it is in the pool).
    leaderboard_answers(&mut a, "while a pass creates a game").await;
    for (bot, key) in keys.iter().enumerate().skip(2) {
        seek(&server, bot, key.clone(), tx.clone()).await;
    }
    let mut in_pool = 0;
    let mut games: Vec<Option<String>> = vec![None; keys.len()];
    while in_pool < keys.len() {
        match next(&mut heard).await {
            Heard::Seeking(_) => in_pool += 1,
            Heard::Game(bot, game) => panic!("bot {bot} got game {game} through a closed gate"),
        }
    }

    // The first game is created; its two bots are told; the next pass forms
    // the other four matches, whose four creations wait at the gate together.
    gate.release(1);
    for _ in 0..2 {
        match next(&mut heard).await {
            Heard::Game(bot, game) => games[bot] = Some(game),
            Heard::Seeking(bot) => panic!("bot {bot} was told twice it seeks"),
        }
    }
    assert!(games[0].is_some() && games[0] == games[1], "{games:?}");
    gate.until("the next pass creates its four games at once", |c| {
        c.waiting == 4 && c.done == 1
    })
    .await;

    // One of them is let through: its bots hear of it while the other three
    // are still being created.
    gate.release(1);
    let mut told = Vec::new();
    while told.len() < 2 {
        if let Heard::Game(bot, game) = next(&mut heard).await {
            assert!(games[bot].replace(game).is_none(), "bot {bot} placed twice");
            told.push(bot);
        }
    }
    assert_eq!(
        gate.counts(|c| (c.done, c.waiting)),
        (2, 3),
        "the first bots of a pass are told their game before its last game exists"
    );

    // The rest: every bot in exactly one game, two bots a game.
    gate.open();
    while games.iter().any(Option::is_none) {
        if let Heard::Game(bot, game) = next(&mut heard).await {
            assert!(games[bot].replace(game).is_none(), "bot {bot} placed twice");
        }
    }
    let mut ids: Vec<&String> = games.iter().flatten().collect();
    ids.sort();
    for pair in ids.chunks(2) {
        assert_eq!(pair[0], pair[1], "two bots a game: {ids:?}");
    }
    ids.dedup();
    assert_eq!(ids.len(), 5, "five games for ten bots: {ids:?}");
    assert_eq!(gate.counts(|c| c.done), 5, "no game created twice");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_round_creates_its_games_while_the_arena_answers() {
    let (gate, server) = gated_server(Gated::CreateGame).await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let mut bots = Vec::new();
    for i in 0..4 {
        bots.push(register(&mut a, &format!("round-{i}")).await);
    }
    let id = a
        .create_tournament(authed(
            &bots[0].1,
            pb::CreateTournamentRequest {
                name: "gated cup".into(),
                kind: pb::GameKind::Meduris as i32,
                players: 2,
                entrants: vec![bots[0].0.clone()],
                format: Some(pb::create_tournament_request::Format::RoundRobin(
                    pb::RoundRobin { games_per_group: 1 },
                )),
                open_entry: Some(pb::OpenEntry {
                    closes_in_secs: 600,
                    max_entrants: 4,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("create")
        .into_inner()
        .tournament
        .expect("the tournament")
        .tournament_id;
    for (_, key) in &bots[1..] {
        let join = pb::JoinTournamentRequest {
            tournament_id: id.clone(),
        };
        a.join_tournament(authed(key, join)).await.expect("join");
    }

    // Entry is full: the round draws the first round's two matches, whose
    // games wait at the gate.
    gate.until("the first round's games are being created", |c| {
        c.waiting >= 1
    })
    .await;
    leaderboard_answers(&mut a, "while a tournament round creates its games").await;
    assert_eq!(gate.counts(|c| c.done), 0, "no game let through yet");

    // Let through, the round starts with both matches, every entrant in one.
    gate.open();
    let round = tournament_event(
        &mut a,
        &id,
        "the round starts once its games exist",
        |e| match e {
            pb::tournament_event::Event::RoundStarted(r) => Some(r),
            _ => None,
        },
    )
    .await;
    assert_eq!(round.round, 1);
    let mut seated: Vec<String> = round
        .matches
        .iter()
        .flat_map(|m| m.bots.iter().map(|b| b.bot_id.clone()))
        .collect();
    seated.sort();
    let mut entrants: Vec<String> = bots.iter().map(|(id, _)| id.clone()).collect();
    entrants.sort();
    assert_eq!(round.matches.len(), 2, "{round:?}");
    assert_eq!(seated, entrants, "every entrant in one match: {round:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_tells_the_ends_of_games_after_it_lets_the_lock_go() {
    let (gate, server) = gated_server(Gated::AppendGameEndTold).await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    // The round records the match's end and tells both bots; the first
    // write of a game's end to a bot's log waits at the gate.
    let (keys, game) = match_resigned(&server, &mut a, "ends").await;
    gate.until("a bot's log is being told the game's end", |c| {
        c.waiting == 1
    })
    .await;

    // Meanwhile the arena answers: the round no longer holds its lock.
    leaderboard_answers(&mut a, "while a round tells a game's end").await;
    assert_eq!(gate.counts(|c| c.done), 0, "no game's end told yet");

    // Let through, each bot's log tells the match's story in order.
    gate.open();
    for key in &keys {
        use pb::bot_event::Event as E;
        let events = bot_events_until(&mut a, key, |e| {
            e.iter()
                .any(|e| matches!(e.event, Some(E::MatchFinished(_))))
        })
        .await;
        let story: Vec<&str> = events
            .iter()
            .map(|e| match &e.event {
                Some(E::MatchStarted(_)) => "match started",
                Some(E::GameStarted(g)) if g.game_id == game => "game started",
                Some(E::GameFinished(g)) if g.game_id == game => "game finished",
                Some(E::MatchFinished(_)) => "match finished",
                other => panic!("an event this match does not tell: {other:?}"),
            })
            .collect();
        assert_eq!(
            story,
            [
                "match started",
                "game started",
                "game finished",
                "match finished"
            ],
            "{events:?}"
        );
    }
    assert_eq!(
        gate.counts(|c| c.done),
        2,
        "each bot told the game's end once"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenges_match_is_recorded_while_the_arena_answers() {
    let (gate, server) = gated_server(Gated::CreateGame).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let (_, from) = register(&mut a, "challenger").await;
    let (to_id, to) = register(&mut a, "challenged").await;
    let challenge = challenge(&mut a, &from, meduris_challenge(vec![to_id])).await;

    // The acceptance starts the match; its game's creation waits at the gate.
    let mut b = arena(&server).await;
    let id = challenge.challenge_id.clone();
    let accepted = tokio::spawn(async move {
        let accept = pb::AnswerChallengeRequest {
            challenge_id: id,
            accept: true,
            reason: String::new(),
        };
        b.answer_challenge(authed(&to, accept)).await
    });
    gate.until("the challenge's game is being created", |c| c.waiting == 1)
        .await;
    // Meanwhile the arena answers: the match is recorded without its lock.
    leaderboard_answers(&mut a, "while a challenge's match is recorded").await;
    assert!(!accepted.is_finished(), "the acceptance waits for its game");

    gate.open();
    let answered = tokio::time::timeout(GUARD, accepted)
        .await
        .expect("the acceptance is answered once the game exists")
        .expect("the task")
        .expect("accepted")
        .into_inner();
    assert_eq!(answered.match_id, challenge.challenge_id);
    assert_eq!(gate.counts(|c| c.done), 1, "one game, created once");
    server.stop().await;
}
