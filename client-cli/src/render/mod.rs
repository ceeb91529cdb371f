//! Text for people: a game's state as a board picture, one line per event,
//! the final ranking. Only what the viewer's state or event contains is shown.
//!
//! What happened is worded by the server (`GameEvent.description`, from each
//! game's engine); this module draws boards. Games with a dedicated renderer
//! (`meduris`, `dolmen`) get their board; any other game gets the generic view
//! (seats, scores, whose decision it is, event and action descriptions), so a
//! new game needs no edit here. Game-specific field access stays in the
//! per-game modules.

mod dolmen;
mod meduris;
pub mod time;
mod words;

use std::fmt::Write;

use druids_contract::pb;
use druids_contract::pb::game_event::Body;

use crate::output::{Colour, Style};

/// The state as text, ending with a newline.
pub fn state(view: &pb::StateView, style: Style) -> String {
    let mut out = String::new();
    let status = pb::GameStatus::try_from(view.status)
        .map(crate::args::status_name)
        .unwrap_or_default();
    let game =
        druids_contract::Kind::from_number(view.kind).map_or("game", druids_contract::Kind::name);
    let _ = writeln!(
        out,
        "{} {}  ({status}, version {})",
        style.paint(Some(Colour::Bold), game),
        view.game_id,
        view.version
    );
    let seat_lines = |style: Style| -> Vec<String> {
        view.seats
            .iter()
            .map(|s| {
                let name = crate::output::plain(&s.name);
                format!(
                    "{}: {}{}",
                    seat_label(view, s.seat, style),
                    if !s.claimed {
                        "(open)"
                    } else if s.name.is_empty() || s.name == format!("seat {}", s.seat) {
                        // The server names unnamed seats "seat N": said already.
                        "-"
                    } else {
                        &name
                    },
                    if view.viewer_seat == Some(s.seat) {
                        "  <- you"
                    } else {
                        ""
                    }
                )
            })
            .collect()
    };
    let seats = seat_lines(style);
    if style.compact {
        // The compact boards list the seats themselves, with these names.
    } else {
        for s in seats {
            let _ = writeln!(out, "  {s}");
        }
    }
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) if style.compact => {
            meduris::board_compact(&mut out, m, style, &names(view))
        }
        Some(pb::state_view::Game::Meduris(m)) => meduris::board(&mut out, m, style),
        Some(pb::state_view::Game::Dolmen(d)) if style.compact => {
            dolmen::board_compact(&mut out, d, style, &names(view))
        }
        Some(pb::state_view::Game::Dolmen(d)) => dolmen::board(&mut out, d, style),
        // A game without messages of its own: its fields as they come.
        Some(pb::state_view::Game::Generic(g)) => {
            let _ = writeln!(out, "  {}", druids_contract::json::to_json(g));
        }
        None => {}
    }
    if let Some(o) = &view.outcome {
        out.push_str(&ranking(o, &view.seats, view.viewer_seat));
    } else if let Some(s) = view.to_act {
        let _ = writeln!(
            out,
            "{} must decide: {}",
            seat_label(view, s, style),
            decision(view)
        );
    }
    out
}

/// Each seat's name as the compact boards show it beside the seat: its
/// name, if it has one, and "<- you" for the viewer.
fn names(view: &pb::StateView) -> Vec<String> {
    let mut names = vec![String::new(); view.seats.len()];
    for s in &view.seats {
        let named = !s.name.is_empty() && s.name != format!("seat {}", s.seat);
        let mut text = if named {
            crate::output::plain(&s.name).into_owned()
        } else {
            String::new()
        };
        if !s.claimed {
            text = "(open)".into();
        }
        if view.viewer_seat == Some(s.seat) {
            text.push_str(" <- you");
        }
        if let Some(slot) = names.get_mut(s.seat as usize) {
            *slot = text.trim().to_owned();
        }
    }
    names
}

/// "seat 2 (light green)", the colour named (and painted on a terminal) when
/// the game has seat colours.
pub fn seat_label(view: &pb::StateView, seat: u32, style: Style) -> String {
    let colour = if let Some(pb::state_view::Game::Meduris(m)) = &view.game {
        meduris::seat_colour(m, seat)
    } else if let Some(pb::state_view::Game::Dolmen(d)) = &view.game {
        dolmen::seat_colour(d, seat)
    } else {
        None
    };
    match colour {
        Some((name, c)) => style.paint(Some(c), &format!("seat {seat} ({name})")),
        None => format!("seat {seat}"),
    }
}

/// What the pending decision of `view` asks, in words.
pub fn decision(view: &pb::StateView) -> String {
    match view.decision.as_ref().and_then(|d| d.game.as_ref()) {
        Some(pb::decision::Game::Meduris(m)) => meduris::decision(m),
        Some(pb::decision::Game::Dolmen(d)) => {
            let board = match &view.game {
                Some(pb::state_view::Game::Dolmen(v)) => Some(v),
                _ => None,
            };
            dolmen::decision(d, board)
        }
        _ => "a decision".into(),
    }
}

/// The line above the lettered choices of `druids play`, with the time left
/// when the game has a turn clock.
pub fn choices_heading(view: &pb::StateView) -> String {
    let clock = view.deadline_unix_ms.map(|deadline| {
        format!(
            " ({} s left, then the default action is taken for you)",
            deadline.saturating_sub(time::now_ms()).div_ceil(1000)
        )
    });
    format!(
        "your decision: {}{}",
        decision(view),
        clock.unwrap_or_default()
    )
}

/// Where on the board `action` takes effect ("field 12", "site 40",
/// "wood plateau"), as the web viewer groups the legal actions into
/// clickable targets; `None` when it has no place of its own.
pub fn target(action: &pb::Action) -> Option<String> {
    match &action.game {
        Some(pb::action::Game::Meduris(m)) => meduris::target(m),
        Some(pb::action::Game::Dolmen(d)) => dolmen::target(d),
        Some(pb::action::Game::Generic(_)) | None => None,
    }
}

/// What an action that carries a payment is bought for (e.g. "a hut on field
/// 12"): actions with the same target differ only in how they are paid.
/// `None` for actions without a payment.
pub fn payment_target(action: &pb::Action) -> Option<String> {
    match &action.game {
        Some(pb::action::Game::Meduris(m)) => meduris::payment_target(m),
        _ => None,
    }
}

/// One event as a line: `#42 v17 seat 2 built a hut on field 12 …`; a
/// snapshot is followed by the board.
pub fn event(e: &pb::GameEvent, style: Style) -> String {
    let text = if e.description.is_empty() {
        undescribed(e)
    } else {
        crate::output::plain(&e.description).into_owned()
    };
    let mut line = format!("#{} v{} {text}", e.seq, e.version);
    if let Some(Body::Snapshot(s)) = &e.body {
        line.push('\n');
        line.push_str(&state(&s.state.clone().unwrap_or_default(), style));
        // The board ends with its own newline; the caller adds one more.
        line.pop();
    }
    line
}

/// An event the server sent without a description (an older server): its
/// body in proto3 JSON, which names what happened and carries every field.
fn undescribed(e: &pb::GameEvent) -> String {
    let mut json = druids_contract::json::to_json(e);
    if let Some(fields) = json.as_object_mut() {
        for key in ["seq", "version", "description"] {
            fields.remove(key);
        }
        if fields.contains_key("snapshot") {
            return "snapshot".into();
        }
    }
    json.to_string()
}

/// "scores 34, 30; winner: seat 0" (for a replay check).
pub fn outcome_summary(o: &pb::Outcome) -> String {
    let scores: Vec<String> = o.scores.iter().map(i32::to_string).collect();
    let winners: Vec<String> = o.winners.iter().map(|w| format!("seat {w}")).collect();
    format!(
        "scores {}; {}: {}{}",
        scores.join(", "),
        if o.winners.len() == 1 {
            "winner"
        } else {
            "winners"
        },
        winners.join(" and "),
        if o.by_safeguard {
            " (ended by the max_turns safeguard)"
        } else {
            ""
        }
    )
}

/// The final ranking, place by place, and for a seat "you won" or where it
/// came. Ends with a newline.
pub fn ranking(o: &pb::Outcome, seats: &[pb::SeatInfo], viewer: Option<u32>) -> String {
    let mut out = String::new();
    let name = |seat: u32| {
        seats
            .iter()
            .find(|s| s.seat == seat && !s.name.is_empty() && s.name != format!("seat {seat}"))
            .map_or(String::new(), |s| {
                format!(" {}", crate::output::plain(&s.name))
            })
    };
    let winners: Vec<String> = o.winners.iter().map(|w| format!("seat {w}")).collect();
    let _ = writeln!(
        out,
        "game over{}: {} {}",
        if o.by_safeguard {
            " (max_turns safeguard)"
        } else {
            ""
        },
        if winners.len() == 1 {
            "the winner is"
        } else {
            "shared win:"
        },
        winners.join(" and ")
    );
    // Ranking is first to last; an older server may send none: by score.
    let mut order = o.ranking.clone();
    if order.is_empty() {
        order = (0..o.scores.len() as u32).collect();
        order.sort_by_key(|&s| std::cmp::Reverse(o.scores[s as usize]));
    }
    for (place, &seat) in order.iter().enumerate() {
        let score = o.scores.get(seat as usize).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "  {}. seat {seat}{}: {score} points{}",
            place + 1,
            name(seat),
            if o.winners.contains(&seat) {
                "  (winner)"
            } else {
                ""
            }
        );
    }
    if let Some(me) = viewer {
        if o.winners.contains(&me) {
            let _ = writeln!(
                out,
                "{}",
                if o.winners.len() == 1 {
                    "you won!"
                } else {
                    "you won (shared)!"
                }
            );
        } else if let Some(place) = order.iter().position(|&s| s == me) {
            let _ = writeln!(out, "you came {} of {}", ordinal(place + 1), order.len());
        }
    }
    out
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lines_are_the_servers_descriptions() {
        let e = pb::GameEvent {
            seq: 42,
            version: 17,
            description: "seat 2 built a hut on field 12".into(),
            body: Some(Body::GameStarted(pb::GameStarted {})),
        };
        assert_eq!(
            event(&e, Style::default()),
            "#42 v17 seat 2 built a hut on field 12"
        );
        // Without a description the line still says what happened.
        let bare = pb::GameEvent {
            description: String::new(),
            ..e
        };
        assert_eq!(
            event(&bare, Style::default()),
            "#42 v17 {\"gameStarted\":{}}"
        );
    }

    /// A game without a dedicated renderer (here: a view naming no game)
    /// still shows its seats, whose decision it is and the result.
    #[test]
    fn unknown_games_get_the_generic_view() {
        let mut view = pb::StateView {
            game_id: "g".into(),
            seats: vec![
                pb::SeatInfo {
                    seat: 0,
                    name: "ann".into(),
                    claimed: true,
                },
                pb::SeatInfo {
                    seat: 1,
                    name: "bo".into(),
                    claimed: true,
                },
            ],
            to_act: Some(1),
            viewer_seat: Some(1),
            ..Default::default()
        };
        let text = state(&view, Style::default());
        assert!(text.contains("seat 0: ann"), "{text}");
        assert!(text.contains("seat 1: bo  <- you"), "{text}");
        assert!(text.contains("seat 1 must decide: a decision"), "{text}");
        view.outcome = Some(pb::Outcome {
            scores: vec![7, 9],
            winners: vec![1],
            ranking: vec![1, 0],
            by_safeguard: false,
            ..Default::default()
        });
        let text = state(&view, Style::default());
        assert!(text.contains("the winner is seat 1"), "{text}");
        assert!(text.contains("1. seat 1 bo: 9 points  (winner)"), "{text}");
        assert!(text.contains("2. seat 0 ann: 7 points"), "{text}");
        assert!(text.contains("you won!"), "{text}");
        let lost = ranking(view.outcome.as_ref().unwrap(), &view.seats, Some(0));
        assert!(lost.contains("you came 2nd of 2"), "{lost}");
    }

    #[test]
    fn replay_results_read_as_words() {
        let o = pb::Outcome {
            scores: vec![34, 30],
            winners: vec![0],
            ranking: vec![0, 1],
            by_safeguard: false,
            ..Default::default()
        };
        assert_eq!(outcome_summary(&o), "scores 34, 30; winner: seat 0");
    }

    /// A real game's state as seat 0 sees it.
    fn real_view<G: druids_contract::ProtoGame>(players: usize) -> pb::StateView {
        use druids_engine::{Seat, Viewer};
        let mut game = G::new(players, 3, &Default::default(), &mut Vec::new()).unwrap();
        // Some play first, so that the board holds pieces.
        let mut legal = Vec::new();
        for _ in 0..40 {
            let Some(seat) = game.to_act() else { break };
            legal.clear();
            game.legal_actions(&mut legal);
            game.apply(seat, &legal[legal.len() / 2], &mut Vec::new())
                .unwrap();
        }
        pb::StateView {
            game_id: "0123456789abcdef".into(),
            kind: G::KIND.number(),
            status: pb::GameStatus::Running as i32,
            version: 40,
            seats: (0..players as u32)
                .map(|seat| pb::SeatInfo {
                    seat,
                    name: format!("player {seat}"),
                    claimed: true,
                })
                .collect(),
            viewer_seat: Some(0),
            to_act: game.to_act().map(|s| u32::from(s.0)),
            decision: G::decision(&game),
            game: Some(G::encode_view(&game.view(Viewer::Seat(Seat(0))))),
            ..Default::default()
        }
    }

    /// `druids play --compact`: the largest boards (Meduris with 4 players,
    /// Die Dolmengötter with 5) fit 80 columns and leave a 24-line terminal
    /// room for the menu.
    #[test]
    fn compact_boards_fit_a_small_terminal() {
        let compact = Style {
            colour: false,
            compact: true,
        };
        for (game, view) in [
            ("meduris", real_view::<druids_engine::meduris::Meduris>(4)),
            ("dolmen", real_view::<druids_engine::dolmen::Dolmen>(5)),
        ] {
            let full = state(&view, Style::default());
            let small = state(&view, compact);
            let lines: Vec<&str> = small.lines().collect();
            assert!(lines.len() <= 21, "{game}: {} lines\n{small}", lines.len());
            assert!(
                lines.iter().all(|l| l.chars().count() <= 80),
                "{game}: a line over 80 columns\n{small}"
            );
            assert!(full.lines().count() > lines.len(), "{game}: {full}");
        }
    }
}
