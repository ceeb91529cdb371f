//! What the browser test checks of the arena's pages, each against the
//! server's own answers: the ladder (GetLeaderboard, GetRatingHistory), a
//! running tournament (GetTournament) and a challenge.

use druids_contract::pb;
use druids_tests::state;
use serde_json::{Value, json};

use super::scene::{Arena, Client, Scene};
use super::shown::assert_shows;

/// The leaderboard, a profile and a tournament show the server's ratings,
/// history, games and standings.
pub(super) async fn ladder(results: &Value, scene: &Scene, client: &mut Client, a: &mut Arena) {
    let bots = &scene.bots;
    let board = a
        .get_leaderboard(pb::GetLeaderboardRequest {
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .expect("leaderboard")
        .into_inner();
    let shown_board = results["leaderboard"].as_array().expect("leaderboard");
    assert_eq!(shown_board.len(), board.entries.len());
    assert!(
        board.entries.len() >= 3,
        "the ladder's bots: {shown_board:?}"
    );
    for (row, entry) in shown_board.iter().zip(&board.entries) {
        let bot = entry.bot.as_ref().unwrap();
        assert_eq!(row["bot"], bot.bot_id);
        let cells = row["cells"].as_array().unwrap();
        assert_eq!(cells[1], bot.name);
        assert!(
            cells[2]
                .as_str()
                .unwrap()
                .starts_with(&format!("{:.1}", entry.rating.unwrap().display)),
            "{row}"
        );
        assert_eq!(cells[5], entry.matches.to_string());
    }
    let history = a
        .get_rating_history(pb::GetRatingHistoryRequest {
            bot_id: bots[0].0.clone(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            page_size: 500,
            ..Default::default()
        })
        .await
        .expect("history")
        .into_inner();
    let profile = &results["profile"];
    assert_eq!(profile["name"], "ada");
    assert_eq!(
        profile["chartMatches"].as_u64(),
        Some(history.points.len() as u64)
    );
    assert!(history.points.len() >= 3, "{}", history.points.len());
    let listed = client
        .list_games(pb::ListGamesRequest {
            bot_id: bots[0].0.clone(),
            page_size: 20,
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games;
    let games: Vec<&String> = listed.iter().map(|g| &g.game_id).collect();
    assert_eq!(profile["games"], json!(games));
    // Each of its latest matches links to its games' replays.
    let matches = profile["matches"].as_array().expect("matches");
    assert!(matches.len() >= 3, "{matches:?}");
    assert_replay_links(matches, &listed);
    let t = a
        .list_tournaments(pb::ListTournamentsRequest::default())
        .await
        .expect("tournaments")
        .into_inner()
        .tournaments
        .into_iter()
        .find(|t| t.name == super::scene::LADDER_CUP)
        .expect("the ladder's tournament");
    let t = a
        .get_tournament(pb::GetTournamentRequest {
            tournament_id: t.tournament_id,
        })
        .await
        .expect("tournament")
        .into_inner()
        .tournament
        .unwrap();
    let standings: Vec<&String> = t
        .standings
        .iter()
        .map(|s| &s.bot.as_ref().unwrap().bot_id)
        .collect();
    assert_eq!(results["tournament"]["standings"], json!(standings));
    // Every result, newest first, with its games' replays.
    let shown = results["tournament"]["results"]
        .as_array()
        .expect("results");
    let ids: Vec<&String> = t.results.iter().rev().map(|m| &m.match_id).collect();
    let shown_ids: Vec<&Value> = shown.iter().map(|r| &r["match"]).collect();
    assert_eq!(json!(shown_ids), json!(ids));
    let games = client
        .list_games(pb::ListGamesRequest {
            tournament_id: t.tournament_id.clone(),
            page_size: 100,
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games;
    assert_replay_links(shown, &games);
    running_tournament(results, scene, client).await;
}

/// A tournament's page lists the games it has in play, each with its
/// players and a link to watch it, as ListGames answers.
async fn running_tournament(results: &Value, scene: &Scene, client: &mut Client) {
    let running = super::scene::running_games(client, &scene.running_tournament).await;
    assert!(!running.is_empty(), "the tournament has a game in play");
    let expected: Vec<Value> = running
        .iter()
        .map(|g| {
            let names: Vec<&str> = g.seats.iter().map(|s| s.name.as_str()).collect();
            json!({"game": g.game_id, "watch": format!("/games/{}", g.game_id), "players": names.join(", ")})
        })
        .collect();
    assert_eq!(results["runningTournament"], json!(expected));
}

/// Each row (`{match, replays}`) links to the replays of exactly the games
/// of its match among `games`, oldest first.
fn assert_replay_links(rows: &[Value], games: &[pb::GameSummary]) {
    for row in rows {
        let mut of_match: Vec<&pb::GameSummary> = games
            .iter()
            .filter(|g| row["match"] == g.match_id)
            .collect();
        of_match.sort_by_key(|g| g.created_unix_ms);
        let links: Vec<String> = of_match
            .iter()
            .map(|g| format!("/games/{}", g.game_id))
            .collect();
        assert!(!links.is_empty(), "the games of {row}");
        assert_eq!(row["replays"], json!(links), "{row}");
    }
}

/// The challenge sent from the browser became a match between the two
/// bots, whose game the page watched to its end.
pub(super) async fn challenge(results: &Value, scene: &Scene, client: &mut Client) {
    let me = &scene.me.0;
    let watched = results["challenge"]["gameId"]
        .as_str()
        .expect("the challenge's game");
    let mine: Vec<pb::GameSummary> = client
        .list_games(pb::ListGamesRequest {
            bot_id: me.clone(),
            ..Default::default()
        })
        .await
        .expect("games")
        .into_inner()
        .games;
    let game = mine
        .iter()
        .find(|g| g.game_id == watched)
        .expect("the challenger's game");
    assert!(
        game.seats.iter().any(|s| s.name == "greedy-rival"),
        "{game:?}"
    );
    assert!(!game.rated);
    let end = state(client, watched, None).await;
    assert_eq!(end.status, pb::GameStatus::Finished as i32);
    assert_shows(&results["challenge"]["shown"], &end, "the challenge's game");
    // The seats by their names, never "seat 0".
    let outcome = results["challenge"]["shown"]["outcome"]
        .as_str()
        .expect("outcome");
    assert!(
        outcome.contains("my-bot")
            && outcome.contains("greedy-rival")
            && !outcome.contains("seat "),
        "{outcome}"
    );
}
