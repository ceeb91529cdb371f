//! The Die Dolmengötter board: the 9 × 9 lattice of sites with druids
//! (standing or lying) and stones, the circles' letters in the cells between
//! the sites (as in the rules digest's grid), a legend, then each circle in
//! play with its leader, stones and dolmen stack, and the seats.
//!
//! The geometry comes from the view (`DolmenView.sites`, `.circles`), never
//! from a copy of the board. Every access to Dolmen-specific proto types is in
//! this file.

use std::collections::HashSet;
use std::fmt::Write;

use druids_contract::pb;

use crate::output::{Colour, Style};

use super::words::enum_words;

/// Lattice points per side.
const SIDE: usize = 9;

/// The seat's colour, in words and for the terminal.
pub fn seat_colour(d: &pb::DolmenView, seat: u32) -> Option<(String, Colour)> {
    let s = d.seats.iter().find(|s| s.seat == seat)?;
    let c = pb::DolmenColour::try_from(s.colour).ok()?;
    let term = match c {
        pb::DolmenColour::Red => Colour::Red,
        pb::DolmenColour::Yellow => Colour::Yellow,
        pb::DolmenColour::Blue => Colour::Blue,
        pb::DolmenColour::Green => Colour::Green,
        pb::DolmenColour::Black => Colour::Black,
        pb::DolmenColour::Unspecified => return None,
    };
    Some((
        enum_words(c.as_str_name(), pb::DolmenColour::Unspecified.as_str_name()),
        term,
    ))
}

fn seat(d: &pb::DolmenView, seat: u32, style: Style) -> String {
    match seat_colour(d, seat) {
        Some((name, c)) => style.paint(Some(c), &format!("seat {seat} ({name})")),
        None => format!("seat {seat}"),
    }
}

/// What stands on one site, with the plain text's width: `D2` a standing
/// druid of seat 2, `d2` a lying one, `#2` a stone of seat 2, `.` a free site.
fn occupant(d: &pb::DolmenView, site: &pb::DolmenSite, style: Style) -> (String, usize) {
    use pb::dolmen_site::Occupant;
    let (text, owner) = match &site.occupant {
        Some(Occupant::Druid(p)) if p.lying => (format!("d{}", p.seat), Some(p.seat)),
        Some(Occupant::Druid(p)) => (format!("D{}", p.seat), Some(p.seat)),
        Some(Occupant::Stone(s)) => (format!("#{s}"), Some(*s)),
        None => (".".into(), None),
    };
    let colour = match owner {
        Some(s) => seat_colour(d, s).map(|(_, c)| c),
        None => Some(Colour::Dim),
    };
    let width = text.chars().count();
    (style.paint(colour, &text), width)
}

/// The circle whose block holds cell (cx, cy): the one holding at least
/// three of the cell's corners (two circles share at most one edge, i.e. two
/// corners; an octagon's centre is no site, so its cells have three).
fn cell_circles(d: &pb::DolmenView) -> Vec<Vec<Option<usize>>> {
    let mut at = vec![vec![None; SIDE]; SIDE];
    for s in &d.sites {
        if let Some(cell) = at
            .get_mut(s.y as usize)
            .and_then(|row: &mut Vec<Option<u32>>| row.get_mut(s.x as usize))
        {
            *cell = Some(s.site);
        }
    }
    let sets: Vec<HashSet<u32>> = d
        .circles
        .iter()
        .map(|c| c.sites.iter().copied().collect())
        .collect();
    let mut cells = vec![vec![None; SIDE - 1]; SIDE - 1];
    for (cy, row) in cells.iter_mut().enumerate() {
        for (cx, cell) in row.iter_mut().enumerate() {
            let corners: Vec<u32> = [(cx, cy), (cx + 1, cy), (cx, cy + 1), (cx + 1, cy + 1)]
                .iter()
                .filter_map(|&(x, y)| at[y][x])
                .collect();
            *cell = sets
                .iter()
                .position(|set| corners.iter().filter(|s| set.contains(s)).count() >= 3);
        }
    }
    cells
}

/// Most dolmens a circle of this shape holds, and its multipliers top first.
fn capacity(shape: i32) -> Option<(usize, &'static str)> {
    match pb::DolmenShape::try_from(shape).ok()? {
        pb::DolmenShape::Square => Some((3, "x3 x2 x1")),
        pb::DolmenShape::Hexagon => Some((4, "x4 x3 x2 x1")),
        pb::DolmenShape::Octagon => Some((5, "x5 x4 x3 x2 x1")),
        pb::DolmenShape::Unspecified => None,
    }
}

/// The board's first line: the turn and who is active.
fn heading(d: &pb::DolmenView, style: Style) -> String {
    format!(
        "turn {}, {} active{}",
        d.turn,
        seat(d, d.active, style),
        match d.end_triggered_by {
            Some(s) => format!(
                "; seat {s} placed its last dolmen, {} turns left",
                d.last_turns_left
            ),
            None => String::new(),
        }
    )
}

/// Appends the board to `out`.
pub fn board(out: &mut String, d: &pb::DolmenView, style: Style) {
    let _ = writeln!(out, "{}", heading(d, style));
    let mut grid = vec![vec![None; SIDE]; SIDE];
    for s in &d.sites {
        if let Some(cell) = grid
            .get_mut(s.y as usize)
            .and_then(|row: &mut Vec<Option<&pb::DolmenSite>>| row.get_mut(s.x as usize))
        {
            *cell = Some(s);
        }
    }
    let cells = cell_circles(d);
    let letter = |c: Option<usize>| -> String {
        let Some(circle) = c.and_then(|i| d.circles.get(i)) else {
            return " ".into();
        };
        let colour = circle
            .leader
            .and_then(|l| seat_colour(d, l))
            .map(|(_, c)| c);
        style.paint(colour, &circle.letter)
    };
    // Sites every 5 columns; a cell's letter midway between its sites.
    let _ = writeln!(
        out,
        "     {}",
        (0..SIDE)
            .map(|x| format!("x{x:<4}"))
            .collect::<String>()
            .trim_end()
    );
    for (y, row) in grid.iter().enumerate() {
        let mut line = format!("  y{y} ");
        for (x, site) in row.iter().enumerate() {
            let (text, width) = match site {
                Some(s) => occupant(d, s, style),
                None => (String::new(), 0), // an octagon's centre: no site
            };
            line.push_str(&text);
            if x + 1 < SIDE {
                line.push_str(&" ".repeat(5usize.saturating_sub(width)));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
        if let Some(letters) = cells.get(y) {
            let mut line = "     ".to_owned();
            for &c in letters {
                line.push_str("   ");
                line.push_str(&letter(c));
                line.push(' ');
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    let _ = writeln!(
        out,
        "legend: D2 standing druid of seat 2, d2 lying druid, #2 stone of seat 2, . free site; \
         letters: the circles (A-Z, a, b){}, blank: an octagon's centre (no site)",
        if style.colour {
            " in the colour of their leader"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "circles in play (dolmen stacks top first):");
    let mut any = false;
    for c in &d.circles {
        let stones: Vec<String> = c
            .stones
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(s, n)| format!("seat {s}: {n}"))
            .collect();
        if stones.is_empty() && c.stack.is_empty() && c.leader.is_none() && !c.complete {
            continue;
        }
        any = true;
        let (most, multipliers) = capacity(c.shape).unwrap_or((0, "?"));
        let stack: Vec<String> = c
            .stack
            .iter()
            .map(|p| match p.value {
                Some(v) => format!("seat {} (value {v})", p.seat),
                None => format!("seat {} (value hidden)", p.seat),
            })
            .collect();
        let _ = writeln!(
            out,
            "  circle {} ({}, {multipliers}): leader {}; stones {}; dolmens {}/{most}{}{}",
            c.letter,
            pb::DolmenShape::try_from(c.shape)
                .map(|s| enum_words(s.as_str_name(), pb::DolmenShape::Unspecified.as_str_name()))
                .unwrap_or_default(),
            c.leader.map_or("none".into(), |l| seat(d, l, style)),
            if stones.is_empty() {
                "none".into()
            } else {
                stones.join(", ")
            },
            c.stack.len(),
            if stack.is_empty() {
                String::new()
            } else {
                format!(": {}", stack.join(", "))
            },
            if c.complete { "; complete" } else { "" }
        );
    }
    if !any {
        let _ = writeln!(out, "  none yet");
    }
    for q in &d.queued_dolmens {
        let _ = writeln!(
            out,
            "  waiting: seat {} may place a dolmen {} circle {}",
            q.seat,
            if q.on_top { "on top of" } else { "under" },
            letter_of(d, q.circle)
        );
    }
    for s in &d.seats {
        let _ = writeln!(
            out,
            "  {}: {} points, {} stones and {} dolmens left{}, {} placed",
            seat(d, s.seat, style),
            s.score,
            s.stones_left,
            s.dolmens_left,
            match &s.hand {
                Some(v) => format!(
                    " (values 1:{} 2:{} 3:{} 4:{})",
                    v.ones, v.twos, v.threes, v.fours
                ),
                None => String::new(),
            },
            s.dolmens_placed
        );
    }
}

/// Where on the board an action takes effect, as the web viewer groups
/// actions into targets: the site of the druid that walks or lies down, the
/// site a druid is placed on or flies to; `None` for the decisions about a
/// stone or a dolmen (one place each).
pub fn target(a: &pb::DolmenAction) -> Option<String> {
    use pb::dolmen_action::Kind;
    let site = match a.kind.as_ref()? {
        Kind::PlaceDruid(p) => p.site,
        Kind::Walk(w) => w.from_site,
        Kind::CollectHerbs(c) => c.site,
        Kind::Fly(f) => f.to_site,
        _ => return None,
    };
    Some(format!("site {site}"))
}

/// Appends the board in about 20 lines of at most 80 columns (`druids play
/// --compact`): the lattice as in [`board`], with the seats and the circles
/// in play beside it instead of below.
pub fn board_compact(out: &mut String, d: &pb::DolmenView, style: Style, names: &[String]) {
    let mut full = String::new();
    board(
        &mut full,
        d,
        Style {
            colour: false,
            ..style
        },
    );
    let _ = writeln!(out, "{}", heading(d, style));
    // Beside the lattice, 33 columns: each seat (* for a name's "<- you"),
    // then the circles in play.
    let mut side: Vec<String> = d
        .seats
        .iter()
        .map(|s| {
            let you = names
                .get(s.seat as usize)
                .is_some_and(|n| n.ends_with("<- you"));
            format!(
                "s{}{} {}pt {}st {}dl{}",
                s.seat,
                if you { "*" } else { "" },
                s.score,
                s.stones_left,
                s.dolmens_left,
                match &s.hand {
                    Some(v) => format!(" {}/{}/{}/{}", v.ones, v.twos, v.threes, v.fours),
                    None => String::new(),
                }
            )
        })
        .collect();
    for c in &d.circles {
        if c.stack.is_empty() && c.leader.is_none() && !c.complete {
            continue;
        }
        let stack: Vec<String> = c
            .stack
            .iter()
            .map(|p| match p.value {
                Some(v) => format!("{}:{v}", p.seat),
                None => format!("{}:?", p.seat),
            })
            .collect();
        side.push(format!(
            "{}: lead {} [{}]{}",
            c.letter,
            c.leader.map_or("-".into(), |l| l.to_string()),
            stack.join(" "),
            if c.complete { " done" } else { "" }
        ));
    }
    side.push("D/d druid up/down, #0 stone of s0".into());
    side.push("pt st dl: points stones dolmens".into());
    // The lattice: the rows of the full board between its heading and its
    // legend (the full board is drawn without colours, so widths are plain).
    let lattice: Vec<&str> = full
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("legend"))
        .collect();
    let mut side = side.into_iter();
    for row in lattice {
        let mut line = format!("{row:<47}");
        if let Some(note) = side.next() {
            line.push_str(&note);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for rest in side {
        let _ = writeln!(out, "{:47}{rest}", "");
    }
}

/// A circle's letter ('?' for a number the view does not hold).
fn letter_of(d: &pb::DolmenView, circle: u32) -> String {
    d.circles
        .get(circle as usize)
        .map_or("?".into(), |c| c.letter.clone())
}

/// What a pending Die Dolmengötter decision asks, in words.
pub fn decision(d: &pb::DolmenDecision, view: Option<&pb::DolmenView>) -> String {
    use pb::dolmen_decision::Kind as D;
    match D::try_from(d.kind) {
        Ok(D::PlaceDruid) => "place a druid".into(),
        Ok(D::Turn) => "the turn (walk, collect herbs or fly)".into(),
        Ok(D::Stone) if d.may_decline() => {
            format!("leave a stone on site {} or lose 1 point", d.site())
        }
        Ok(D::Stone) => format!("leave a stone on site {} (1 point: no choice)", d.site()),
        Ok(D::Dolmen) => format!(
            "a dolmen {} circle {}, or none",
            if d.on_top() { "on top of" } else { "under" },
            view.map_or_else(
                || format!("number {}", d.circle()),
                |v| letter_of(v, d.circle())
            )
        ),
        _ => "?".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The board picture is the 9 × 9 lattice: 73 sites, the 8 octagon
    /// centres blank, and the druids placed so far; the circles' letters sit
    /// in their cells as in the rules digest; then what is to decide.
    #[test]
    fn the_dolmen_board_is_drawn_as_its_lattice() {
        use druids_contract::ProtoGame;
        use druids_engine::Game;
        use druids_engine::dolmen::Dolmen;
        let mut events = Vec::new();
        let mut game = Dolmen::new(2, 1, &Default::default(), &mut events).unwrap();
        for seat in [0u8, 1] {
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            game.apply(druids_engine::Seat(seat), &legal[0], &mut events)
                .unwrap();
        }
        let view = pb::StateView {
            game: Some(Dolmen::encode_view(
                &game.view(druids_engine::Viewer::Spectator),
            )),
            to_act: game.to_act().map(|s| s.0 as u32),
            decision: ProtoGame::decision(&game),
            ..Default::default()
        };
        let text = super::super::state(&view, Style::default());
        assert!(
            text.contains("seat 0 (red) must decide: place a druid"),
            "{text}"
        );
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("  y")).collect();
        assert_eq!(rows.len(), 9, "{text}");
        let sites: usize = rows
            .iter()
            .map(|r| r.split_whitespace().skip(1).count())
            .sum();
        assert_eq!(sites, 73, "{text}");
        assert_eq!(text.matches("D0").count(), 1, "{text}");
        assert_eq!(text.matches("D1").count(), 1, "{text}");
        // The digest's first two rows of cells: A B B C C D D E / A B B C C F G E.
        let letters: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("     ") && !l.contains('x'))
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(letters[0], "ABBCCDDE", "{text}");
        assert_eq!(letters[1], "ABBCCFGE", "{text}");
        assert_eq!(letters[7], "WWYZXXab", "{text}");
        assert!(text.contains("legend: D2 standing druid"), "{text}");
    }
}
