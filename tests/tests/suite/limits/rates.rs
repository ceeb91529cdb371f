//! Creates and reads are rate-limited per address with a retry delay, and
//! what a client gets refused for (a made-up token, a bad request) spends
//! the same budget; the arena's public reads too. The server's clock moves
//! only when a test says, so budgets do not refill between two calls.

use super::*;

/// A server within `limits` whose time moves only when the test says, so
/// that budgets do not refill between two calls on a slow machine.
async fn on_manual_clock(limits: Limits) -> (TestServer, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::at(1_000_000));
    let server = TestServer::with_clock(
        Arc::new(MemoryStore::default()),
        limits,
        Arc::clone(&clock) as Arc<dyn druids_server::Clock>,
    )
    .await;
    (server, clock)
}

#[tokio::test]
async fn setups_and_reads_are_rate_limited_with_a_retry_delay() {
    let limits = Limits {
        max_setups_per_second: 2,
        max_reads_per_second: 3,
        max_anonymous_reads_per_second: 20,
        ..Limits::default()
    };
    let (server, clock) = on_manual_clock(limits).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 1).await;
    create(&mut client, MEDURIS, 2, 2).await;
    let third = client
        .create_game(pb::CreateGameRequest {
            kind: MEDURIS as i32,
            players: 2,
            ..Default::default()
        })
        .await;
    let status = refused(third, Code::ResourceExhausted, "RATE_LIMITED");
    let delay = status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .expect("a retry delay");
    assert!(
        delay > Duration::ZERO && delay <= Duration::from_secs(1),
        "{delay:?}"
    );
    // The same as plain trailers, for a client without google.rpc's protos.
    let trailer = |s: &tonic::Status, key: &str| {
        s.metadata()
            .get(key)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(
        trailer(&status, "druids-reason").as_deref(),
        Some("RATE_LIMITED")
    );
    assert_eq!(
        trailer(&status, "druids-retry-after-ms"),
        Some(delay.as_millis().to_string())
    );
    // Reads with a token: the token's budget.
    let read = |c: &mut DruidsServiceClient<_>, t: &str| {
        let req = authed(
            t,
            pb::GetStateRequest {
                game_id: id.clone(),
            },
        );
        let mut c = c.clone();
        async move { c.get_state(req).await }
    };
    for _ in 0..3 {
        read(&mut client, &tokens[0]).await.unwrap();
    }
    let read_refused = refused(
        read(&mut client, &tokens[0]).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    // The other seat has its own budget.
    read(&mut client, &tokens[1]).await.unwrap();
    // Spectators: ListGames costs 10 of the address's 20.
    client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap();
    client
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap();
    refused(
        client.list_games(pb::ListGamesRequest::default()).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    // After the delay it names, reads go through again.
    let delay = read_refused
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .expect("a retry delay");
    clock.advance(delay.as_millis() as u64);
    read(&mut client, &tokens[0]).await.unwrap();
    // A refusal with no delay: its reason alone.
    clock.advance(1_000);
    let unknown = client
        .get_state(pb::GetStateRequest {
            game_id: "0000000000000000".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        trailer(&unknown, "druids-reason").as_deref(),
        Some("GAME_NOT_FOUND")
    );
    assert_eq!(trailer(&unknown, "druids-retry-after-ms"), None);
    assert!(unknown.get_details_retry_info().is_none());
    server.stop().await;
}

/// A made-up token buys no budget of its own: its reads, every refusal of a
/// token or a game id, and every list of games (whatever token it sends)
/// are charged to the address.
#[tokio::test]
async fn made_up_tokens_and_refusals_spend_the_address_budget() {
    let limits = Limits {
        max_reads_per_second: 100,
        max_anonymous_reads_per_second: 20,
        ..Limits::default()
    };
    let (server, clock) = on_manual_clock(limits).await;
    let mut client = server.client().await;
    let (id, tokens) = create(&mut client, MEDURIS, 2, 1).await;
    let made_up = |n: usize| format!("{n:064x}");
    // ListGames costs 10: a fresh token each time still spends the address's
    // 20.
    for n in 0..2 {
        client
            .list_games(authed(&made_up(n), pb::ListGamesRequest::default()))
            .await
            .unwrap();
    }
    refused(
        client
            .list_games(authed(&made_up(2), pb::ListGamesRequest::default()))
            .await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    // A list of games is no seat's read: a real seat's token (made by the
    // dozen with CreateGame) lists on the address's budget too, while its
    // own game's reads are its own.
    refused(
        client
            .list_games(authed(&tokens[0], pb::ListGamesRequest::default()))
            .await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    client
        .get_state(authed(
            &tokens[0],
            pb::GetStateRequest {
                game_id: id.clone(),
            },
        ))
        .await
        .unwrap();
    clock.advance(1_000);
    // Refusals cost a read each: 20 unknown tokens, or unknown games, then
    // the address is told to wait rather than told no.
    let get = |token: Option<String>, game: String| {
        let mut c = client.clone();
        async move {
            let req = pb::GetStateRequest { game_id: game };
            match token {
                Some(t) => c.get_state(authed(&t, req)).await,
                None => c.get_state(req).await,
            }
        }
    };
    for n in 0..10 {
        let e = get(Some(made_up(n)), id.clone()).await.unwrap_err();
        assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
        let e = get(None, format!("{n:016x}")).await.unwrap_err();
        assert_eq!(e.code(), Code::NotFound, "{e:?}");
    }
    refused(
        get(Some(made_up(99)), id.clone()).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    refused(
        get(None, "feedfeedfeedfeed".into()).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    // The seat's own reads are not the address's.
    get(Some(tokens[1].clone()), id.clone()).await.unwrap();
    // An id longer than any game's is refused before any lookup.
    let e = get(None, "a".repeat(10_000)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().len() < 200, "{}", e.message());
    server.stop().await;
}

/// The arena's public reads are charged to the address too: a leaderboard
/// or a rating history costs 10, a profile, a pool list or a tournament 1.
#[tokio::test]
async fn the_arenas_public_reads_spend_the_address_budget() {
    let limits = Limits {
        max_anonymous_reads_per_second: 20,
        ..Limits::default()
    };
    let (server, clock) = on_manual_clock(limits).await;
    let mut arena = crate::arena::arena(&server).await;
    let board = || pb::GetLeaderboardRequest {
        kind: pb::GameKind::Meduris as i32,
        players: 2,
        ..Default::default()
    };
    for _ in 0..2 {
        arena.get_leaderboard(board()).await.unwrap();
    }
    refused(
        arena.get_leaderboard(board()).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    refused(
        arena.list_pools(pb::ListPoolsRequest::default()).await,
        Code::ResourceExhausted,
        "RATE_LIMITED",
    );
    clock.advance(1_000);
    arena.get_leaderboard(board()).await.unwrap();
    server.stop().await;
}
