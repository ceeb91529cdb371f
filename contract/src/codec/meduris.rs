//! Meduris on the wire: `proto/druids/v1/meduris.proto`.

use druids_engine::meduris::{
    Action, Area, BoardKind, Building, Chip, Decision, DieFace, DruidPos, Event, Good, Goods,
    Meduris, OfferingKind, Options, ScoreReason, View,
};

use druids_engine::meduris::{FieldView, SeatView};
use druids_engine::meduris::{GOODS_PER_KIND, STACK_LIMIT};

use super::{
    DecodeError, ProtoGame, common_options, count, decode_outcome, decode_seat, decode_to_act,
    decode_viewer, enum_field, players, seat_u32, small,
};
use crate::pb;
use crate::pb::meduris_action as act;
use crate::pb::meduris_event as ev;

fn good(g: Good) -> i32 {
    (match g {
        Good::Wood => pb::MedurisGood::Wood,
        Good::Wool => pb::MedurisGood::Wool,
        Good::Copper => pb::MedurisGood::Copper,
        Good::Stone => pb::MedurisGood::Stone,
    }) as i32
}

fn decode_good(field: &'static str, value: i32) -> Result<Good, DecodeError> {
    Ok(match enum_field::<pb::MedurisGood>(field, value)? {
        pb::MedurisGood::Wood => Good::Wood,
        pb::MedurisGood::Wool => Good::Wool,
        pb::MedurisGood::Copper => Good::Copper,
        pb::MedurisGood::Stone => Good::Stone,
        pb::MedurisGood::Unspecified => unreachable!("enum_field rejects 0"),
    })
}

fn goods(g: Goods) -> pb::MedurisGoods {
    pb::MedurisGoods {
        wood: g.0[0] as u32,
        wool: g.0[1] as u32,
        copper: g.0[2] as u32,
        stone: g.0[3] as u32,
    }
}

/// No payment ever needs more than this many goods of a kind (18 exist).
const MAX_PER_KIND: u8 = 18;

fn decode_goods(field: &'static str, g: Option<&pb::MedurisGoods>) -> Result<Goods, DecodeError> {
    let Some(g) = g else {
        return Ok(Goods::EMPTY);
    };
    Ok(Goods([
        small(field, g.wood, MAX_PER_KIND)?,
        small(field, g.wool, MAX_PER_KIND)?,
        small(field, g.copper, MAX_PER_KIND)?,
        small(field, g.stone, MAX_PER_KIND)?,
    ]))
}

fn chip(c: Chip) -> i32 {
    (match c {
        Chip::PlusTwo => pb::MedurisChip::PlusTwo,
        Chip::FreeHut => pb::MedurisChip::FreeHut,
        Chip::DruidOffering => pb::MedurisChip::DruidOffering,
    }) as i32
}

fn area(a: Area) -> i32 {
    a.index() as i32 + 1
}

fn druid(p: DruidPos) -> pb::MedurisDruidPosition {
    use pb::meduris_druid_position::At;
    pb::MedurisDruidPosition {
        at: Some(match p {
            DruidPos::Temple => At::Temple(true),
            DruidPos::StoneField(n) => At::StoneField(n as u32),
            DruidPos::Field(f) => At::Field(f as u32),
        }),
    }
}

fn decision(d: Decision) -> pb::MedurisDecision {
    use pb::meduris_decision::Kind;
    let (kind, field, last_round) = match d {
        Decision::PlaceWorker => (Kind::PlaceWorker, 0, false),
        Decision::TakeGood => (Kind::TakeGood, 0, false),
        Decision::ReturnGood => (Kind::ReturnGood, 0, false),
        Decision::Turn => (Kind::Turn, 0, false),
        Decision::Offering { field, last_round } => (Kind::Offering, field as u32, last_round),
    };
    let offering = matches!(d, Decision::Offering { .. });
    pb::MedurisDecision {
        kind: kind as i32,
        field: offering.then_some(field),
        last_round: offering.then_some(last_round),
    }
}

fn decode_decision(d: &pb::MedurisDecision) -> Result<Decision, DecodeError> {
    use pb::meduris_decision::Kind;
    Ok(match enum_field::<Kind>("decision.meduris.kind", d.kind)? {
        Kind::PlaceWorker => Decision::PlaceWorker,
        Kind::TakeGood => Decision::TakeGood,
        Kind::ReturnGood => Decision::ReturnGood,
        Kind::Turn => Decision::Turn,
        Kind::Offering => Decision::Offering {
            field: small(
                "decision.meduris.field",
                d.field
                    .ok_or(DecodeError::Missing("decision.meduris.field"))?,
                MAX_FIELD,
            )?,
            last_round: d
                .last_round
                .ok_or(DecodeError::Missing("decision.meduris.last_round"))?,
        },
        Kind::Unspecified => unreachable!("enum_field rejects 0"),
    })
}

fn decode_chip(field: &'static str, value: i32) -> Result<Option<Chip>, DecodeError> {
    if value == 0 {
        return Ok(None);
    }
    Ok(Some(match enum_field::<pb::MedurisChip>(field, value)? {
        pb::MedurisChip::PlusTwo => Chip::PlusTwo,
        pb::MedurisChip::FreeHut => Chip::FreeHut,
        pb::MedurisChip::DruidOffering => Chip::DruidOffering,
        pb::MedurisChip::Unspecified => unreachable!("enum_field rejects 0"),
    }))
}

fn decode_area(field: &'static str, value: i32) -> Result<Area, DecodeError> {
    if !(1..=Area::ALL.len() as i32).contains(&value) {
        return Err(DecodeError::BadEnum { field, value });
    }
    Ok(Area::ALL[value as usize - 1])
}

fn decode_druid(
    p: Option<&pb::MedurisDruidPosition>,
    fields: usize,
) -> Result<DruidPos, DecodeError> {
    use pb::meduris_druid_position::At;
    Ok(
        match p
            .and_then(|p| p.at.as_ref())
            .ok_or(DecodeError::Missing("meduris.druid"))?
        {
            At::Temple(_) => DruidPos::Temple,
            At::StoneField(n) => DruidPos::StoneField(small("meduris.druid.stone_field", *n, 3)?),
            At::Field(f) => DruidPos::Field(small("meduris.druid.field", *f, fields as u8 - 1)?),
        },
    )
}

/// Goods in a view: a seat's or the supply (never more than exist of a kind).
fn decode_view_goods(
    field: &'static str,
    g: Option<&pb::MedurisGoods>,
) -> Result<Goods, DecodeError> {
    let g = g.ok_or(DecodeError::Missing(field))?;
    Ok(Goods([
        small(field, g.wood, GOODS_PER_KIND)?,
        small(field, g.wool, GOODS_PER_KIND)?,
        small(field, g.copper, GOODS_PER_KIND)?,
        small(field, g.stone, GOODS_PER_KIND)?,
    ]))
}

/// The kind of offering a payment's size makes: each of the field's two goods
/// is paid by itself or by three goods, so both goods take 2, 4 or 6 goods,
/// one good 1 or 3, nothing none. The rules, not the codec, check that the
/// goods fit the field.
fn offer_kind(payment: Goods) -> pb::MedurisOfferingKind {
    match payment.total() {
        0 => pb::MedurisOfferingKind::Nothing,
        1 | 3 => pb::MedurisOfferingKind::One,
        _ => pb::MedurisOfferingKind::Both,
    }
}

/// Field numbers never exceed this (the large board has 40 fields); the
/// engine refuses those beyond the board in use.
const MAX_FIELD: u8 = 63;

impl ProtoGame for Meduris {
    const KIND: crate::registry::Kind = crate::registry::Kind::Meduris;

    fn decode_options(options: &pb::GameOptions) -> Result<Options, DecodeError> {
        let (start_seat, max_turns) = common_options(options)?;
        Ok(Options {
            start_seat,
            max_turns,
        })
    }

    fn encode_action(action: &Action) -> pb::Action {
        use act::Kind;
        let kind = match *action {
            Action::PlaceWorker { plateau } => Kind::PlaceWorker(act::PlaceWorker {
                plateau: good(plateau),
            }),
            Action::TakeGood { good: g } => Kind::TakeGood(act::TakeGood { good: good(g) }),
            Action::ReturnGood { good: g } => Kind::ReturnGood(act::ReturnGood { good: good(g) }),
            Action::BigYield { from, height, to } => Kind::BigYield(act::BigYield {
                from_plateau: good(from),
                height: height as u32,
                to_plateau: good(to),
            }),
            Action::BuildHut { field, payment } => Kind::BuildHut(act::BuildHut {
                field: field as u32,
                payment: Some(goods(payment)),
            }),
            Action::BuildTemple { field, payment } => Kind::BuildTemple(act::BuildTemple {
                field: field as u32,
                payment: Some(goods(payment)),
            }),
            Action::Offer { payment } => Kind::Offer(act::Offer {
                payment: Some(goods(payment)),
                kind: offer_kind(payment) as i32,
            }),
            Action::OfferChip => Kind::OfferChip(act::OfferChip {}),
        };
        pb::Action {
            game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                kind: Some(kind),
            })),
        }
    }

    fn decode_action(action: &pb::Action) -> Result<Action, DecodeError> {
        use act::Kind;
        let m = match &action.game {
            Some(pb::action::Game::Meduris(m)) => m,
            Some(_) => {
                return Err(DecodeError::WrongGame {
                    expected: "meduris",
                });
            }
            None => return Err(DecodeError::Missing("action.game")),
        };
        Ok(
            match m
                .kind
                .as_ref()
                .ok_or(DecodeError::Missing("action.meduris.kind"))?
            {
                Kind::PlaceWorker(a) => Action::PlaceWorker {
                    plateau: decode_good("place_worker.plateau", a.plateau)?,
                },
                Kind::TakeGood(a) => Action::TakeGood {
                    good: decode_good("take_good.good", a.good)?,
                },
                Kind::ReturnGood(a) => Action::ReturnGood {
                    good: decode_good("return_good.good", a.good)?,
                },
                Kind::BigYield(a) => Action::BigYield {
                    from: decode_good("big_yield.from_plateau", a.from_plateau)?,
                    height: small("big_yield.height", a.height, 3)?,
                    to: decode_good("big_yield.to_plateau", a.to_plateau)?,
                },
                Kind::BuildHut(a) => Action::BuildHut {
                    field: small("build_hut.field", a.field, MAX_FIELD)?,
                    payment: decode_goods("build_hut.payment", a.payment.as_ref())?,
                },
                Kind::BuildTemple(a) => Action::BuildTemple {
                    field: small("build_temple.field", a.field, MAX_FIELD)?,
                    payment: decode_goods("build_temple.payment", a.payment.as_ref())?,
                },
                Kind::Offer(a) => {
                    let payment = decode_goods("offer.payment", a.payment.as_ref())?;
                    let kind = enum_field::<pb::MedurisOfferingKind>("offer.kind", a.kind)?;
                    if kind != offer_kind(payment) {
                        return Err(DecodeError::Contradiction {
                            field: "offer.kind",
                            why: "the payment's size says another kind of offering (both goods: 2, 4 or 6 goods; one good: 1 or 3; nothing: none; the druid chip: send offer_chip)",
                        });
                    }
                    Action::Offer { payment }
                }
                Kind::OfferChip(_) => Action::OfferChip,
            },
        )
    }

    fn encode_event(event: &Event) -> pb::game_event::Body {
        use ev::Kind;
        let s = seat_u32;
        let kind = match event {
            Event::ChipPlaced { field, chip: c } => Kind::ChipPlaced(ev::ChipPlaced {
                field: *field as u32,
                chip: chip(*c),
            }),
            Event::WorkerPlaced { seat, plateau } => Kind::WorkerPlaced(ev::WorkerPlaced {
                seat: s(*seat),
                plateau: good(*plateau),
            }),
            Event::TurnStarted { seat, turn } => Kind::TurnStarted(ev::TurnStarted {
                seat: s(*seat),
                turn: *turn,
            }),
            Event::DieRolled { face } => Kind::DieRolled(match face {
                DieFace::Yield(g) => ev::DieRolled {
                    yield_good: good(*g),
                    ..Default::default()
                },
                DieFace::PlusOne => ev::DieRolled {
                    plus_one: true,
                    ..Default::default()
                },
                DieFace::MinusOne => ev::DieRolled {
                    minus_one: true,
                    ..Default::default()
                },
            }),
            Event::GoodsGained {
                seat,
                good: g,
                count,
            } => Kind::GoodsGained(ev::GoodsGained {
                seat: s(*seat),
                good: good(*g),
                count: *count as u32,
            }),
            Event::GoodReturned { seat, good: g } => Kind::GoodReturned(ev::GoodReturned {
                seat: s(*seat),
                good: good(*g),
            }),
            Event::WorkerMoved {
                seat,
                from,
                height,
                to,
            } => Kind::WorkerMoved(ev::WorkerMoved {
                seat: s(*seat),
                from_plateau: good(*from),
                height: *height as u32,
                to_plateau: good(*to),
            }),
            Event::HutBuilt {
                seat,
                field,
                paid,
                settlement,
            } => Kind::HutBuilt(ev::HutBuilt {
                seat: s(*seat),
                field: *field as u32,
                paid: Some(goods(*paid)),
                settlement: *settlement as u32,
            }),
            Event::TempleBuilt { seat, field, paid } => Kind::TempleBuilt(ev::TempleBuilt {
                seat: s(*seat),
                field: *field as u32,
                paid: Some(goods(*paid)),
            }),
            Event::ChipUsed { field, chip: c } => Kind::ChipUsed(ev::ChipUsed {
                field: *field as u32,
                chip: chip(*c),
            }),
            Event::RuneTaken { area: a, from, to } => Kind::RuneTaken(ev::RuneTaken {
                area: area(*a),
                from_seat: from.map(s),
                to_seat: s(*to),
            }),
            Event::DruidMoved { to } => Kind::DruidMoved(ev::DruidMoved {
                to: Some(druid(*to)),
            }),
            Event::RiverCrossed => Kind::RiverCrossed(ev::RiverCrossed {}),
            Event::Offering {
                seat,
                field,
                kind,
                paid,
            } => Kind::Offering(ev::Offering {
                seat: s(*seat),
                field: *field as u32,
                kind: (match kind {
                    OfferingKind::Both => pb::MedurisOfferingKind::Both,
                    OfferingKind::One => pb::MedurisOfferingKind::One,
                    OfferingKind::Nothing => pb::MedurisOfferingKind::Nothing,
                    OfferingKind::Chip => pb::MedurisOfferingKind::Chip,
                }) as i32,
                paid: Some(goods(*paid)),
            }),
            Event::Scored {
                seat,
                delta,
                total,
                reason,
            } => Kind::Scored(ev::Scored {
                seat: s(*seat),
                delta: *delta,
                total: *total,
                reason: (match reason {
                    ScoreReason::Chip => pb::MedurisScoreReason::Chip,
                    ScoreReason::Offering => pb::MedurisScoreReason::Offering,
                    ScoreReason::RiverCrossing => pb::MedurisScoreReason::RiverCrossing,
                    ScoreReason::Temple => pb::MedurisScoreReason::Temple,
                    ScoreReason::Runes => pb::MedurisScoreReason::Runes,
                }) as i32,
            }),
            Event::EndTriggered { seat } => Kind::EndTriggered(ev::EndTriggered { seat: s(*seat) }),
            Event::SafeguardReached { turns } => {
                Kind::SafeguardReached(ev::SafeguardReached { turns: *turns })
            }
            Event::LastRoundStarted { marked } => Kind::LastRoundStarted(ev::LastRoundStarted {
                marked: Some(druid(*marked)),
            }),
            Event::GameOver(end) => Kind::GameOver(ev::GameOver {
                scores: end.scores.clone(),
                goods_left: end
                    .goods_left
                    .iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        g.map(|g| ev::SeatGoods {
                            seat: i as u32,
                            goods: Some(goods(g)),
                        })
                    })
                    .collect(),
                winners: end.winners.iter().map(|&w| s(w)).collect(),
            }),
        };
        pb::game_event::Body::Meduris(pb::MedurisEvent { kind: Some(kind) })
    }

    fn encode_view(v: &View) -> pb::state_view::Game {
        let board = v.board.fields();
        pb::state_view::Game::Meduris(pb::MedurisView {
            board: match v.board {
                BoardKind::Small => pb::MedurisBoard::Small,
                BoardKind::Large => pb::MedurisBoard::Large,
            } as i32,
            fields: v
                .fields
                .iter()
                .zip(board)
                .enumerate()
                .map(|(i, (f, data))| pb::MedurisField {
                    field: i as u32,
                    area: area(data.area),
                    first_good: good(data.goods[0]),
                    second_good: good(data.goods[1]),
                    building: f.building.map(|b| pb::meduris_field::Building {
                        owner: seat_u32(b.owner()),
                        temple: matches!(b, Building::Temple(_)),
                    }),
                    chip: f.chip.map_or(0, chip),
                })
                .collect(),
            plateaus: Good::ALL
                .iter()
                .zip(&v.plateaus)
                .map(|(&g, stack)| pb::MedurisPlateau {
                    good: good(g),
                    workers: stack.iter().map(|&w| seat_u32(w)).collect(),
                })
                .collect(),
            supply: Some(goods(v.supply)),
            seats: v
                .seats
                .iter()
                .enumerate()
                .map(|(i, sv)| pb::MedurisSeat {
                    seat: i as u32,
                    colour: i as i32 + 1,
                    score: sv.score,
                    huts_left: sv.huts_left as u32,
                    temples_left: sv.temples_left as u32,
                    buildings_placed: sv.buildings_placed as u32,
                    runes: sv.runes as u32,
                    workers_to_place: sv.workers_to_place as u32,
                    goods: sv.goods.map(goods),
                })
                .collect(),
            runes: Area::ALL
                .iter()
                .map(|&a| pb::MedurisRuneHolder {
                    area: area(a),
                    seat: v.runes[a.index()].map(seat_u32),
                })
                .collect(),
            druid: Some(druid(v.druid)),
            active: seat_u32(v.active),
            turn: v.turn,
            end_triggered_by: v.end_triggered_by.map(seat_u32),
            last_turns_left: v.last_turns_left as u32,
            max_turns: v.max_turns,
            ritual_start: v.ritual_start.map(u32::from),
            last_round_end: v.last_round_end.map(u32::from),
        })
    }

    fn decode_view(state: &pb::StateView) -> Result<View, DecodeError> {
        let v = match &state.game {
            Some(pb::state_view::Game::Meduris(v)) => v,
            Some(_) => {
                return Err(DecodeError::WrongGame {
                    expected: "meduris",
                });
            }
            None => return Err(DecodeError::Missing("state.game")),
        };
        let n = players::<Meduris>("meduris.seats", v.seats.len())?;
        let seat = |field, value| decode_seat(field, value, n);
        let board = match enum_field::<pb::MedurisBoard>("meduris.board", v.board)? {
            pb::MedurisBoard::Small => BoardKind::Small,
            pb::MedurisBoard::Large => BoardKind::Large,
            pb::MedurisBoard::Unspecified => unreachable!("enum_field rejects 0"),
        };
        let field_count = board.field_count();
        count("meduris.fields", &v.fields, field_count)?;
        let fields = v
            .fields
            .iter()
            .map(|f| {
                Ok(FieldView {
                    building: f
                        .building
                        .map(|b| {
                            let owner = seat("meduris.fields.building.owner", b.owner)?;
                            Ok(if b.temple {
                                Building::Temple(owner)
                            } else {
                                Building::Hut(owner)
                            })
                        })
                        .transpose()?,
                    chip: decode_chip("meduris.fields.chip", f.chip)?,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        count("meduris.plateaus", &v.plateaus, Good::ALL.len())?;
        let mut plateaus: [Vec<_>; 4] = Default::default();
        for p in &v.plateaus {
            let g = decode_good("meduris.plateaus.good", p.good)?;
            if p.workers.len() > STACK_LIMIT {
                return Err(DecodeError::OutOfRange {
                    field: "meduris.plateaus.workers (count)",
                    value: p.workers.len() as u64,
                    max: STACK_LIMIT as u64,
                });
            }
            plateaus[g.index()] = p
                .workers
                .iter()
                .map(|&w| seat("meduris.plateaus.workers", w))
                .collect::<Result<_, _>>()?;
        }
        let seats = v
            .seats
            .iter()
            .map(|s| {
                let byte = |field, value| small(field, value, u8::MAX);
                Ok(SeatView {
                    score: s.score,
                    huts_left: byte("meduris.seats.huts_left", s.huts_left)?,
                    temples_left: byte("meduris.seats.temples_left", s.temples_left)?,
                    buildings_placed: byte("meduris.seats.buildings_placed", s.buildings_placed)?,
                    runes: small("meduris.seats.runes", s.runes, Area::ALL.len() as u8)?,
                    workers_to_place: byte("meduris.seats.workers_to_place", s.workers_to_place)?,
                    goods: s
                        .goods
                        .as_ref()
                        .map(|g| decode_view_goods("meduris.seats.goods", Some(g)))
                        .transpose()?,
                })
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        count("meduris.runes", &v.runes, Area::ALL.len())?;
        let mut runes = [None; 9];
        for r in &v.runes {
            let a = decode_area("meduris.runes.area", r.area)?;
            runes[a.index()] = r.seat.map(|s| seat("meduris.runes.seat", s)).transpose()?;
        }
        let field_number = |field, value| small(field, value, field_count as u8 - 1);
        Ok(View {
            viewer: decode_viewer(state, n)?,
            board,
            fields,
            plateaus,
            supply: decode_view_goods("meduris.supply", v.supply.as_ref())?,
            seats,
            runes,
            druid: decode_druid(v.druid.as_ref(), field_count)?,
            active: seat("meduris.active", v.active)?,
            turn: v.turn,
            to_act: decode_to_act(state, n)?,
            decision: match state.decision.as_ref().and_then(|d| d.game.as_ref()) {
                None => None,
                Some(pb::decision::Game::Meduris(d)) => Some(decode_decision(d)?),
                Some(_) => {
                    return Err(DecodeError::WrongGame {
                        expected: "meduris",
                    });
                }
            },
            end_triggered_by: v
                .end_triggered_by
                .map(|s| seat("meduris.end_triggered_by", s))
                .transpose()?,
            last_turns_left: small("meduris.last_turns_left", v.last_turns_left, u8::MAX)?,
            max_turns: v.max_turns,
            ritual_start: v
                .ritual_start
                .map(|f| field_number("meduris.ritual_start", f))
                .transpose()?,
            last_round_end: v
                .last_round_end
                .map(|f| field_number("meduris.last_round_end", f))
                .transpose()?,
            outcome: state
                .outcome
                .as_ref()
                .map(|o| decode_outcome(o, n))
                .transpose()?,
        })
    }

    fn decision(&self) -> Option<pb::Decision> {
        Meduris::decision(self).map(|d| pb::Decision {
            game: Some(pb::decision::Game::Meduris(decision(d))),
        })
    }

    fn legal_actions_all_payments(&self, out: &mut Vec<Action>) {
        Meduris::legal_actions_all_payments(self, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use druids_engine::Game;

    /// Every view of random games, for every seat and a spectator, and
    /// every legal action with every payment, decode back to what was encoded.
    #[test]
    fn views_and_actions_round_trip() {
        let checked = crate::codec::test_support::round_trip::<Meduris>(2..=4, 0..6);
        assert!(checked > 1000, "{checked} positions");
    }

    #[test]
    fn malformed_views_are_named() {
        use crate::codec::test_support::state_view;
        use druids_engine::{Seat, Viewer};
        let mut events = Vec::new();
        let game = Meduris::new(3, 1, &Options::default(), &mut events).unwrap();
        let good = state_view(&game, Viewer::Seat(Seat(1)));
        assert!(Meduris::decode_view(&good).is_ok());
        let mut bad = good.clone();
        bad.game = None;
        assert_eq!(
            Meduris::decode_view(&bad),
            Err(DecodeError::Missing("state.game"))
        );
        bad.game = Some(pb::state_view::Game::Dolmen(pb::DolmenView::default()));
        assert_eq!(
            Meduris::decode_view(&bad),
            Err(DecodeError::WrongGame {
                expected: "meduris"
            })
        );
        let mut bad = good.clone();
        bad.viewer_seat = Some(3);
        assert!(matches!(
            Meduris::decode_view(&bad),
            Err(DecodeError::OutOfRange {
                field: "viewer_seat",
                ..
            })
        ));
        let mut bad = good.clone();
        let Some(pb::state_view::Game::Meduris(v)) = &mut bad.game else {
            unreachable!()
        };
        v.fields.pop();
        assert_eq!(
            Meduris::decode_view(&bad),
            Err(DecodeError::Count {
                field: "meduris.fields",
                got: 31,
                expected: 32
            })
        );
        let mut bad = good;
        let Some(pb::state_view::Game::Meduris(v)) = &mut bad.game else {
            unreachable!()
        };
        v.plateaus[0].workers = vec![0, 1, 2, 0];
        assert!(Meduris::decode_view(&bad).is_err());
    }

    /// An offer says which kind it is; a kind its payment's size rules out is
    /// refused, whatever the goods.
    #[test]
    fn an_offer_names_its_kind_and_the_payment_must_agree() {
        use pb::MedurisOfferingKind as K;
        let offer = |payment: Goods, kind: K| pb::Action {
            game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                kind: Some(act::Kind::Offer(act::Offer {
                    payment: Some(goods(payment)),
                    kind: kind as i32,
                })),
            })),
        };
        let two = Goods([1, 1, 0, 0]);
        let three = Goods([3, 0, 0, 0]);
        for (payment, kind) in [
            (Goods::EMPTY, K::Nothing),
            (Goods([1, 0, 0, 0]), K::One),
            (three, K::One),
            (two, K::Both),
            (Goods([1, 3, 0, 0]), K::Both),
        ] {
            let a = Action::Offer { payment };
            assert_eq!(Meduris::encode_action(&a), offer(payment, kind));
            assert_eq!(Meduris::decode_action(&offer(payment, kind)), Ok(a));
        }
        for (payment, kind) in [
            (two, K::One),
            (three, K::Both),
            (Goods::EMPTY, K::Both),
            (two, K::Nothing),
            (two, K::Chip),
        ] {
            assert!(matches!(
                Meduris::decode_action(&offer(payment, kind)),
                Err(DecodeError::Contradiction {
                    field: "offer.kind",
                    ..
                })
            ));
        }
        assert_eq!(
            Meduris::decode_action(&offer(two, K::Unspecified)),
            Err(DecodeError::BadEnum {
                field: "offer.kind",
                value: 0
            })
        );
    }

    #[test]
    fn malformed_actions_are_named() {
        let none = pb::Action { game: None };
        assert_eq!(
            Meduris::decode_action(&none),
            Err(DecodeError::Missing("action.game"))
        );
        let bad_good = pb::Action {
            game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                kind: Some(act::Kind::TakeGood(act::TakeGood { good: 9 })),
            })),
        };
        assert_eq!(
            Meduris::decode_action(&bad_good),
            Err(DecodeError::BadEnum {
                field: "take_good.good",
                value: 9
            })
        );
        let unspecified = pb::Action {
            game: Some(pb::action::Game::Meduris(pb::MedurisAction {
                kind: Some(act::Kind::TakeGood(act::TakeGood { good: 0 })),
            })),
        };
        assert!(Meduris::decode_action(&unspecified).is_err());
        let dolmen = pb::Action {
            game: Some(pb::action::Game::Dolmen(pb::DolmenAction::default())),
        };
        assert_eq!(
            Meduris::decode_action(&dolmen),
            Err(DecodeError::WrongGame {
                expected: "meduris"
            })
        );
    }
}
