//! Self-play through the server.

use super::*;

/// Self-play through the server for both games (Die Dolmengötter with five
/// players, as in its issue's acceptance command), also with silent seats whose
/// clocks run out: the games' default actions finish them.
#[test]
fn selfplay_through_the_server_completes_every_game() {
    let url = server();
    for (game, players, min_actions) in [("meduris", "4", 100), ("dolmen", "5", 15)] {
        let (ok, out, err) = druids(
            &url,
            &[
                "selfplay",
                "--game",
                game,
                "--players",
                players,
                "--games",
                "4",
                "--concurrency",
                "2",
            ],
        );
        assert!(ok, "{err}");
        let j = last_json(&out);
        assert_eq!(j["game"], game);
        assert_eq!(j["games"], 4);
        assert_eq!(j["completed"], 4);
        assert_eq!(j["errors"], 0);
        assert!(j["actions"].as_u64().unwrap() > 4 * min_actions);

        // A quarter of the seats never answer: the clocks finish every game.
        let (ok, out, err) = druids(
            &url,
            &[
                "selfplay",
                "--game",
                game,
                "--players",
                "4",
                "--games",
                "2",
                "--concurrency",
                "2",
                "--silent-fraction",
                "0.25",
                "--decision-ms",
                "30",
                "--autopilot-after",
                "3",
            ],
        );
        assert!(ok, "{err}");
        let j = last_json(&out);
        assert_eq!(j["completed"], 2);
        assert!(j["timeouts"].as_u64().unwrap() > 0);
    }

    // Silent seats without --decision-ms get a 200 ms clock.
    let (ok, out, err) = druids(
        &url,
        &[
            "selfplay",
            "--players",
            "2",
            "--games",
            "1",
            "--silent-fraction",
            "0.5",
            "--autopilot-after",
            "1",
        ],
    );
    assert!(ok, "{err}");
    assert_eq!(last_json(&out)["completed"], 1);
}
