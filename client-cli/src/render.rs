//! Text for people: a game's state as a small board picture, and one line per
//! event. Only what the viewer's state or event contains is shown.

use std::fmt::Write;

use druids::pb;
use druids::pb::game_event::Body;

fn good(g: i32) -> &'static str {
    match pb::MedurisGood::try_from(g) {
        Ok(pb::MedurisGood::Wood) => "wood",
        Ok(pb::MedurisGood::Wool) => "wool",
        Ok(pb::MedurisGood::Copper) => "copper",
        Ok(pb::MedurisGood::Stone) => "stone",
        _ => "?",
    }
}

fn goods(g: &Option<pb::MedurisGoods>) -> String {
    let Some(g) = g else {
        return "nothing".into();
    };
    let parts: Vec<String> = [
        (g.wood, "wood"),
        (g.wool, "wool"),
        (g.copper, "copper"),
        (g.stone, "stone"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, k)| format!("{n} {k}"))
    .collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(" + ")
    }
}

fn druid(p: &Option<pb::MedurisDruidPosition>) -> String {
    use pb::meduris_druid_position::At;
    match p.as_ref().and_then(|p| p.at) {
        Some(At::Temple(_)) => "on his temple".into(),
        Some(At::StoneField(n)) => format!("on stone field {n}"),
        Some(At::Field(f)) => format!("beside field {f}"),
        None => "?".into(),
    }
}

fn chip(c: i32) -> &'static str {
    match pb::MedurisChip::try_from(c) {
        Ok(pb::MedurisChip::PlusTwo) => "+2",
        Ok(pb::MedurisChip::FreeHut) => "free",
        Ok(pb::MedurisChip::DruidOffering) => "druid",
        _ => "",
    }
}

/// The state as a few lines of text.
pub fn state(view: &pb::StateView) -> String {
    let mut out = String::new();
    let status = pb::GameStatus::try_from(view.status)
        .map(|s| {
            s.as_str_name()
                .trim_start_matches("GAME_STATUS_")
                .to_lowercase()
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "game {}  ({status}, version {})",
        view.game_id, view.version
    );
    for s in &view.seats {
        let _ = writeln!(
            out,
            "  seat {}: {}{}",
            s.seat,
            if s.name.is_empty() { "(open)" } else { &s.name },
            if view.viewer_seat == Some(s.seat) {
                "  <- you"
            } else {
                ""
            }
        );
    }
    match &view.game {
        Some(pb::state_view::Game::Meduris(m)) => meduris(&mut out, m),
        Some(pb::state_view::Game::Dolmen(d)) => dolmen(&mut out, d),
        None => {}
    }
    if let Some(o) = &view.outcome {
        let _ = writeln!(out, "over: scores {:?}, winners {:?}", o.scores, o.winners);
    } else if let Some(s) = view.to_act {
        let _ = writeln!(out, "seat {s} must decide: {}", decision(&view.decision));
    }
    out
}

fn meduris(out: &mut String, m: &pb::MedurisView) {
    let _ = writeln!(
        out,
        "turn {} (seat {} active); the druid is {}",
        m.turn,
        m.active,
        druid(&m.druid)
    );
    let _ = writeln!(out, "supply: {}", goods(&m.supply));
    for p in &m.plateaus {
        let workers: Vec<String> = p.workers.iter().map(|w| w.to_string()).collect();
        let _ = writeln!(
            out,
            "  {:<6} plateau: [{}] (bottom first)",
            good(p.good),
            workers.join(" ")
        );
    }
    let _ = write!(out, "ring:");
    for f in &m.fields {
        let building = match &f.building {
            Some(b) if b.temple => format!("T{}", b.owner),
            Some(b) => format!("H{}", b.owner),
            None => ".".into(),
        };
        let c = chip(f.chip);
        let _ = write!(
            out,
            " {}:{}{}",
            f.field,
            building,
            if c.is_empty() {
                String::new()
            } else {
                format!("({c})")
            }
        );
    }
    let _ = writeln!(out);
    for s in &m.seats {
        let _ = writeln!(
            out,
            "  seat {}: {} points, {} huts and {} temples left, {} runes, goods: {}",
            s.seat,
            s.score,
            s.huts_left,
            s.temples_left,
            s.runes,
            if s.goods.is_some() {
                goods(&s.goods)
            } else {
                "hidden".into()
            }
        );
    }
}

/// What stands on one site, two characters wide: `D2` a standing druid of
/// seat 2, `d2` a lying one, `#2` a stone of seat 2, `..` a free site.
fn occupant(site: &pb::DolmenSite) -> String {
    use pb::dolmen_site::Occupant;
    match &site.occupant {
        Some(Occupant::Druid(d)) if d.lying => format!("d{}", d.seat),
        Some(Occupant::Druid(d)) => format!("D{}", d.seat),
        Some(Occupant::Stone(seat)) => format!("#{seat}"),
        None => "..".into(),
    }
}

fn dolmen_values(v: &Option<pb::DolmenValues>) -> String {
    match v {
        Some(v) => format!("1:{} 2:{} 3:{} 4:{}", v.ones, v.twos, v.threes, v.fours),
        None => "hidden".into(),
    }
}

/// The 9 × 9 lattice of sites (octagon centres blank), then the circles that
/// hold anything, then the seats.
fn dolmen(out: &mut String, d: &pb::DolmenView) {
    let _ = writeln!(
        out,
        "turn {} (seat {} active){}",
        d.turn,
        d.active,
        match d.end_triggered_by {
            Some(s) => format!(
                "; seat {s} placed its last dolmen, {} turns left",
                d.last_turns_left
            ),
            None => String::new(),
        }
    );
    let mut grid = [[None; 9]; 9];
    for s in &d.sites {
        if let Some(cell) = grid
            .get_mut(s.y as usize)
            .and_then(|row| row.get_mut(s.x as usize))
        {
            *cell = Some(s);
        }
    }
    let _ = writeln!(out, "     x0 x1 x2 x3 x4 x5 x6 x7 x8");
    for (y, row) in grid.iter().enumerate() {
        let _ = write!(out, "  y{y}");
        for cell in row {
            let _ = write!(out, " {}", cell.map_or("  ".into(), occupant));
        }
        let _ = writeln!(out);
    }
    for c in &d.circles {
        if c.stack.is_empty() && c.leader.is_none() && !c.complete {
            continue;
        }
        let stack: Vec<String> = c
            .stack
            .iter()
            .map(|p| match p.value {
                Some(v) => format!("{}={v}", p.seat),
                None => format!("{}=?", p.seat),
            })
            .collect();
        let _ = writeln!(
            out,
            "  circle {} ({}): leader {}, stones {:?}, stack (top first) [{}]{}",
            c.letter,
            pb::DolmenShape::try_from(c.shape)
                .map(|s| s
                    .as_str_name()
                    .trim_start_matches("DOLMEN_SHAPE_")
                    .to_lowercase())
                .unwrap_or_default(),
            c.leader.map_or("none".into(), |l| format!("seat {l}")),
            c.stones,
            stack.join(" "),
            if c.complete { ", complete" } else { "" }
        );
    }
    for s in &d.seats {
        let _ = writeln!(
            out,
            "  seat {}: {} points, {} stones and {} dolmens left ({}), {} placed",
            s.seat,
            s.score,
            s.stones_left,
            s.dolmens_left,
            dolmen_values(&s.hand),
            s.dolmens_placed
        );
    }
}

fn direction(d: i32) -> &'static str {
    match pb::DolmenDirection::try_from(d) {
        Ok(pb::DolmenDirection::North) => "north",
        Ok(pb::DolmenDirection::East) => "east",
        Ok(pb::DolmenDirection::South) => "south",
        Ok(pb::DolmenDirection::West) => "west",
        Ok(pb::DolmenDirection::Diagonal) => "diagonally",
        _ => "?",
    }
}

/// A circle's letter in the rules digest's grid ('?' for a number off the board).
fn circle_letter(c: u32) -> char {
    use druids_engine::dolmen::{Circle, board::CIRCLES};
    if (c as usize) < CIRCLES {
        Circle(c as u8).letter()
    } else {
        '?'
    }
}

fn dolmen_event(d: &pb::DolmenEvent) -> String {
    use pb::dolmen_event::Kind;
    let Some(k) = &d.kind else {
        return "(empty)".into();
    };
    match k {
        Kind::DruidPlaced(p) => format!("seat {} placed a druid on site {}", p.seat, p.site),
        Kind::TurnStarted(t) => format!("turn {}: seat {}", t.turn, t.seat),
        Kind::TurnPassed(t) => format!("seat {} cannot act: the turn passes", t.seat),
        Kind::Walked(w) => format!(
            "seat {} walks {} from site {} to site {}{}",
            w.seat,
            direction(w.direction),
            w.from_site,
            w.to_site,
            if w.jumped > 0 {
                format!(" jumping over {} druid(s)", w.jumped)
            } else {
                String::new()
            }
        ),
        Kind::HerbsCollected(h) => {
            format!("seat {} lays its druid on site {} down", h.seat, h.site)
        }
        Kind::Flew(f) => format!(
            "seat {} flies from site {} to site {}",
            f.seat, f.from_site, f.to_site
        ),
        Kind::StonePlaced(s) => format!(
            "seat {} leaves a stone on site {} ({} left)",
            s.seat, s.site, s.stones_left
        ),
        Kind::StoneDeclined(s) => format!("seat {} leaves no stone on site {}", s.seat, s.site),
        Kind::LeaderChanged(l) => {
            format!("seat {} leads circle {}", l.leader, circle_letter(l.circle))
        }
        Kind::DolmenPlaced(p) => format!(
            "seat {} places a dolmen{} {} circle {}",
            p.seat,
            p.value.map_or(String::new(), |v| format!(" of value {v}")),
            if p.on_top { "on top of" } else { "under" },
            circle_letter(p.circle)
        ),
        Kind::DolmenPassed(p) => format!(
            "seat {} places no dolmen in circle {}",
            p.seat,
            circle_letter(p.circle)
        ),
        Kind::CircleCompleted(c) => format!("circle {} is complete", circle_letter(c.circle)),
        Kind::DolmenScored(s) => format!(
            "seat {}'s dolmen of value {} in circle {} scores x{}",
            s.seat,
            s.value,
            circle_letter(s.circle),
            s.multiplier
        ),
        Kind::Scored(s) => format!("seat {} scores {:+} (now {})", s.seat, s.delta, s.total),
        Kind::LastTurnsBegin(l) => format!("seat {} placed its last dolmen: last turns", l.seat),
        Kind::GameEnded(_) => "regular play ends: final scoring".into(),
        Kind::GameOver(g) => format!("final scores {:?}", g.scores),
    }
}

/// What a pending decision asks, in words.
pub fn decision(d: &Option<pb::Decision>) -> String {
    use pb::decision::Game;
    use pb::dolmen_decision::Kind as D;
    use pb::meduris_decision::Kind as M;
    match d.as_ref().and_then(|d| d.game.as_ref()) {
        Some(Game::Meduris(m)) => match M::try_from(m.kind) {
            Ok(M::PlaceWorker) => "place a worker".into(),
            Ok(M::TakeGood) => "\"+1\": take a good".into(),
            Ok(M::ReturnGood) => "\"-1\": return a good".into(),
            Ok(M::Turn) => "the turn (big yield, hut or temple)".into(),
            Ok(M::Offering) => format!(
                "an offering at the hut on field {}{}",
                m.field(),
                if m.last_round() { " (last round)" } else { "" }
            ),
            _ => "?".into(),
        },
        Some(Game::Dolmen(d)) => match D::try_from(d.kind) {
            Ok(D::PlaceDruid) => "place a druid".into(),
            Ok(D::Turn) => "the turn (walk, collect herbs or fly)".into(),
            Ok(D::Stone) if d.may_decline() => {
                format!("leave a stone on site {} or lose 1 point", d.site())
            }
            Ok(D::Stone) => format!("leave a stone on site {} (1 point: no choice)", d.site()),
            Ok(D::Dolmen) => format!(
                "a dolmen {} circle {}, or none",
                if d.on_top() { "on top of" } else { "under" },
                circle_letter(d.circle())
            ),
            _ => "?".into(),
        },
        None => "?".into(),
    }
}

/// One event as a line, e.g. `#42 v17 seat 2 built a hut on field 12 ...`.
pub fn event(e: &pb::GameEvent) -> String {
    let body = match &e.body {
        None => "(empty)".into(),
        Some(Body::Snapshot(s)) => format!(
            "snapshot:\n{}",
            s.state.as_ref().map(state).unwrap_or_default()
        ),
        Some(Body::SeatJoined(j)) => format!("seat {} joined as {}", j.seat, j.name),
        Some(Body::GameStarted(_)) => "the game starts".into(),
        Some(Body::DecisionNeeded(d)) => {
            format!("seat {} must decide: {}", d.seat, decision(&d.decision))
        }
        Some(Body::GameFinished(f)) => match &f.outcome {
            Some(o) => format!("game over: scores {:?}, winners {:?}", o.scores, o.winners),
            None => "game over".into(),
        },
        Some(Body::TimedOut(t)) => format!(
            "seat {} {}",
            t.seat,
            if t.autopilot {
                "played by the autopilot"
            } else {
                "ran out of time: default action"
            }
        ),
        Some(Body::AutopilotChanged(a)) => format!(
            "seat {} autopilot {}",
            a.seat,
            if a.on { "on" } else { "off" }
        ),
        Some(Body::GameAbandoned(a)) => format!("game abandoned: {}", a.reason),
        Some(Body::Meduris(m)) => meduris_event(m),
        Some(Body::Dolmen(d)) => dolmen_event(d),
    };
    format!("#{} v{} {body}", e.seq, e.version)
}

fn meduris_event(m: &pb::MedurisEvent) -> String {
    use pb::meduris_event::Kind;
    let Some(k) = &m.kind else {
        return "(empty)".into();
    };
    match k {
        Kind::ChipPlaced(c) => format!("a {} chip lies on field {}", chip(c.chip), c.field),
        Kind::WorkerPlaced(w) => format!("seat {} placed a worker on {}", w.seat, good(w.plateau)),
        Kind::TurnStarted(t) => format!("turn {}: seat {}", t.turn, t.seat),
        Kind::DieRolled(d) if d.plus_one => "the die shows +1".into(),
        Kind::DieRolled(d) if d.minus_one => "the die shows -1".into(),
        Kind::DieRolled(d) => format!("the die shows {}", good(d.yield_good)),
        Kind::GoodsGained(g) => format!("seat {} gains {} {}", g.seat, g.count, good(g.good)),
        Kind::GoodReturned(g) => format!("seat {} returns 1 {}", g.seat, good(g.good)),
        Kind::WorkerMoved(w) => format!(
            "seat {} moves a worker from {} (height {}) to {}",
            w.seat,
            good(w.from_plateau),
            w.height,
            good(w.to_plateau)
        ),
        Kind::HutBuilt(h) => format!(
            "seat {} built a hut on field {} (settlement {}) paying {}",
            h.seat,
            h.field,
            h.settlement,
            goods(&h.paid)
        ),
        Kind::TempleBuilt(t) => format!(
            "seat {} built a temple on field {} paying {}",
            t.seat,
            t.field,
            goods(&t.paid)
        ),
        Kind::ChipUsed(c) => format!("the {} chip on field {} is used", chip(c.chip), c.field),
        Kind::RuneTaken(r) => format!("seat {} takes the rune stone of area {}", r.to_seat, r.area),
        Kind::DruidMoved(d) => format!("the druid moves {}", druid(&d.to)),
        Kind::RiverCrossed(_) => "the druid crosses the great river: rune scoring".into(),
        Kind::Offering(o) => format!(
            "seat {} offers {} at field {}",
            o.seat,
            goods(&o.paid),
            o.field
        ),
        Kind::Scored(s) => format!("seat {} scores {:+} (now {})", s.seat, s.delta, s.total),
        Kind::EndTriggered(e) => format!("seat {} has built everything: last turns", e.seat),
        Kind::SafeguardReached(s) => {
            format!("safeguard: regular play ends after {} turns", s.turns)
        }
        Kind::LastRoundStarted(_) => "the druid's last round begins".into(),
        Kind::GameOver(g) => format!("final scores {:?}", g.scores),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_sentences() {
        let e = pb::GameEvent {
            seq: 42,
            version: 17,
            description: String::new(),
            body: Some(Body::Meduris(pb::MedurisEvent {
                kind: Some(pb::meduris_event::Kind::HutBuilt(
                    pb::meduris_event::HutBuilt {
                        seat: 2,
                        field: 12,
                        paid: Some(pb::MedurisGoods {
                            wood: 2,
                            wool: 2,
                            ..Default::default()
                        }),
                        settlement: 3,
                    },
                )),
            })),
        };
        assert_eq!(
            event(&e),
            "#42 v17 seat 2 built a hut on field 12 (settlement 3) paying 2 wood + 2 wool"
        );
    }

    /// The board picture is the 9 × 9 lattice: 73 sites, the 8 octagon
    /// centres blank, and the druids placed so far; then what is to decide.
    #[test]
    fn the_dolmen_board_is_drawn_as_its_lattice() {
        use druids::ProtoGame;
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
        let text = state(&view);
        assert!(text.contains("seat 0 must decide: place a druid"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("  y")).collect();
        assert_eq!(rows.len(), 9, "{text}");
        let sites: usize = rows
            .iter()
            .map(|r| r.split_whitespace().skip(1).count())
            .sum();
        assert_eq!(sites, 73, "{text}");
        assert_eq!(text.matches("D0").count(), 1, "{text}");
        assert_eq!(text.matches("D1").count(), 1, "{text}");
    }
}
