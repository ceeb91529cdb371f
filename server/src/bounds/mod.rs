//! The one place where a request's numbers and sizes are bounded, before
//! anything is allocated or changed for it.
//!
//! Every request message of the contract (gRPC and the HTTP/JSON face alike,
//! which decodes into the same messages) implements [`Bounded`]: each numeric
//! field is checked against its documented bound, each count (seats, names,
//! entrants, rounds, games) and each string length too. A handler turns the
//! decoded message into a [`Checked`] first, and the code that allocates per
//! seat, per game or per round takes a `Checked` request, so an unchecked one
//! cannot reach it (parse, don't validate). The limits themselves are the
//! constants of this module and its two halves ([`game`] for
//! `DruidsService`, [`arena`] for `ArenaService`); the protos and the README
//! state each of them.

pub mod arena;
pub mod game;

use std::ops::{Deref, RangeInclusive};

use crate::error::{ServiceError, clip};

/// A request whose numbers and sizes can be checked against their bounds
/// without allocating for them.
pub trait Bounded {
    /// INVALID_ARGUMENT, naming the field, for the first number or size out
    /// of its bound.
    fn check(&self) -> Result<(), ServiceError>;
}

/// A request within its bounds: only [`Checked::new`] makes one.
#[derive(Clone, Debug)]
pub struct Checked<T>(T);

impl<T: Bounded> Checked<T> {
    /// `request`, if it is within its bounds.
    pub fn new(request: T) -> Result<Checked<T>, ServiceError> {
        request.check()?;
        Ok(Checked(request))
    }
}

impl<T> Checked<T> {
    /// The request itself.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Checked<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// `request` of a call, checked: the message becomes a [`Checked`] one.
pub fn checked<T: Bounded>(
    request: tonic::Request<T>,
) -> Result<tonic::Request<Checked<T>>, ServiceError> {
    request.get_ref().check()?;
    Ok(request.map(Checked))
}

/// `field`'s `value` within `range`, else INVALID_ARGUMENT saying both.
pub(crate) fn within<N>(
    field: &'static str,
    value: N,
    range: RangeInclusive<N>,
) -> Result<(), ServiceError>
where
    N: PartialOrd + std::fmt::Display + Copy,
{
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ServiceError::invalid(
            field,
            format!(
                "{field} {value} is out of range: {} to {} allowed",
                range.start(),
                range.end()
            ),
        ))
    }
}

/// `field` at most `max` bytes long, else INVALID_ARGUMENT.
pub(crate) fn at_most_bytes(field: &'static str, s: &str, max: usize) -> Result<(), ServiceError> {
    if s.len() > max {
        return Err(ServiceError::invalid(
            field,
            format!(
                "{field} {} is {} bytes; at most {max} allowed",
                clip(s),
                s.len()
            ),
        ));
    }
    Ok(())
}

/// `field` printable text, else INVALID_ARGUMENT: no control characters and
/// no format characters (zero-width ones, bidirectional overrides), which
/// would let a name shown to others hide or reorder what it says.
pub(crate) fn printable(field: &'static str, s: &str) -> Result<(), ServiceError> {
    unprintable(
        field,
        s,
        |_| false,
        "control or format characters (zero-width, bidirectional overrides)",
    )
}

/// Like [`printable`], for a text of several lines: line breaks (`\n`) and
/// tabs are allowed.
pub(crate) fn printable_lines(field: &'static str, s: &str) -> Result<(), ServiceError> {
    unprintable(
        field,
        s,
        |c| matches!(c, '\n' | '\t'),
        "control characters other than line breaks (\\n) and tabs, or format characters (zero-width, bidirectional overrides)",
    )
}

/// Refuses `s` if it holds a control or format character that `allowed`
/// does not allow, saying it holds `what`.
fn unprintable(
    field: &'static str,
    s: &str,
    allowed: impl Fn(char) -> bool,
    what: &str,
) -> Result<(), ServiceError> {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    if s.chars()
        .any(|c| (c.is_control() || c.general_category() == GeneralCategory::Format) && !allowed(c))
    {
        return Err(ServiceError::invalid(
            field,
            format!("{field} {} holds {what}", clip(s)),
        ));
    }
    Ok(())
}

/// A list `field` of at most `max` entries, else INVALID_ARGUMENT.
pub(crate) fn at_most<T>(field: &'static str, list: &[T], max: usize) -> Result<(), ServiceError> {
    if list.len() > max {
        return Err(ServiceError::invalid(
            field,
            format!("{field} has {} entries; at most {max} allowed", list.len()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_out_of_its_range_names_the_field_and_the_range() {
        within("players", 3u32, 2..=4).unwrap();
        let e = within("players", u32::MAX, 2..=4).unwrap_err();
        assert!(
            e.field() == Some("players") && e.to_string().contains("2 to 4"),
            "{e}"
        );
        assert!(at_most_bytes("name", &"x".repeat(65), 64).is_err());
        assert!(at_most("seat_names", &[1, 2, 3], 2).is_err());
    }

    #[test]
    fn text_of_several_lines_allows_line_breaks_and_tabs_only() {
        printable_lines("description", "plays greedily\n\tthen safely").unwrap();
        for bad in ["a\rb", "a\u{1b}[2Jb", "a\u{202e}b", "a\u{200b}b"] {
            assert!(printable_lines("description", bad).is_err(), "{bad:?}");
        }
        assert!(printable("name", "a\nb").is_err());
    }
}
