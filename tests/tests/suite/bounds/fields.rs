//! Walking the contract's descriptors: every numeric field of a request
//! (nested messages, lists and oneof members included), and setting one to
//! its largest value.

use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MessageDescriptor, Value};

/// A field path in a request: the fields from the request down.
pub(super) type Path = Vec<FieldDescriptor>;

pub(super) fn dotted(path: &Path) -> String {
    path.iter()
        .map(|f| f.name().to_owned())
        .collect::<Vec<_>>()
        .join(".")
}

/// Every numeric (or enum) field reachable from `desc`, depth first.
pub(super) fn numeric_paths(desc: &MessageDescriptor, prefix: &Path, out: &mut Vec<Path>) {
    if prefix.len() > 8 {
        return;
    }
    for field in desc.fields() {
        let mut path = prefix.clone();
        path.push(field.clone());
        match field.kind() {
            // A generic game's action or view as JSON (google.protobuf.Struct):
            // its numbers are the game's own, bounded by its codec when an
            // action is decoded (tests/tests/suite/cairn.rs), not the contract's.
            Kind::Message(m) if m.full_name().starts_with("google.protobuf.") => {}
            Kind::Message(m) => numeric_paths(&m, &path, out),
            Kind::String | Kind::Bytes | Kind::Bool => {}
            _ => out.push(path),
        }
    }
}

/// The largest value of a numeric field.
fn max_of(field: &FieldDescriptor) -> Value {
    match field.kind() {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(i32::MAX),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(i64::MAX),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(u32::MAX),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(u64::MAX),
        Kind::Float => Value::F32(f32::MAX),
        Kind::Double => Value::F64(f64::MAX),
        Kind::Enum(_) => Value::EnumNumber(i32::MAX),
        k => panic!("not a numeric kind: {k:?}"),
    }
}

/// Sets the field at `path` of `msg` to its maximum (the first element of a
/// list, created if the list is empty).
pub(super) fn set_max(msg: &mut DynamicMessage, path: &[FieldDescriptor]) {
    let field = &path[0];
    if path.len() == 1 {
        let v = max_of(field);
        let v = if field.is_list() {
            Value::List(vec![v])
        } else {
            v
        };
        msg.set_field(field, v);
        return;
    }
    let value = msg.get_field_mut(field);
    let nested = match value {
        Value::List(items) => {
            if items.is_empty() {
                let Kind::Message(m) = field.kind() else {
                    unreachable!("a path goes through messages")
                };
                items.push(Value::Message(DynamicMessage::new(m)));
            }
            &mut items[0]
        }
        v => v,
    };
    let Value::Message(m) = nested else {
        unreachable!(
            "a path goes through messages: {} is {nested:?}",
            field.full_name()
        )
    };
    set_max(m, &path[1..]);
}
