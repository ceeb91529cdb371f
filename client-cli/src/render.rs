//! Text for people: a game's state as a small board picture, and one line per
//! event. Only what the viewer's state or event contains is shown.

use std::fmt::Write;

use druids::pb;
use druids::pb::game_event::Body;

fn good(g: i32) -> &'static str {
    match pb::Good::try_from(g) {
        Ok(pb::Good::Wood) => "wood",
        Ok(pb::Good::Wool) => "wool",
        Ok(pb::Good::Copper) => "copper",
        Ok(pb::Good::Stone) => "stone",
        _ => "?",
    }
}

fn goods(g: &Option<pb::Goods>) -> String {
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

fn druid(p: &Option<pb::DruidPosition>) -> String {
    use pb::druid_position::At;
    match p.as_ref().and_then(|p| p.at) {
        Some(At::Temple(_)) => "on his temple".into(),
        Some(At::StoneField(n)) => format!("on stone field {n}"),
        Some(At::Field(f)) => format!("beside field {f}"),
        None => "?".into(),
    }
}

fn chip(c: i32) -> &'static str {
    match pb::Chip::try_from(c) {
        Ok(pb::Chip::PlusTwo) => "+2",
        Ok(pb::Chip::FreeHut) => "free",
        Ok(pb::Chip::DruidOffering) => "druid",
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
        Some(pb::state_view::Game::Dolmen(_)) => {
            let _ = writeln!(out, "(Die Dolmengötter board)");
        }
        None => {}
    }
    if let Some(o) = &view.outcome {
        let _ = writeln!(out, "over: scores {:?}, winners {:?}", o.scores, o.winners);
    } else if let Some(s) = view.to_act {
        let _ = writeln!(out, "seat {s} must decide");
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
        Some(Body::DecisionNeeded(d)) => format!("seat {} must decide", d.seat),
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
        Some(Body::Dolmen(d)) => format!("{d:?}"),
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
        Kind::DieRolled(d) => format!("the die shows {}", good(d.r#yield)),
        Kind::GoodsGained(g) => format!("seat {} gains {} {}", g.seat, g.count, good(g.good)),
        Kind::GoodReturned(g) => format!("seat {} returns 1 {}", g.seat, good(g.good)),
        Kind::WorkerMoved(w) => format!(
            "seat {} moves a worker from {} (height {}) to {}",
            w.seat,
            good(w.from),
            w.height,
            good(w.to)
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
        Kind::RuneTaken(r) => format!("seat {} takes the rune stone of area {}", r.to, r.area),
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
            body: Some(Body::Meduris(pb::MedurisEvent {
                kind: Some(pb::meduris_event::Kind::HutBuilt(
                    pb::meduris_event::HutBuilt {
                        seat: 2,
                        field: 12,
                        paid: Some(pb::Goods {
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
}
