//! The Meduris board as a player knows it from the table: the druid's path
//! (temple, three stone fields, the ring), the ring field by field with its
//! rune area, its two goods, its building and its bonus chip, the great river
//! between the last field and field 0, the rune stones, the four plateaus with
//! their worker stacks, the supply and each seat's score and stock.
//!
//! Every access to Meduris-specific proto types is in this file.

use std::fmt::Write;

use druids_contract::pb;

use crate::output::{Colour, Style};

use super::words::enum_words;

fn good(g: i32) -> String {
    pb::MedurisGood::try_from(g)
        .map(|g| enum_words(g.as_str_name(), pb::MedurisGood::Unspecified.as_str_name()))
        .unwrap_or_else(|_| "?".into())
}

fn area(a: i32) -> String {
    pb::MedurisArea::try_from(a)
        .map(|a| {
            let w = enum_words(a.as_str_name(), pb::MedurisArea::Unspecified.as_str_name());
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .unwrap_or_else(|_| "?".into())
}

/// A bonus chip, named so that it cannot be read as the druid figure.
fn chip(c: i32) -> Option<&'static str> {
    match pb::MedurisChip::try_from(c) {
        Ok(pb::MedurisChip::PlusTwo) => Some("chip: +2 points"),
        Ok(pb::MedurisChip::FreeHut) => Some("chip: free hut"),
        Ok(pb::MedurisChip::DruidOffering) => Some("chip: druid offering"),
        _ => None,
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

/// The seat's colour, in words and for the terminal.
pub fn seat_colour(m: &pb::MedurisView, seat: u32) -> Option<(String, Colour)> {
    let s = m.seats.iter().find(|s| s.seat == seat)?;
    let c = pb::MedurisColour::try_from(s.colour).ok()?;
    let term = match c {
        pb::MedurisColour::Purple => Colour::Purple,
        pb::MedurisColour::Blue => Colour::Blue,
        pb::MedurisColour::LightGreen => Colour::LightGreen,
        pb::MedurisColour::Red => Colour::Red,
        pb::MedurisColour::Unspecified => return None,
    };
    Some((
        enum_words(
            c.as_str_name(),
            pb::MedurisColour::Unspecified.as_str_name(),
        ),
        term,
    ))
}

fn seat(m: &pb::MedurisView, seat: u32, style: Style) -> String {
    match seat_colour(m, seat) {
        Some((name, c)) => style.paint(Some(c), &format!("seat {seat} ({name})")),
        None => format!("seat {seat}"),
    }
}

/// Where the druid is: `Some(field)` beside a ring field, else on the path
/// before the ring (0: his temple, 1-3: a stone field).
fn druid_at(m: &pb::MedurisView) -> Result<u32, Option<u32>> {
    use pb::meduris_druid_position::At;
    match m.druid.as_ref().and_then(|d| d.at) {
        Some(At::Field(f)) => Ok(f),
        Some(At::StoneField(n)) => Err(Some(n)),
        Some(At::Temple(_)) | None => Err(Some(0)),
    }
}

/// Appends the board to `out`.
pub fn board(out: &mut String, m: &pb::MedurisView, style: Style) {
    let fields = m.fields.len();
    let _ = writeln!(
        out,
        "{} fields; turn {}, {} active{}",
        fields,
        m.turn,
        seat(m, m.active, style),
        match m.end_triggered_by {
            Some(s) => format!(
                "; seat {s} has built everything: {} turns left, then the druid's last round",
                m.last_turns_left
            ),
            None => String::new(),
        }
    );
    // The druid's path: his temple, three stone fields, then the ring.
    let at = druid_at(m);
    let step = |n: u32, name: &str| {
        if at == Err(Some(n)) {
            style.paint(Some(Colour::Bold), &format!("[DRUID: {name}]"))
        } else {
            name.to_owned()
        }
    };
    let ring = match at {
        Ok(f) => style.paint(Some(Colour::Bold), &format!("[DRUID: beside field {f}]")),
        Err(_) => "the ring".into(),
    };
    let _ = writeln!(
        out,
        "druid's path: {} > {} > {} > {} > {ring}",
        step(0, "his temple"),
        step(1, "stone field 1"),
        step(2, "stone field 2"),
        step(3, "stone field 3"),
    );
    let river = style.paint(
        Some(Colour::Cyan),
        &format!(
            "~~~~ the great river (between field {} and field 0) ~~~~",
            fields.saturating_sub(1)
        ),
    );
    let _ = writeln!(out, "the ring, clockwise from the river:");
    let _ = writeln!(out, "  {river}");
    let mut last_area = None;
    for f in &m.fields {
        if last_area != Some(f.area) {
            last_area = Some(f.area);
            let holder = m
                .runes
                .iter()
                .find(|r| r.area == f.area)
                .and_then(|r| r.seat)
                .map_or("in the supply".into(), |s| {
                    format!("held by {}", seat(m, s, style))
                });
            let _ = writeln!(
                out,
                "  {} (rune stone {holder})",
                style.paint(Some(Colour::Bold), &area(f.area))
            );
        }
        // Padding is computed on the plain text so colours do not shift columns.
        let plain = match &f.building {
            Some(b) => format!(
                "{} of seat {}{}",
                if b.temple { "temple" } else { "hut" },
                b.owner,
                seat_colour(m, b.owner).map_or(String::new(), |(name, _)| format!(" ({name})"))
            ),
            None => "empty".into(),
        };
        let colour = match &f.building {
            Some(b) => seat_colour(m, b.owner).map(|(_, c)| c),
            None => Some(Colour::Dim),
        };
        let building = style.paint(colour, &plain);
        let building_width = plain.chars().count();
        let mut notes = Vec::new();
        if let Some(c) = chip(f.chip) {
            notes.push(c.to_owned());
        }
        if at == Ok(f.field) {
            notes.push(style.paint(Some(Colour::Bold), "<- the druid"));
        }
        if m.ritual_start == Some(f.field) {
            notes.push("(the ritual began here)".into());
        }
        if m.last_round_end == Some(f.field) {
            notes.push("(the last round ends here)".into());
        }
        let line = format!(
            "    field {:>2}  {:<16} {building}{:pad$} {}",
            f.field,
            format!("{} + {}", good(f.first_good), good(f.second_good)),
            "",
            notes.join("  "),
            pad = 30usize.saturating_sub(building_width),
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "  {river}");
    let _ = writeln!(out, "plateaus (workers bottom to top):");
    for p in &m.plateaus {
        let workers: Vec<String> = p.workers.iter().map(|&w| seat(m, w, style)).collect();
        let _ = writeln!(
            out,
            "  {:<7} {}",
            good(p.good),
            if workers.is_empty() {
                "-".into()
            } else {
                workers.join(", ")
            }
        );
    }
    let _ = writeln!(out, "supply: {}", goods(&m.supply));
    let _ = writeln!(out, "seats:");
    for s in &m.seats {
        let _ = writeln!(out, "  {}", seat_line(m, s, style, ""));
    }
}

/// A seat's score and stock in one line, `name` (if any) after the seat;
/// in a few words less for the compact board.
fn seat_line(m: &pb::MedurisView, s: &pb::MedurisSeat, style: Style, name: &str) -> String {
    let (points, huts, temples, runes) = if style.compact {
        ("pts", "H", "T", "runes")
    } else {
        ("points", " huts and", " temples", "rune stones")
    };
    format!(
        "{}{}: {} {points}, {}{huts} {}{temples} left, {} {runes}{}, goods: {}",
        seat(m, s.seat, style),
        if name.is_empty() {
            String::new()
        } else {
            format!(" {name}")
        },
        s.score,
        s.huts_left,
        s.temples_left,
        s.runes,
        if s.workers_to_place > 0 {
            format!(", {} workers to place", s.workers_to_place)
        } else {
            String::new()
        },
        if s.goods.is_some() {
            goods(&s.goods)
        } else {
            "hidden".into()
        }
    )
}

/// A good in two letters, for the compact board.
fn good_short(g: i32) -> &'static str {
    match pb::MedurisGood::try_from(g) {
        Ok(pb::MedurisGood::Wood) => "Wd",
        Ok(pb::MedurisGood::Wool) => "Wl",
        Ok(pb::MedurisGood::Copper) => "Cu",
        Ok(pb::MedurisGood::Stone) => "St",
        _ => "??",
    }
}

/// Appends the board in about 16 lines of at most 80 columns (`druids play
/// --compact`): four ring fields a line, each `12 Ser WdWl H0+2*` (number,
/// rune area, goods, building of a seat, chip, the druid), then the runes,
/// plateaus, supply and seats in a line or two each.
pub fn board_compact(out: &mut String, m: &pb::MedurisView, style: Style, names: &[String]) {
    let at = druid_at(m);
    let druid = match at {
        Ok(f) => format!("beside field {f}"),
        Err(Some(0)) | Err(None) => "at his temple".into(),
        Err(Some(n)) => format!("on stone field {n}"),
    };
    let _ = writeln!(
        out,
        "turn {}, {} active; the druid {druid}{}",
        m.turn,
        seat(m, m.active, style),
        match m.end_triggered_by {
            Some(s) => format!("; seat {s} built all: {} turns left", m.last_turns_left),
            None => String::new(),
        }
    );
    let _ = writeln!(
        out,
        "from the river: field area goods building(Hut/Temple+seat) chip(+2/FH/DO) *druid"
    );
    let cells: Vec<String> = m
        .fields
        .iter()
        .map(|f| {
            let (building, colour) = match &f.building {
                Some(b) => (
                    format!("{}{}", if b.temple { "T" } else { "H" }, b.owner),
                    seat_colour(m, b.owner).map(|(_, c)| c),
                ),
                None => ("..".into(), Some(Colour::Dim)),
            };
            let chip = match pb::MedurisChip::try_from(f.chip) {
                Ok(pb::MedurisChip::PlusTwo) => "+2",
                Ok(pb::MedurisChip::FreeHut) => "FH",
                Ok(pb::MedurisChip::DruidOffering) => "DO",
                _ => "  ",
            };
            let area: String = area(f.area).chars().take(3).collect();
            format!(
                "{:>2} {area:<3} {}{} {}{chip}{}",
                f.field,
                good_short(f.first_good),
                good_short(f.second_good),
                style.paint(colour, &building),
                if at == Ok(f.field) { "*" } else { " " }
            )
        })
        .collect();
    for row in cells.chunks(4) {
        let _ = writeln!(out, "  {}", row.join("  ").trim_end());
    }
    let runes: Vec<String> = m
        .runes
        .iter()
        .filter_map(|r| {
            r.seat
                .map(|s| format!("{} {s}", area(r.area).chars().take(3).collect::<String>()))
        })
        .collect();
    let plateaus: Vec<String> = m
        .plateaus
        .iter()
        .map(|p| {
            let workers: Vec<String> = p.workers.iter().map(|w| w.to_string()).collect();
            format!(
                "{} {}",
                good_short(p.good),
                if workers.is_empty() {
                    "-".into()
                } else {
                    workers.join(",")
                }
            )
        })
        .collect();
    let supply = m.supply.unwrap_or_default();
    let _ = writeln!(
        out,
        "rune stones held (area seat): {}",
        if runes.is_empty() {
            "none".into()
        } else {
            runes.join(", ")
        },
    );
    let _ = writeln!(
        out,
        "plateaus: {}; supply {}Wd {}Wl {}Cu {}St",
        plateaus.join(" | "),
        supply.wood,
        supply.wool,
        supply.copper,
        supply.stone
    );
    for s in &m.seats {
        let name = names.get(s.seat as usize).map_or("", String::as_str);
        let _ = writeln!(out, "{}", seat_line(m, s, style, name));
    }
}

/// What a pending Meduris decision asks, in words.
pub fn decision(m: &pb::MedurisDecision) -> String {
    use pb::meduris_decision::Kind as M;
    match M::try_from(m.kind) {
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
    }
}

/// Where on the board an action takes effect, as the web viewer groups
/// actions into targets: a plateau, a good of the supply, a field; `None`
/// for an offering (every offering of a decision is at one hut).
pub fn target(a: &pb::MedurisAction) -> Option<String> {
    use pb::meduris_action::Kind;
    match a.kind.as_ref()? {
        Kind::PlaceWorker(w) => Some(format!("{} plateau", good(w.plateau))),
        Kind::BigYield(y) => Some(format!("{} plateau", good(y.to_plateau))),
        Kind::TakeGood(g) => Some(good(g.good)),
        Kind::ReturnGood(g) => Some(good(g.good)),
        Kind::BuildHut(h) => Some(format!("field {}", h.field)),
        Kind::BuildTemple(t) => Some(format!("field {}", t.field)),
        Kind::Offer(_) | Kind::OfferChip(_) => None,
    }
}

/// What a paid action buys: a hut or temple on one field, or an offering of
/// both goods or of one (its kind).
pub fn payment_target(a: &pb::MedurisAction) -> Option<String> {
    use pb::meduris_action::Kind;
    match a.kind.as_ref()? {
        Kind::BuildHut(h) => Some(format!("hut {}", h.field)),
        Kind::BuildTemple(t) => Some(format!("temple {}", t.field)),
        Kind::Offer(o) => match pb::MedurisOfferingKind::try_from(o.kind).ok()? {
            pb::MedurisOfferingKind::Both => Some("offer both".into()),
            pb::MedurisOfferingKind::One => Some("offer one".into()),
            // Nothing and the chip are paid in one way only.
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> pb::StateView {
        use druids_contract::ProtoGame;
        use druids_engine::Game;
        use druids_engine::meduris::Meduris;
        let game = Meduris::new(3, 7, &Default::default(), &mut Vec::new()).unwrap();
        pb::StateView {
            kind: pb::GameKind::Meduris as i32,
            game: Some(Meduris::encode_view(
                &game.view(druids_engine::Viewer::Spectator),
            )),
            to_act: game.to_act().map(|s| s.0 as u32),
            decision: ProtoGame::decision(&game),
            ..Default::default()
        }
    }

    /// The 2-3 player board as printed: every field with its area and goods,
    /// the river between field 31 and field 0, chips named as chips, the
    /// druid on his temple, the plateaus and the seats.
    #[test]
    fn the_meduris_board_reads_like_the_printed_one() {
        let text = super::super::state(&view(), Style::default());
        assert!(text.contains("field  0  wool + copper"), "{text}");
        assert!(text.contains("field 31  stone + wool"), "{text}");
        assert!(
            text.contains("Serpent (rune stone in the supply)"),
            "{text}"
        );
        assert!(
            text.contains("the great river (between field 31 and field 0)"),
            "{text}"
        );
        assert_eq!(text.matches("chip: ").count(), 6, "six bonus chips: {text}");
        assert!(!text.contains("(druid)"), "{text}");
        assert!(
            text.contains("[DRUID: his temple] > stone field 1"),
            "{text}"
        );
        assert!(text.contains("seat 2 (light green): 5 points"), "{text}");
        assert!(text.contains("wood    -"), "{text}");
        assert!(
            text.contains("seat 0 (purple) must decide: place a worker"),
            "{text}"
        );
        assert!(!text.contains('\x1b'), "no colours without a terminal");
    }

    #[test]
    fn payments_of_one_target_share_it() {
        use pb::meduris_action::{BuildHut, Kind, Offer};
        let hut = |wood| pb::MedurisAction {
            kind: Some(Kind::BuildHut(BuildHut {
                field: 12,
                payment: Some(pb::MedurisGoods {
                    wood,
                    ..Default::default()
                }),
            })),
        };
        assert_eq!(payment_target(&hut(2)), payment_target(&hut(6)));
        let offer = |wool, kind: pb::MedurisOfferingKind| pb::MedurisAction {
            kind: Some(Kind::Offer(Offer {
                payment: Some(pb::MedurisGoods {
                    wool,
                    ..Default::default()
                }),
                kind: kind as i32,
            })),
        };
        use pb::MedurisOfferingKind::{Both, Nothing, One};
        assert_eq!(
            payment_target(&offer(1, One)),
            payment_target(&offer(3, One))
        );
        assert_ne!(
            payment_target(&offer(1, One)),
            payment_target(&offer(2, Both))
        );
        assert_eq!(payment_target(&offer(0, Nothing)), None);
    }
}
