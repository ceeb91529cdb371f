//! The contract's enum names in words, for every board.

/// A proto enum value's name in words: `MEDURIS_COLOUR_LIGHT_GREEN` → "light
/// green". The prefix is taken from the enum's `…_UNSPECIFIED` name, so that
/// renaming an enum (and its value prefix) needs no edit here.
pub fn enum_words(name: &str, unspecified: &str) -> String {
    let prefix = unspecified.trim_end_matches("UNSPECIFIED");
    name.trim_start_matches(prefix)
        .to_lowercase()
        .replace('_', " ")
}
