//! Meduris' values on the wire, both ways: goods, chips, areas, druid
//! positions, decisions and offerings, each checked against its bounds when
//! decoded.

use druids_engine::meduris::{Area, Chip, Decision, DruidPos, GOODS_PER_KIND, Good, Goods};

use super::super::{DecodeError, enum_field, small};
use crate::pb;

pub(super) fn good(g: Good) -> i32 {
    (match g {
        Good::Wood => pb::MedurisGood::Wood,
        Good::Wool => pb::MedurisGood::Wool,
        Good::Copper => pb::MedurisGood::Copper,
        Good::Stone => pb::MedurisGood::Stone,
    }) as i32
}

pub(super) fn decode_good(field: &'static str, value: i32) -> Result<Good, DecodeError> {
    Ok(match enum_field::<pb::MedurisGood>(field, value)? {
        pb::MedurisGood::Wood => Good::Wood,
        pb::MedurisGood::Wool => Good::Wool,
        pb::MedurisGood::Copper => Good::Copper,
        pb::MedurisGood::Stone => Good::Stone,
        pb::MedurisGood::Unspecified => unreachable!("enum_field rejects 0"),
    })
}

pub(super) fn goods(g: Goods) -> pb::MedurisGoods {
    pb::MedurisGoods {
        wood: g.0[0] as u32,
        wool: g.0[1] as u32,
        copper: g.0[2] as u32,
        stone: g.0[3] as u32,
    }
}

/// No payment ever needs more than this many goods of a kind (18 exist).
pub(super) const MAX_PER_KIND: u8 = 18;

pub(super) fn decode_goods(
    field: &'static str,
    g: Option<&pb::MedurisGoods>,
) -> Result<Goods, DecodeError> {
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

pub(super) fn chip(c: Chip) -> i32 {
    (match c {
        Chip::PlusTwo => pb::MedurisChip::PlusTwo,
        Chip::FreeHut => pb::MedurisChip::FreeHut,
        Chip::DruidOffering => pb::MedurisChip::DruidOffering,
    }) as i32
}

pub(super) fn area(a: Area) -> i32 {
    a.index() as i32 + 1
}

pub(super) fn druid(p: DruidPos) -> pb::MedurisDruidPosition {
    use pb::meduris_druid_position::At;
    pb::MedurisDruidPosition {
        at: Some(match p {
            DruidPos::Temple => At::Temple(true),
            DruidPos::StoneField(n) => At::StoneField(n as u32),
            DruidPos::Field(f) => At::Field(f as u32),
        }),
    }
}

pub(super) fn decision(d: Decision) -> pb::MedurisDecision {
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

pub(super) fn decode_decision(d: &pb::MedurisDecision) -> Result<Decision, DecodeError> {
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

pub(super) fn decode_chip(field: &'static str, value: i32) -> Result<Option<Chip>, DecodeError> {
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

pub(super) fn decode_area(field: &'static str, value: i32) -> Result<Area, DecodeError> {
    if !(1..=Area::ALL.len() as i32).contains(&value) {
        return Err(DecodeError::BadEnum { field, value });
    }
    Ok(Area::ALL[value as usize - 1])
}

pub(super) fn decode_druid(
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
pub(super) fn decode_view_goods(
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
pub(super) fn offer_kind(payment: Goods) -> pb::MedurisOfferingKind {
    match payment.total() {
        0 => pb::MedurisOfferingKind::Nothing,
        1 | 3 => pb::MedurisOfferingKind::One,
        _ => pb::MedurisOfferingKind::Both,
    }
}

/// Field numbers never exceed this (the large board has 40 fields); the
/// engine refuses those beyond the board in use.
pub(super) const MAX_FIELD: u8 = 63;
