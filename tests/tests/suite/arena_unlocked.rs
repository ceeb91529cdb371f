//! The arena's small writes hold no lock either: a match's result, a
//! challenge stored, answered or cancelled, a tournament created, joined or
//! ended, a bot registered are each stored while every other arena call
//! (here `GetLeaderboard`) is answered; calls about the same challenge,
//! entry or name wait for the one being stored, or are refused, so they see
//! what it stored. The store is a
//! real in-memory store whose one kind of write waits at a gate the test
//! opens: what is checked is the order of events, never how long anything
//! took.

use std::sync::Arc;

use druids_contract::pb;
use druids_server::{MemoryStore, Store};
use druids_tests::{TestServer, authed};

use crate::arena::{
    Arena, OPERATOR, arena, bot_events_until, challenge, limits, meduris_challenge, register,
};
use crate::arena_pass::{leaderboard_answers, match_resigned, tournament_event};
use crate::gated_store::{GUARD, Gate, Gated, GatedStore, OpenOnDrop};

/// A server over a [`GatedStore`] whose `gated` writes wait, its gate and
/// its store (for a restart on it).
async fn gated(gated: Gated) -> (Arc<Gate>, Arc<dyn Store>, TestServer) {
    let gate = Arc::new(Gate::default());
    let store: Arc<dyn Store> = Arc::new(GatedStore::new(
        MemoryStore::default(),
        Arc::clone(&gate),
        gated,
    ));
    let server = TestServer::with(Arc::clone(&store), limits()).await;
    (gate, store, server)
}

/// Awaits a spawned call's answer (guarded against a deadlock).
async fn answered<T>(call: tokio::task::JoinHandle<T>, what: &str) -> T {
    tokio::time::timeout(GUARD, call)
        .await
        .unwrap_or_else(|_| panic!("never answered: {what}"))
        .expect("the call's task")
}

/// Bot `key` answers challenge `id`, in a task of its own.
async fn answer(
    server: &TestServer,
    key: &str,
    id: &str,
    accept: bool,
) -> tokio::task::JoinHandle<Result<pb::AnswerChallengeResponse, tonic::Status>> {
    let mut a = arena(server).await;
    let req = authed(
        key,
        pb::AnswerChallengeRequest {
            challenge_id: id.to_owned(),
            accept,
            reason: if accept { String::new() } else { "busy".into() },
        },
    );
    tokio::spawn(async move { a.answer_challenge(req).await.map(|r| r.into_inner()) })
}

/// The `challenge_ended` event of bot `key`'s log, once it is there.
async fn challenge_ended(a: &mut Arena, key: &str) -> pb::ChallengeEnded {
    use pb::bot_event::Event as E;
    let ended = |e: &pb::BotEvent| match &e.event {
        Some(E::ChallengeEnded(ended)) => Some(ended.clone()),
        _ => None,
    };
    let events = bot_events_until(a, key, |events| events.iter().any(|e| ended(e).is_some())).await;
    events.iter().find_map(ended).expect("the end is there")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_matchs_result_is_recorded_while_the_arena_answers() {
    let (gate, _, server) = gated(Gated::FinishMatch).await;
    // Dropped before the server is.
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    // The match's game ends: the round records the match's result, which
    // waits at the gate.
    let (keys, _) = match_resigned(&server, &mut a, "result").await;
    gate.until("the match's result is being recorded", |c| c.waiting == 1)
        .await;
    leaderboard_answers(&mut a, "while a match's result is recorded").await;

    // Let through, both bots are told the match's end, recorded once.
    gate.open();
    for key in &keys {
        bot_events_until(&mut a, key, |events| {
            events
                .iter()
                .any(|e| matches!(e.event, Some(pb::bot_event::Event::MatchFinished(_))))
        })
        .await;
    }
    assert_eq!(gate.counts(|c| c.done), 1, "the result recorded once");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_and_its_answers_are_stored_while_the_arena_answers() {
    let (gate, store, server) = gated(Gated::SaveChallenge).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let (_, from) = register(&mut a, "challenger").await;
    let (first_id, first) = register(&mut a, "first").await;
    let (second_id, second) = register(&mut a, "second").await;

    // The challenge of both is stored at the gate.
    let mut made_by = arena(&server).await;
    let req = meduris_challenge(vec![first_id, second_id.clone()]);
    let from_key = from.clone();
    let made = tokio::spawn(async move { challenge(&mut made_by, &from_key, req).await });
    gate.until("the challenge is being stored", |c| c.waiting == 1)
        .await;
    leaderboard_answers(&mut a, "while a challenge is stored").await;
    gate.release(1);
    let id = answered(made, "the challenge").await.challenge_id;

    // The first opponent accepts (not the last acceptance: stored at the
    // gate). The second declines meanwhile: the decline waits for the
    // acceptance, so the store forgets the challenge after storing it.
    let accepted = answer(&server, &first, &id, true).await;
    gate.until("the acceptance is being stored", |c| c.waiting == 1)
        .await;
    let declined = answer(&server, &second, &id, false).await;
    leaderboard_answers(&mut a, "while an acceptance is stored").await;
    leaderboard_answers(&mut a, "while a decline waits").await;
    assert!(
        !declined.is_finished(),
        "the decline waits for the acceptance"
    );
    gate.open();
    answered(accepted, "the acceptance")
        .await
        .expect("accepted");
    answered(declined, "the decline").await.expect("declined");
    let ended = challenge_ended(&mut a, &from).await;
    assert_eq!(ended.cause, pb::ChallengeEndCause::Declined as i32);
    assert_eq!(ended.by.map(|b| b.bot_id), Some(second_id));
    assert_eq!(
        gate.counts(|c| c.done),
        2,
        "the challenge, then its acceptance"
    );

    // A restart on the same store does not bring the declined challenge back.
    server.stop().await;
    let server = TestServer::with(store, limits()).await;
    let mut a = arena(&server).await;
    let cancel = pb::CancelChallengeRequest {
        challenge_id: id.clone(),
    };
    let gone = a
        .cancel_challenge(authed(&from, cancel))
        .await
        .expect_err("the challenge ended");
    assert_eq!(gone.code(), tonic::Code::NotFound, "{gone:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_is_stored_while_the_arena_answers_and_an_answer_waits_for_it() {
    let (gate, _, server) = gated(Gated::RemoveChallenge).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let (_, from) = register(&mut a, "challenger").await;
    let (to_id, to) = register(&mut a, "challenged").await;
    let id = challenge(&mut a, &from, meduris_challenge(vec![to_id]))
        .await
        .challenge_id;

    // The challenger cancels: the store forgets the challenge at the gate.
    // The opponent accepts meanwhile: its answer waits, and finds the
    // challenge gone.
    let mut by = arena(&server).await;
    let cancel = authed(
        &from,
        pb::CancelChallengeRequest {
            challenge_id: id.clone(),
        },
    );
    let cancelled = tokio::spawn(async move { by.cancel_challenge(cancel).await });
    gate.until("the challenge is being forgotten", |c| c.waiting == 1)
        .await;
    let accepted = answer(&server, &to, &id, true).await;
    leaderboard_answers(&mut a, "while a challenge is forgotten").await;
    leaderboard_answers(&mut a, "while an acceptance waits").await;
    assert!(
        !accepted.is_finished(),
        "the acceptance waits for the cancel"
    );
    gate.open();
    answered(cancelled, "the cancel").await.expect("cancelled");
    let late = answered(accepted, "the acceptance")
        .await
        .expect_err("no challenge left to accept");
    assert_eq!(late.code(), tonic::Code::NotFound, "{late:?}");
    let ended = challenge_ended(&mut a, &to).await;
    assert_eq!(ended.cause, pb::ChallengeEndCause::Cancelled as i32);
    assert_eq!(gate.counts(|c| c.done), 1, "forgotten once");
    server.stop().await;
}

/// Bot `key` joins tournament `id`, in a task of its own.
async fn join(
    server: &TestServer,
    key: &str,
    id: &str,
) -> tokio::task::JoinHandle<Result<tonic::Response<pb::JoinTournamentResponse>, tonic::Status>> {
    let mut a = arena(server).await;
    let req = authed(
        key,
        pb::JoinTournamentRequest {
            tournament_id: id.to_owned(),
        },
    );
    tokio::spawn(async move { a.join_tournament(req).await })
}

/// An open-entry two-player Meduris round robin closing in `secs`.
fn open_tournament(secs: u32) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        name: "unlocked".into(),
        kind: pb::GameKind::Meduris as i32,
        players: 2,
        format: Some(pb::create_tournament_request::Format::RoundRobin(
            pb::RoundRobin { games_per_group: 1 },
        )),
        open_entry: Some(pb::OpenEntry {
            closes_in_secs: secs,
            max_entrants: 0,
        }),
        ..Default::default()
    }
}

/// Tournament `id` as GetTournament shows it.
async fn tournament(a: &mut Arena, id: &str) -> pb::Tournament {
    let req = pb::GetTournamentRequest {
        tournament_id: id.to_owned(),
    };
    let reply = a.get_tournament(req).await.expect("the tournament");
    reply.into_inner().tournament.expect("the tournament")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_is_created_and_joined_while_the_arena_answers() {
    let (gate, _, server) = gated(Gated::TournamentEntry).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;
    let (bot_id, key) = register(&mut a, "entrant").await;

    // The operator creates a tournament: stored at the gate.
    let mut by = arena(&server).await;
    let created = tokio::spawn(async move {
        let create = authed(OPERATOR, open_tournament(3_600));
        by.create_tournament(create).await.map(|r| r.into_inner())
    });
    gate.until("the tournament is being stored", |c| c.waiting == 1)
        .await;
    leaderboard_answers(&mut a, "while a tournament is stored").await;
    gate.release(1);
    let id = answered(created, "the creation")
        .await
        .expect("created")
        .tournament
        .expect("the tournament")
        .tournament_id;

    // A bot joins: its entry is logged at the gate. The same bot joins
    // again meanwhile: that call waits for the first, and enters no one.
    let first = join(&server, &key, &id).await;
    gate.until("the entry is being logged", |c| c.waiting == 1)
        .await;
    let again = join(&server, &key, &id).await;
    leaderboard_answers(&mut a, "while an entry is logged").await;
    assert_eq!(
        tournament(&mut a, &id).await.entrants.len(),
        0,
        "an entry counts once it is logged"
    );
    gate.release(1);
    answered(first, "the entry").await.expect("joined");
    answered(again, "the second entry")
        .await
        .expect("joined already");
    let entrants: Vec<String> = (tournament(&mut a, &id).await.entrants.into_iter())
        .map(|b| b.bot_id)
        .collect();
    assert_eq!(entrants, [bot_id], "entered once");
    assert_eq!(gate.counts(|c| c.done), 2, "the tournament, then one entry");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournaments_end_is_recorded_while_the_arena_answers() {
    let (gate, _, server) = gated(Gated::FinishTournament).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;

    // Entry closes after a second with no one in: the tournament is
    // cancelled, and the record of its end waits at the gate.
    let create = authed(OPERATOR, open_tournament(1));
    let id = (a
        .create_tournament(create)
        .await
        .expect("created")
        .into_inner())
    .tournament
    .expect("the tournament")
    .tournament_id;
    gate.until("the tournament's end is being recorded", |c| c.waiting == 1)
        .await;
    leaderboard_answers(&mut a, "while a tournament's end is recorded").await;
    gate.open();
    let cancelled = tournament_event(
        &mut a,
        &id,
        "the end is logged once recorded",
        |e| match e {
            pb::tournament_event::Event::Cancelled(c) => Some(c),
            _ => None,
        },
    )
    .await;
    assert!(cancelled.reason.contains("entrants"), "{cancelled:?}");
    let t = tournament(&mut a, &id).await;
    assert_eq!(t.status, pb::TournamentStatus::Cancelled as i32);
    assert_eq!(gate.counts(|c| c.done), 1, "recorded once");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_is_registered_while_the_arena_answers_and_its_name_is_taken_meanwhile() {
    let (gate, _, server) = gated(Gated::RegisterBot).await;
    let _open = OpenOnDrop(Arc::clone(&gate));
    let mut a = arena(&server).await;

    // A bot registers: stored at the gate.
    let mut by = arena(&server).await;
    let registered = tokio::spawn(async move { register(&mut by, "Gated-Ada").await });
    gate.until("the bot is being registered", |c| c.waiting == 1)
        .await;
    leaderboard_answers(&mut a, "while a bot is registered").await;

    // A look-alike name is taken meanwhile: refused at once, not stored.
    let look_alike = pb::RegisterBotRequest {
        name: "gated-ada".into(),
        description: "a look-alike".into(),
        owner_contact: "tests@druids.dev".into(),
    };
    let taken = a
        .register_bot(look_alike)
        .await
        .expect_err("the name is being registered");
    assert_eq!(taken.code(), tonic::Code::AlreadyExists, "{taken:?}");
    gate.open();
    let (id, _) = answered(registered, "the registration").await;
    let req = pb::GetBotRequest { bot_id: id };
    let bot = a.get_bot(req).await.expect("the bot").into_inner();
    assert_eq!(bot.bot.map(|b| b.name).as_deref(), Some("Gated-Ada"));
    assert_eq!(gate.counts(|c| c.done), 1, "one bot stored");
    server.stop().await;
}
