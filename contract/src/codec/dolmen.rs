//! Die Dolmengötter on the wire: `proto/druids/v1/dolmen.proto`.

use druids_engine::dolmen::{
    Action, Circle, CircleView, Decision, Dir, Dolmen, DolmenView, EndReason, Event, Occupant,
    Options, QueuedDolmen, ScoreReason, SeatView, Shape, Site, View, board,
};

use druids_engine::{Game, Seat};

use super::{
    DecodeError, ProtoGame, common_options, count, decode_outcome, decode_seat, decode_to_act,
    decode_viewer, enum_field, players, seat_u32, small,
};
use crate::pb;
use crate::pb::dolmen_action as act;
use crate::pb::dolmen_event as ev;

fn site(s: Site) -> u32 {
    s.0 as u32
}

fn circle(c: Circle) -> u32 {
    c.0 as u32
}

fn decode_site(field: &'static str, value: u32) -> Result<Site, DecodeError> {
    small(field, value, board::SITES as u8 - 1).map(Site)
}

fn direction(d: Dir) -> i32 {
    (match d {
        Dir::North => pb::DolmenDirection::North,
        Dir::East => pb::DolmenDirection::East,
        Dir::South => pb::DolmenDirection::South,
        Dir::West => pb::DolmenDirection::West,
        Dir::Diagonal => pb::DolmenDirection::Diagonal,
    }) as i32
}

fn decode_direction(field: &'static str, value: i32) -> Result<Dir, DecodeError> {
    Ok(match enum_field::<pb::DolmenDirection>(field, value)? {
        pb::DolmenDirection::North => Dir::North,
        pb::DolmenDirection::East => Dir::East,
        pb::DolmenDirection::South => Dir::South,
        pb::DolmenDirection::West => Dir::West,
        pb::DolmenDirection::Diagonal => Dir::Diagonal,
        pb::DolmenDirection::Unspecified => unreachable!("enum_field rejects 0"),
    })
}

fn shape(s: Shape) -> i32 {
    (match s {
        Shape::Square => pb::DolmenShape::Square,
        Shape::Hexagon => pb::DolmenShape::Hexagon,
        Shape::Octagon => pb::DolmenShape::Octagon,
    }) as i32
}

fn values(counts: [u8; 4]) -> pb::DolmenValues {
    pb::DolmenValues {
        ones: counts[0] as u32,
        twos: counts[1] as u32,
        threes: counts[2] as u32,
        fours: counts[3] as u32,
    }
}

fn decision(d: Decision) -> pb::DolmenDecision {
    use pb::dolmen_decision::Kind;
    let mut out = pb::DolmenDecision::default();
    match d {
        Decision::PlaceDruid => out.kind = Kind::PlaceDruid as i32,
        Decision::Turn => out.kind = Kind::Turn as i32,
        Decision::Stone {
            site: s,
            may_decline,
        } => {
            out.kind = Kind::Stone as i32;
            out.site = Some(site(s));
            out.may_decline = Some(may_decline);
        }
        Decision::Dolmen { circle: c, on_top } => {
            out.kind = Kind::Dolmen as i32;
            out.circle = Some(circle(c));
            out.on_top = Some(on_top);
        }
    }
    out
}

fn decode_circle(field: &'static str, value: u32) -> Result<Circle, DecodeError> {
    small(field, value, board::CIRCLES as u8 - 1).map(Circle)
}

fn decode_decision(d: &pb::DolmenDecision) -> Result<Decision, DecodeError> {
    use pb::dolmen_decision::Kind;
    Ok(match enum_field::<Kind>("decision.dolmen.kind", d.kind)? {
        Kind::PlaceDruid => Decision::PlaceDruid,
        Kind::Turn => Decision::Turn,
        Kind::Stone => Decision::Stone {
            site: decode_site(
                "decision.dolmen.site",
                d.site.ok_or(DecodeError::Missing("decision.dolmen.site"))?,
            )?,
            may_decline: d
                .may_decline
                .ok_or(DecodeError::Missing("decision.dolmen.may_decline"))?,
        },
        Kind::Dolmen => Decision::Dolmen {
            circle: decode_circle(
                "decision.dolmen.circle",
                d.circle
                    .ok_or(DecodeError::Missing("decision.dolmen.circle"))?,
            )?,
            on_top: d
                .on_top
                .ok_or(DecodeError::Missing("decision.dolmen.on_top"))?,
        },
        Kind::Unspecified => unreachable!("enum_field rejects 0"),
    })
}

/// Counts of dolmens by value, each at most what a player ever holds.
fn decode_values(field: &'static str, v: &pb::DolmenValues) -> Result<[u8; 4], DecodeError> {
    Ok([
        small(field, v.ones, MAX_OF_A_VALUE)?,
        small(field, v.twos, MAX_OF_A_VALUE)?,
        small(field, v.threes, MAX_OF_A_VALUE)?,
        small(field, v.fours, MAX_OF_A_VALUE)?,
    ])
}

/// No player ever holds more dolmens of one value (5 ones with 2 players).
const MAX_OF_A_VALUE: u8 = 5;

impl ProtoGame for Dolmen {
    const KIND: crate::registry::Kind = crate::registry::Kind::Dolmen;

    fn decode_options(options: &pb::GameOptions) -> Result<Options, DecodeError> {
        let (start_seat, max_turns) = common_options(options)?;
        Ok(Options {
            start_seat: Seat(start_seat),
            max_turns,
        })
    }

    fn encode_action(action: &Action) -> pb::Action {
        use act::Kind;
        let kind = match *action {
            Action::PlaceDruid { site: s } => Kind::PlaceDruid(act::PlaceDruid { site: site(s) }),
            Action::Walk { from, dir } => Kind::Walk(act::Walk {
                from_site: site(from),
                direction: direction(dir),
            }),
            Action::CollectHerbs { site: s } => {
                Kind::CollectHerbs(act::CollectHerbs { site: site(s) })
            }
            Action::Fly { from, to } => Kind::Fly(act::Fly {
                from_site: site(from),
                to_site: site(to),
            }),
            Action::PlaceStone => Kind::PlaceStone(act::PlaceStone {}),
            Action::DeclineStone => Kind::DeclineStone(act::DeclineStone {}),
            Action::PlaceDolmen { value } => Kind::PlaceDolmen(act::PlaceDolmen {
                value: value.map(u32::from),
            }),
            Action::PassDolmen => Kind::PassDolmen(act::PassDolmen {}),
        };
        pb::Action {
            game: Some(pb::action::Game::Dolmen(pb::DolmenAction {
                kind: Some(kind),
            })),
        }
    }

    fn decode_action(action: &pb::Action) -> Result<Action, DecodeError> {
        use act::Kind;
        let d = match &action.game {
            Some(pb::action::Game::Dolmen(d)) => d,
            Some(_) => return Err(DecodeError::WrongGame { expected: "dolmen" }),
            None => return Err(DecodeError::Missing("action.game")),
        };
        Ok(
            match d
                .kind
                .as_ref()
                .ok_or(DecodeError::Missing("action.dolmen.kind"))?
            {
                Kind::PlaceDruid(a) => Action::PlaceDruid {
                    site: decode_site("place_druid.site", a.site)?,
                },
                Kind::Walk(a) => Action::Walk {
                    from: decode_site("walk.from_site", a.from_site)?,
                    dir: decode_direction("walk.direction", a.direction)?,
                },
                Kind::CollectHerbs(a) => Action::CollectHerbs {
                    site: decode_site("collect_herbs.site", a.site)?,
                },
                Kind::Fly(a) => Action::Fly {
                    from: decode_site("fly.from_site", a.from_site)?,
                    to: decode_site("fly.to_site", a.to_site)?,
                },
                Kind::PlaceStone(_) => Action::PlaceStone,
                Kind::DeclineStone(_) => Action::DeclineStone,
                Kind::PlaceDolmen(a) => {
                    // Unset means hidden: only ever in an action shown to
                    // another seat, never in one sent to be played.
                    let value = a.value.ok_or(DecodeError::Missing("place_dolmen.value"))?;
                    if !(1..=4).contains(&value) {
                        return Err(DecodeError::OutOfRange {
                            field: "place_dolmen.value (1-4)",
                            value: value as u64,
                            max: 4,
                        });
                    }
                    Action::PlaceDolmen {
                        value: Some(value as u8),
                    }
                }
                Kind::PassDolmen(_) => Action::PassDolmen,
            },
        )
    }

    fn encode_event(event: &Event) -> pb::game_event::Body {
        use ev::Kind;
        let s = seat_u32;
        let kind = match *event {
            Event::DruidPlaced { seat, site: at } => Kind::DruidPlaced(ev::DruidPlaced {
                seat: s(seat),
                site: site(at),
            }),
            Event::TurnStarted { seat, turn } => Kind::TurnStarted(ev::TurnStarted {
                seat: s(seat),
                turn,
            }),
            Event::TurnPassed { seat } => Kind::TurnPassed(ev::TurnPassed { seat: s(seat) }),
            Event::Walked {
                seat,
                from,
                to,
                dir,
                jumped,
            } => Kind::Walked(ev::Walked {
                seat: s(seat),
                from_site: site(from),
                to_site: site(to),
                direction: direction(dir),
                jumped: jumped as u32,
            }),
            Event::HerbsCollected { seat, site: at } => Kind::HerbsCollected(ev::HerbsCollected {
                seat: s(seat),
                site: site(at),
            }),
            Event::Flew { seat, from, to } => Kind::Flew(ev::Flew {
                seat: s(seat),
                from_site: site(from),
                to_site: site(to),
            }),
            Event::StonePlaced {
                seat,
                site: at,
                stones_left,
            } => Kind::StonePlaced(ev::StonePlaced {
                seat: s(seat),
                site: site(at),
                stones_left: stones_left as u32,
            }),
            Event::StoneDeclined { seat, site: at } => Kind::StoneDeclined(ev::StoneDeclined {
                seat: s(seat),
                site: site(at),
            }),
            Event::LeaderChanged { circle: c, leader } => Kind::LeaderChanged(ev::LeaderChanged {
                circle: circle(c),
                leader: s(leader),
            }),
            Event::DolmenPlaced {
                seat,
                circle: c,
                on_top,
                value,
                dolmens_left,
            } => Kind::DolmenPlaced(ev::DolmenPlaced {
                seat: s(seat),
                circle: circle(c),
                on_top,
                value: value.map(u32::from),
                dolmens_left: dolmens_left as u32,
            }),
            Event::DolmenPassed { seat, circle: c } => Kind::DolmenPassed(ev::DolmenPassed {
                seat: s(seat),
                circle: circle(c),
            }),
            Event::CircleCompleted { circle: c } => {
                Kind::CircleCompleted(ev::CircleCompleted { circle: circle(c) })
            }
            Event::DolmenScored {
                seat,
                circle: c,
                value,
                multiplier,
            } => Kind::DolmenScored(ev::DolmenScored {
                seat: s(seat),
                circle: circle(c),
                value: value as u32,
                multiplier: multiplier as u32,
            }),
            Event::ScoreChanged {
                seat,
                delta,
                score,
                reason,
            } => Kind::Scored(ev::Scored {
                seat: s(seat),
                delta,
                total: score,
                reason: (match reason {
                    ScoreReason::Dolmen => pb::DolmenScoreReason::Dolmen,
                    ScoreReason::DeclinedStone => pb::DolmenScoreReason::DeclinedStone,
                }) as i32,
            }),
            Event::LastTurnsBegin { seat } => {
                Kind::LastTurnsBegin(ev::LastTurnsBegin { seat: s(seat) })
            }
            Event::GameEnded { reason } => Kind::GameEnded(ev::GameEnded {
                reason: (match reason {
                    EndReason::LastDolmen => pb::DolmenEndReason::LastDolmen,
                    EndReason::LastStone => pb::DolmenEndReason::LastStone,
                    EndReason::Safeguard => pb::DolmenEndReason::Safeguard,
                }) as i32,
            }),
            Event::GameOver {
                ref scores,
                ref winners,
            } => Kind::GameOver(ev::GameOver {
                scores: scores.clone(),
                winners: winners.iter().map(|&w| s(w)).collect(),
            }),
        };
        pb::game_event::Body::Dolmen(pb::DolmenEvent { kind: Some(kind) })
    }

    fn encode_view(v: &View) -> pb::state_view::Game {
        use pb::dolmen_site::Occupant as PbOccupant;
        pb::state_view::Game::Dolmen(pb::DolmenView {
            sites: v
                .sites
                .iter()
                .enumerate()
                .map(|(i, occupant)| {
                    let at = Site(i as u8);
                    let (x, y) = board::coords(at);
                    pb::DolmenSite {
                        site: site(at),
                        x: x as u32,
                        y: y as u32,
                        circles: board::circles_of(at).iter().map(|&c| circle(c)).collect(),
                        occupant: occupant.map(|o| match o {
                            Occupant::Druid { seat, lying } => {
                                PbOccupant::Druid(pb::dolmen_site::Druid {
                                    seat: seat_u32(seat),
                                    lying,
                                })
                            }
                            Occupant::Stone(seat) => PbOccupant::Stone(seat_u32(seat)),
                        }),
                    }
                })
                .collect(),
            circles: v
                .circles
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let id = Circle(i as u8);
                    pb::DolmenCircle {
                        circle: circle(id),
                        letter: id.letter().to_string(),
                        shape: shape(board::shape(id)),
                        sites: board::circle_sites(id).iter().map(|&s| site(s)).collect(),
                        leader: c.leader.map(seat_u32),
                        stones: c.stones.iter().map(|&n| n as u32).collect(),
                        stack: c
                            .stack
                            .iter()
                            .map(|d| pb::DolmenPiece {
                                seat: seat_u32(d.seat),
                                value: d.value.map(u32::from),
                            })
                            .collect(),
                        complete: c.complete,
                    }
                })
                .collect(),
            seats: v
                .seats
                .iter()
                .enumerate()
                .map(|(i, sv)| pb::DolmenSeat {
                    seat: i as u32,
                    colour: i as i32 + 1,
                    score: sv.score,
                    stones_left: sv.stones_left as u32,
                    dolmens_left: sv.dolmens_left as u32,
                    dolmens_placed: sv.dolmens_placed as u32,
                    druids_to_place: sv.druids_to_place as u32,
                    hand: sv.hand.map(values),
                    scored: Some(values(sv.scored)),
                })
                .collect(),
            active: seat_u32(v.active),
            turn: v.turn,
            end_triggered_by: v.end_triggered_by.map(seat_u32),
            last_turns_left: v.last_turns_left as u32,
            max_turns: v.max_turns,
            queued_dolmens: v
                .queued_dolmens
                .iter()
                .map(|q| pb::DolmenQueued {
                    circle: circle(q.circle),
                    seat: seat_u32(q.seat),
                    on_top: q.on_top,
                })
                .collect(),
        })
    }

    fn decode_view(state: &pb::StateView) -> Result<View, DecodeError> {
        use pb::dolmen_site::Occupant as PbOccupant;
        let v = match &state.game {
            Some(pb::state_view::Game::Dolmen(v)) => v,
            Some(_) => return Err(DecodeError::WrongGame { expected: "dolmen" }),
            None => return Err(DecodeError::Missing("state.game")),
        };
        let n = players::<Dolmen>("dolmen.seats", v.seats.len())?;
        let seat = |field, value| decode_seat(field, value, n);
        let byte = |field, value| small(field, value, u8::MAX);
        count("dolmen.sites", &v.sites, board::SITES)?;
        let sites = v
            .sites
            .iter()
            .map(|s| {
                s.occupant
                    .as_ref()
                    .map(|o| {
                        Ok(match *o {
                            PbOccupant::Druid(d) => Occupant::Druid {
                                seat: seat("dolmen.sites.druid.seat", d.seat)?,
                                lying: d.lying,
                            },
                            PbOccupant::Stone(owner) => {
                                Occupant::Stone(seat("dolmen.sites.stone", owner)?)
                            }
                        })
                    })
                    .transpose()
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        count("dolmen.circles", &v.circles, board::CIRCLES)?;
        let circles = v
            .circles
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let most = board::shape(Circle(i as u8)).max_dolmens();
                if c.stack.len() > most {
                    return Err(DecodeError::OutOfRange {
                        field: "dolmen.circles.stack (count)",
                        value: c.stack.len() as u64,
                        max: most as u64,
                    });
                }
                if c.stones.len() > Dolmen::MAX_PLAYERS {
                    return Err(DecodeError::OutOfRange {
                        field: "dolmen.circles.stones (count)",
                        value: c.stones.len() as u64,
                        max: Dolmen::MAX_PLAYERS as u64,
                    });
                }
                let sites = board::circle_sites(Circle(i as u8)).len() as u8;
                Ok(CircleView {
                    leader: c
                        .leader
                        .map(|l| seat("dolmen.circles.leader", l))
                        .transpose()?,
                    stones: c
                        .stones
                        .iter()
                        .map(|&k| small("dolmen.circles.stones", k, sites))
                        .collect::<Result<_, _>>()?,
                    stack: c
                        .stack
                        .iter()
                        .map(|d| {
                            Ok(DolmenView {
                                seat: seat("dolmen.circles.stack.seat", d.seat)?,
                                value: match d.value {
                                    None => None,
                                    Some(value @ 1..=4) => Some(value as u8),
                                    Some(value) => {
                                        return Err(DecodeError::OutOfRange {
                                            field: "dolmen.circles.stack.value (1-4)",
                                            value: value as u64,
                                            max: 4,
                                        });
                                    }
                                },
                            })
                        })
                        .collect::<Result<_, DecodeError>>()?,
                    complete: c.complete,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        let seats = v
            .seats
            .iter()
            .map(|s| {
                Ok(SeatView {
                    score: s.score,
                    stones_left: byte("dolmen.seats.stones_left", s.stones_left)?,
                    dolmens_left: byte("dolmen.seats.dolmens_left", s.dolmens_left)?,
                    dolmens_placed: byte("dolmen.seats.dolmens_placed", s.dolmens_placed)?,
                    druids_to_place: byte("dolmen.seats.druids_to_place", s.druids_to_place)?,
                    hand: s
                        .hand
                        .as_ref()
                        .map(|h| decode_values("dolmen.seats.hand", h))
                        .transpose()?,
                    scored: decode_values(
                        "dolmen.seats.scored",
                        s.scored
                            .as_ref()
                            .ok_or(DecodeError::Missing("dolmen.seats.scored"))?,
                    )?,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        Ok(View {
            viewer: decode_viewer(state, n)?,
            sites,
            circles,
            seats,
            active: seat("dolmen.active", v.active)?,
            turn: v.turn,
            to_act: decode_to_act(state, n)?,
            decision: match state.decision.as_ref().and_then(|d| d.game.as_ref()) {
                None => None,
                Some(pb::decision::Game::Dolmen(d)) => Some(decode_decision(d)?),
                Some(_) => return Err(DecodeError::WrongGame { expected: "dolmen" }),
            },
            end_triggered_by: v
                .end_triggered_by
                .map(|s| seat("dolmen.end_triggered_by", s))
                .transpose()?,
            last_turns_left: byte("dolmen.last_turns_left", v.last_turns_left)?,
            max_turns: v.max_turns,
            outcome: state
                .outcome
                .as_ref()
                .map(|o| decode_outcome(o, n))
                .transpose()?,
            queued_dolmens: v
                .queued_dolmens
                .iter()
                .map(|q| {
                    Ok(QueuedDolmen {
                        circle: decode_circle("dolmen.queued_dolmens.circle", q.circle)?,
                        seat: seat("dolmen.queued_dolmens.seat", q.seat)?,
                        on_top: q.on_top,
                    })
                })
                .collect::<Result<_, DecodeError>>()?,
        })
    }

    fn decision_description(&self) -> String {
        Dolmen::decision(self).map_or_else(String::new, |d| d.to_string())
    }

    fn decision(&self) -> Option<pb::Decision> {
        Dolmen::decision(self).map(|d| pb::Decision {
            game: Some(pb::decision::Game::Dolmen(decision(d))),
        })
    }
}

#[cfg(test)]
mod tests;
