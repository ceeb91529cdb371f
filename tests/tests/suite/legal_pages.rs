//! `GetLegalActions` in pages, through the contract: a long list read page by
//! page is the whole list once, in order, the same as the engine's; it is
//! built once per version and list however many pages are read (the
//! server's `druids_legal_lists_total` counter), and a move drops it.

use std::sync::Arc;

use druids_contract::pb::submit_action_request::Choice::LegalActionId;
use druids_contract::{Kind, pb};
use druids_server::hosted_game::HostedGame;
use druids_tests::{Lcg, TestServer, authed, create, legal, play_random, played_here, state};

use crate::metrics::{sample, scrape};

/// A 2-player Meduris game, seed 128, after 14 random actions (the tests'
/// `Lcg(128)`): the seat to act has a list of 2,403 entries with every
/// payment.
const SEED: u64 = 128;
const PREFIX: usize = 14;

/// The same game, played in this process on the same choices.
fn engine_game() -> Box<dyn HostedGame> {
    played_here(Kind::Meduris, 2, SEED, PREFIX)
}

#[tokio::test]
async fn a_long_list_read_in_pages_is_the_whole_list_once_and_built_once() {
    let server = TestServer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics = listener.local_addr().unwrap();
    let service = Arc::clone(&server.service);
    tokio::spawn(druids_server::metrics::serve_metrics(
        listener,
        move || service.render_metrics(),
        std::future::pending(),
    ));
    let built_lists = || async { sample(&scrape(metrics).await, "druids_legal_lists_total") };

    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, pb::GameKind::Meduris, 2, SEED).await;
    play_random(&mut client, &id, &tokens, &mut Lcg(SEED), PREFIX)
        .await
        .unwrap();
    let mut game = engine_game();
    let st = state(&mut client, &id, None).await;
    assert_eq!(st.version, game.version());
    let seat = st.to_act.unwrap();
    let token = &tokens[seat as usize];
    let expected = game.legal_actions(true);
    let defaults = game.legal_actions(false);
    assert!(expected.len() >= 2000, "{} entries", expected.len());

    // Pages of 100 of the list with every payment, each followed by the
    // first page of the default list, so that both lists are asked for
    // throughout.
    let before = built_lists().await;
    let (mut read, mut pages) = (Vec::new(), 0);
    let mut page_token = String::new();
    loop {
        let page = client
            .get_legal_actions(authed(
                token,
                pb::GetLegalActionsRequest {
                    game_id: id.clone(),
                    all_payments: true,
                    page_size: 100,
                    page_token,
                },
            ))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(page.version, st.version);
        assert!(page.actions.len() <= 100);
        pages += 1;
        read.extend(page.actions);
        let default = legal(&mut client, &id, token, false).await.unwrap();
        assert_eq!(default.actions, defaults);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(pages, expected.len().div_ceil(100));
    assert!(read == expected, "the pages are not the engine's list");
    // Each list built once: the default list, and the list with every
    // payment.
    let built = built_lists().await - before;
    assert_eq!(
        built,
        2.0,
        "lists built to read {} entries in {pages} pages",
        expected.len()
    );

    // A move drops the lists: the next page is the new position's.
    let pick = LegalActionId(0);
    game.apply(game.to_act().unwrap(), &pick, None).unwrap();
    client
        .submit_action(authed(
            token,
            pb::SubmitActionRequest {
                game_id: id.clone(),
                choice: Some(pick),
                expected_version: Some(st.version),
                idempotency_key: String::new(),
            },
        ))
        .await
        .unwrap();
    let seat = game.to_act().unwrap();
    let after = legal(&mut client, &id, &tokens[usize::from(seat.0)], true)
        .await
        .unwrap();
    let expected = game.legal_actions(true);
    assert_eq!(after.actions, expected[..expected.len().min(1000)]);
    server.stop().await;
}
