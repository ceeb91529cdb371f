//! The menu of a decision for a person at the terminal: the legal actions
//! grouped by where on the board they take effect, as the web viewer groups
//! them into clickable targets (a field, a plateau, a site), labelled `a`,
//! `b`, … (letters, so that a choice is never mistaken for a field or site
//! number), in columns when there are many, so that a turn of 78 actions
//! fits an 80 × 24 terminal. A group of several actions is a second
//! question.

use druids_contract::pb;

use crate::render;

/// The width the menu is laid out for.
pub const WIDTH: usize = 80;

/// More groups than this are shown by their target only, in columns.
const FEW: usize = 12;

/// The label of choice `i`: `a` … `z`, then `aa`, `ab`, … (as spreadsheet
/// columns), so any number of choices gets a short label of letters only.
pub fn label(i: usize) -> String {
    let mut n = i + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII letters")
}

/// The choice a label names, if it is one of `n`.
pub fn parse_label(s: &str, n: usize) -> Option<usize> {
    let s = s.trim().to_ascii_lowercase();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_lowercase()) || s.len() > 4 {
        return None;
    }
    let i = s
        .bytes()
        .fold(0usize, |acc, b| acc * 26 + (b - b'a') as usize + 1)
        - 1;
    (i < n).then_some(i)
}

/// One entry of the menu: an action, or the actions on one target.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// What the entry says.
    pub text: String,
    /// The legal actions it stands for (indices into the list).
    pub members: Vec<usize>,
}

/// What an action does, without where: its description up to the target
/// ("build a hut on field 3 paying …" on "field 3": "build a hut").
fn verb(description: &str, target: &str) -> String {
    let cut = description.find(target).unwrap_or(description.len());
    let head = description[..cut].trim_end();
    let head = ["on the", "on", "to", "at"]
        .iter()
        .find_map(|w| head.strip_suffix(w))
        .unwrap_or(head);
    head.trim_end_matches([' ', ':']).to_owned()
}

/// A decision's menu: its entries, and what they all do when they all do
/// the same ("place a druid on": then each entry names only its target).
#[derive(Clone, Debug, PartialEq)]
pub struct Menu {
    /// What every entry does, when it is one thing.
    pub heading: Option<String>,
    /// The entries.
    pub groups: Vec<Group>,
}

/// The menu of `legal`: actions on one target together, in the order of
/// the list; with many targets that all take one kind of action, the
/// action is said once.
pub fn menu(legal: &[pb::LegalAction]) -> Menu {
    let groups = groups(legal);
    let heads: Vec<Option<(&str, &str)>> = groups.iter().map(|g| g.text.split_once(": ")).collect();
    let shared = match heads.first() {
        Some(Some((_, verbs))) if groups.len() > FEW => heads
            .iter()
            .all(|h| h.is_some_and(|(_, v)| v == *verbs))
            .then_some(*verbs),
        _ => None,
    };
    let Some(verbs) = shared else {
        return Menu {
            heading: None,
            groups,
        };
    };
    let heading = format!("{verbs}:");
    let groups = groups
        .iter()
        .zip(&heads)
        .map(|(g, h)| Group {
            text: h.map_or(g.text.clone(), |(t, _)| t.to_owned()),
            members: g.members.clone(),
        })
        .collect();
    Menu {
        heading: Some(heading),
        groups,
    }
}

/// The entries of `legal`'s menu, each with all it says.
fn groups(legal: &[pb::LegalAction]) -> Vec<Group> {
    let targets: Vec<Option<String>> = legal
        .iter()
        .map(|a| a.action.as_ref().and_then(render::target))
        .collect();
    let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| t.is_some() && g == t) {
            Some((_, members)) => members.push(i),
            None => groups.push((t.clone(), vec![i])),
        }
    }
    let few = groups.len() <= FEW;
    groups
        .into_iter()
        .map(|(target, members)| {
            let text = match (&target, members.as_slice()) {
                (None, [i]) => legal[*i].description.clone(),
                (Some(_), [i]) if few => legal[*i].description.clone(),
                (Some(t), _) => {
                    let mut verbs: Vec<(String, usize)> = Vec::new();
                    for &i in &members {
                        let v = verb(&legal[i].description, t);
                        match verbs.iter_mut().find(|(w, _)| *w == v) {
                            Some((_, n)) => *n += 1,
                            None => verbs.push((v, 1)),
                        }
                    }
                    let verbs: Vec<String> = verbs
                        .into_iter()
                        .map(|(v, n)| if n > 1 { format!("{v} (x{n})") } else { v })
                        .collect();
                    format!("{t}: {}", verbs.join(" / "))
                }
                (None, _) => unreachable!("actions without a target are grouped alone"),
            };
            Group { text, members }
        })
        .collect()
}

/// `entries` as labelled lines of at most [`WIDTH`] columns: one per line
/// when few or long, else in columns, filled row by row.
pub fn layout(entries: &[String]) -> Vec<String> {
    let cells: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| format!("[{}] {e}", label(i)))
        .collect();
    let widest = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0) + 2;
    let columns = if cells.len() <= FEW {
        1
    } else {
        ((WIDTH - 2) / widest.max(1)).max(1)
    };
    cells
        .chunks(columns)
        .map(|row| {
            let mut line = "  ".to_owned();
            for cell in row {
                line.push_str(&format!("{cell:<widest$}"));
            }
            line.trim_end().to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_letters_and_parse_back() {
        assert_eq!(label(0), "a");
        assert_eq!(label(25), "z");
        assert_eq!(label(26), "aa");
        assert_eq!(label(27), "ab");
        assert_eq!(label(26 + 26 * 26), "aaa");
        for i in 0..800 {
            assert_eq!(parse_label(&label(i), 800), Some(i), "{i}");
        }
        assert_eq!(parse_label("c", 2), None);
        assert_eq!(parse_label("12", 40), None, "numbers are not choices");
        assert_eq!(parse_label(" B\n", 3), Some(1));
        assert_eq!(parse_label("", 3), None);
    }

    fn dolmen_legal() -> Vec<pb::LegalAction> {
        use druids_engine::Game;
        use druids_engine::dolmen::Dolmen;
        let game = Dolmen::new(2, 1, &Default::default(), &mut Vec::new()).unwrap();
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        druids_contract::codec::legal_list::<Dolmen>(&legal)
    }

    /// The first decision of Die Dolmengötter, a druid on any of 73 sites,
    /// fits an 80 × 24 terminal with the board's room to spare.
    #[test]
    fn a_long_decision_is_laid_out_in_columns() {
        let legal = dolmen_legal();
        assert!(legal.len() > 60, "{}", legal.len());
        let m = menu(&legal);
        assert_eq!(m.heading.as_deref(), Some("place a druid:"));
        let g = m.groups;
        assert_eq!(g.len(), legal.len(), "one site each");
        assert!(g[0].text.starts_with("site "), "{:?}", g[0]);
        let texts: Vec<String> = g.iter().map(|g| g.text.clone()).collect();
        let lines = layout(&texts);
        assert!(lines.len() <= 15, "{} lines", lines.len());
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:#?}"
        );
        let all = lines.join(" ");
        assert!(all.contains("[q] ") && all.contains("[bu] "), "{all}");
    }

    #[test]
    fn actions_on_one_target_are_one_entry() {
        let la = |d: &str, field: u32, temple: bool| pb::LegalAction {
            id: None,
            action: Some(pb::Action {
                game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                    kind: Some(if temple {
                        pb::meduris_action::Kind::BuildTemple(pb::meduris_action::BuildTemple {
                            field,
                            ..Default::default()
                        })
                    } else {
                        pb::meduris_action::Kind::BuildHut(pb::meduris_action::BuildHut {
                            field,
                            ..Default::default()
                        })
                    }),
                })),
            }),
            description: d.into(),
        };
        let legal = vec![
            la("build a hut on field 3 paying 1 wood and 1 wool", 3, false),
            la("build a temple on field 3 paying 2 stone", 3, true),
            la(
                "build a hut on field 5 paying 1 copper and 1 stone",
                5,
                false,
            ),
        ];
        let m = menu(&legal);
        assert_eq!(m.heading, None);
        let g = m.groups;
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].members, [0, 1]);
        assert_eq!(g[0].text, "field 3: build a hut / build a temple");
        assert_eq!(
            g[1].text,
            "build a hut on field 5 paying 1 copper and 1 stone"
        );
    }
}
