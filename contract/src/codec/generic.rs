//! The generic messages (`proto/druids/v1/generic.proto`): the wire form of
//! a game without messages of its own. Its codec builds each action,
//! decision, event and view as a [`pb::GenericValue`] with [`Fields`] and
//! reads them back with [`Read`], which checks every field for form (present,
//! of its type, in range) exactly as the typed codecs do.

use std::collections::BTreeMap;

use prost_types::value::Kind as V;
use prost_types::{ListValue, Struct, Value};

use super::DecodeError;
use crate::pb;

/// The fields of a generic value being built, in the order of their names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fields(BTreeMap<String, Value>);

impl Fields {
    /// No fields yet.
    pub fn new() -> Fields {
        Fields::default()
    }

    /// Adds `key`, a number.
    pub fn number(mut self, key: &str, n: impl Into<f64>) -> Fields {
        self.0.insert(key.to_owned(), number(n));
        self
    }

    /// Adds `key`, a number, if there is one (a secret the viewer may not see
    /// is left out).
    pub fn maybe_number(self, key: &str, n: Option<impl Into<f64>>) -> Fields {
        match n {
            Some(n) => self.number(key, n),
            None => self,
        }
    }

    /// Adds `key`, a boolean.
    pub fn boolean(mut self, key: &str, b: bool) -> Fields {
        self.0.insert(
            key.to_owned(),
            Value {
                kind: Some(V::BoolValue(b)),
            },
        );
        self
    }

    /// Adds `key`, a list.
    pub fn list(mut self, key: &str, items: impl IntoIterator<Item = Value>) -> Fields {
        let values = items.into_iter().collect();
        self.0.insert(
            key.to_owned(),
            Value {
                kind: Some(V::ListValue(ListValue { values })),
            },
        );
        self
    }

    /// The fields as one object, e.g. an entry of a list.
    pub fn object(self) -> Value {
        Value {
            kind: Some(V::StructValue(Struct { fields: self.0 })),
        }
    }

    /// The generic value `name` with these fields.
    pub fn value(self, name: &str) -> pb::GenericValue {
        pb::GenericValue {
            name: name.to_owned(),
            fields: Some(Struct { fields: self.0 }),
        }
    }
}

/// A number as a JSON value.
pub fn number(n: impl Into<f64>) -> Value {
    Value {
        kind: Some(V::NumberValue(n.into())),
    }
}

/// The fields of a generic value (or of an object inside one) being read;
/// `at` names it in errors.
#[derive(Clone, Copy, Debug)]
pub struct Read<'a> {
    at: &'static str,
    fields: Option<&'a Struct>,
}

impl<'a> Read<'a> {
    /// The fields of `value`, which must be present (`field` names it).
    pub fn of(
        field: &'static str,
        value: Option<&'a pb::GenericValue>,
    ) -> Result<(&'a str, Read<'a>), DecodeError> {
        let value = value.ok_or(DecodeError::Missing(field))?;
        Ok((
            value.name.as_str(),
            Read {
                at: field,
                fields: value.fields.as_ref(),
            },
        ))
    }

    /// The fields of an object found in a list or a field (`at` names it).
    pub fn object(at: &'static str, value: &'a Value) -> Result<Read<'a>, DecodeError> {
        match &value.kind {
            Some(V::StructValue(s)) => Ok(Read {
                at,
                fields: Some(s),
            }),
            _ => Err(not_a(at, "an object")),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.fields?.fields.get(key)
    }

    /// `key`, a whole number from 0 to `max`, if present.
    pub fn maybe_number(&self, key: &'static str, max: u32) -> Result<Option<u32>, DecodeError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Some(V::NumberValue(n)) = value.kind else {
            return Err(not_a(key, "a number"));
        };
        if n.fract() != 0.0 || n < 0.0 {
            return Err(not_a(key, "a whole number from 0"));
        }
        if n > f64::from(max) {
            return Err(DecodeError::OutOfRange {
                field: key,
                value: n.min(u64::MAX as f64) as u64,
                max: u64::from(max),
            });
        }
        Ok(Some(n as u32))
    }

    /// `key`, a whole number from 0 to `max`.
    pub fn number(&self, key: &'static str, max: u32) -> Result<u32, DecodeError> {
        self.maybe_number(key, max)?
            .ok_or(DecodeError::Missing(key))
    }

    /// `key`, a boolean.
    pub fn boolean(&self, key: &'static str) -> Result<bool, DecodeError> {
        match self.get(key).map(|v| &v.kind) {
            Some(Some(V::BoolValue(b))) => Ok(*b),
            Some(_) => Err(not_a(key, "a boolean")),
            None => Err(DecodeError::Missing(key)),
        }
    }

    /// `key`, a list.
    pub fn list(&self, key: &'static str) -> Result<&'a [Value], DecodeError> {
        match self.get(key).map(|v| &v.kind) {
            Some(Some(V::ListValue(l))) => Ok(&l.values),
            Some(_) => Err(not_a(key, "a list")),
            None => Err(DecodeError::Missing(key)),
        }
    }

    /// What errors call this value.
    pub fn at(&self) -> &'static str {
        self.at
    }
}

fn not_a(field: &'static str, expected: &'static str) -> DecodeError {
    DecodeError::WrongType { field, expected }
}

/// A generic value (`field`) whose name is none of those `expected` lists.
pub fn unknown_name(field: &'static str, expected: &'static str) -> DecodeError {
    not_a(field, expected)
}
