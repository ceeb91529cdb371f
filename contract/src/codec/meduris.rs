//! Meduris on the wire: `proto/druids/v1/meduris.proto`.

use druids_engine::meduris::{
    Action, Area, BoardKind, Building, DieFace, Event, Good, Meduris, OfferingKind, Options,
    ScoreReason, View,
};

use druids_engine::meduris::STACK_LIMIT;
use druids_engine::meduris::{FieldView, SeatView};

use super::{
    DecodeError, ProtoGame, common_options, count, decode_outcome, decode_seat, decode_to_act,
    decode_viewer, enum_field, players, seat_u32, small,
};
use crate::pb;
use crate::pb::meduris_action as act;
use crate::pb::meduris_event as ev;

mod values;

use values::{
    MAX_FIELD, area, chip, decision, decode_area, decode_chip, decode_decision, decode_druid,
    decode_good, decode_goods, decode_view_goods, druid, good, goods, offer_kind,
};

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

    fn decision_description(&self) -> String {
        Meduris::decision(self).map_or_else(String::new, |d| d.to_string())
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
mod tests;
