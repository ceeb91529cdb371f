//! The JSON lines the ladder prints on stdout: one per game played, one per
//! match finished.

use druids_contract::pb;

use crate::arena::ratings::by_rank;
use crate::lines::{outcome_json, python_json};
use crate::seat::player::SeatResult;

/// The JSON line of a finished match: `{"match_id", "placements": [{"bot_id",
/// "name", "rank", "score"}, ...]}`.
pub fn match_line(m: &pb::MatchFinished) -> String {
    let placements: Vec<serde_json::Value> = by_rank(m)
        .into_iter()
        .map(|p| {
            let bot = p.bot.clone().unwrap_or_default();
            serde_json::json!({"bot_id": bot.bot_id, "name": bot.name, "rank": p.rank, "score": p.score})
        })
        .collect();
    python_json(&serde_json::json!({"match_id": m.match_id, "placements": placements}))
}

/// The JSON line of a game of a match: `{"match_id", "index", "game_id",
/// "seat", "outcome"}` (the outcome as in `druids bot`'s line), or with
/// `"error"` instead of the outcome when the game could not be played.
pub fn game_line(g: &pb::MatchGame, played: &Result<SeatResult, String>) -> String {
    let j = |v: serde_json::Value| python_json(&v);
    let head = format!(
        "{{\"match_id\": {}, \"index\": {}, \"game_id\": {}",
        j(g.match_id.clone().into()),
        g.index,
        j(g.game_id.clone().into())
    );
    match played {
        Ok(r) => format!(
            "{head}, \"seat\": {}, \"outcome\": {}}}",
            r.seat,
            outcome_json(r.outcome.as_ref())
        ),
        Err(e) => format!(
            "{head}, \"seat\": {}, \"error\": {}}}",
            g.seat,
            j(e.clone().into())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_games_and_matches() {
        let m = pb::MatchFinished {
            match_id: "m1".into(),
            placements: vec![
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b1".into(),
                        name: "alpha".into(),
                    }),
                    rank: 1,
                    score: 52,
                },
                pb::Placement {
                    bot: Some(pb::BotRef {
                        bot_id: "b2".into(),
                        name: "beta".into(),
                    }),
                    rank: 2,
                    score: 40,
                },
            ],
        };
        assert_eq!(
            match_line(&m),
            r#"{"match_id": "m1", "placements": [{"bot_id": "b1", "name": "alpha", "rank": 1, "score": 52}, {"bot_id": "b2", "name": "beta", "rank": 2, "score": 40}]}"#
        );
        let g = pb::MatchGame {
            match_id: "m1".into(),
            game_id: "g1".into(),
            seat: 1,
            index: 0,
            options: None,
        };
        assert_eq!(
            game_line(&g, &Err("lost".into())),
            r#"{"match_id": "m1", "index": 0, "game_id": "g1", "seat": 1, "error": "lost"}"#
        );
    }
}
