//! The registered bots, found by id, by name and by the hash of their key.
//! Keys are random, shown once, kept only as SHA-256 hashes and compared in
//! constant time ([`TokenHash::matches`]).

use std::collections::HashMap;

use druids_contract::pb;

use crate::auth::TokenHash;
use crate::error::{ServiceError, clip};
use crate::store::BotRecord;

/// What a house bot's registration says it is, where no one can see it: a
/// bot whose name is taken by someone else is not made a house bot.
pub const HOUSE_CONTACT: &str = "druids-server (house bot)";

/// A bot's internal number: its public id is these 64 bits in hex.
pub type BotNo = u64;

/// The public id of bot `no`.
pub fn public_id(no: BotNo) -> String {
    format!("{no:016x}")
}

/// The bot number of a public id, if it is one.
pub fn parse_id(id: &str) -> Option<BotNo> {
    (id.len() == 16)
        .then(|| u64::from_str_radix(id, 16).ok())
        .flatten()
}

/// A fresh API key (a prefix saying what it is, then 64 hex digits).
pub fn new_key() -> (String, TokenHash) {
    let (token, _) = crate::auth::new_token();
    let key = format!("druids_bot_{token}");
    let hash = TokenHash::of(&key);
    (key, hash)
}

/// The prefix of the house bots' names ([`crate::house_levels`]), which no
/// registered bot may take.
const HOUSE_PREFIX: &str = "house-";

/// Checks the form of RegisterBot's name (its length is bounded already,
/// [`crate::bounds::arena`]): printable, no format characters (zero-width
/// characters, bidirectional overrides), nothing that shows nothing (fillers,
/// blanks, variation selectors), no spaces around it, not a house bot's.
pub fn check_registration(req: &pb::RegisterBotRequest) -> Result<(), ServiceError> {
    let name = req.name.as_str();
    if name.trim().is_empty() || name.trim() != name {
        return Err(ServiceError::invalid(
            "name",
            "name is required, without leading or trailing spaces",
        ));
    }
    crate::bounds::printable("name", name)?;
    if name.chars().any(invisible) {
        return Err(ServiceError::invalid(
            "name",
            "name holds characters that show nothing (fillers, blanks, variation selectors)",
        ));
    }
    if name_key(name).starts_with(&name_key(HOUSE_PREFIX)) {
        return Err(ServiceError::invalid(
            "name",
            format!("names starting with {HOUSE_PREFIX:?} are kept for the server's house bots"),
        ));
    }
    // The house bots' mark (`BotRef.house`): no registered bot may pass for
    // one of the server's own.
    if req.owner_contact.trim() == HOUSE_CONTACT {
        return Err(ServiceError::invalid(
            "owner_contact",
            "this owner_contact marks the server's own house bots: give your own",
        ));
    }
    Ok(())
}

/// Whether `c` shows nothing, not even a space: a default-ignorable code
/// point (Hangul fillers, variation selectors, ...; UTS #39 skeletons drop
/// them) or the Braille blank.
fn invisible(c: char) -> bool {
    let mut one = [0; 4];
    c == '\u{2800}'
        || unicode_security::skeleton(c.encode_utf8(&mut one))
            .next()
            .is_none()
}

/// What two bots' names may not share, so that no bot can pass for another
/// with a look-alike name: the name in Unicode compatibility form (NFKC:
/// full-width letters, ligatures and the like become plain ones),
/// case-folded, without format characters or accents, then its UTS #39
/// skeleton (letters of other scripts that look the same, such as a Cyrillic
/// `а`, become one). Latin small capitals (`ʜᴏᴜsᴇ`), which neither NFKC nor
/// the skeleton maps, count as their letters.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    let name: String = name
        .chars()
        .map(|c| small_capital(c).unwrap_or(c))
        .collect();
    let name = name.as_str();
    let plain = |s: &str| -> String {
        s.nfkd()
            .filter(|c| {
                !matches!(
                    c.general_category(),
                    G::Format | G::NonspacingMark | G::EnclosingMark
                )
            })
            .nfkc()
            .collect()
    };
    // Case, letter by letter, through the capital: a capital with a Latin
    // look-alike (Greek `Β`, Cyrillic `В`, Latin `I`) stands for that Latin
    // letter, and so does its lower case (`β`, `в`, `i`), though that looks
    // like no Latin letter; any other letter is its capital's lower case. Then the
    // skeleton of the whole (look-alike sequences such as `rn`).
    let skeleton = |s: &str| -> String { unicode_security::skeleton(s).collect() };
    let folded: String = plain(name)
        .chars()
        .map(|c| {
            // The capital, or the lower case's (`ẞ` is `ß`, whose capital
            // is `SS`).
            let capital = c.to_uppercase().to_string();
            let capitals = [capital.clone(), c.to_lowercase().to_string().to_uppercase()];
            match capitals.iter().map(|k| skeleton(k)).find(|k| k.is_ascii()) {
                Some(latin) => latin.to_lowercase(),
                // The capital's lower case: a final `ς` is a `σ`.
                None => skeleton(&capital.to_lowercase()).to_lowercase(),
            }
        })
        .collect();
    skeleton(&plain(&folded)).to_lowercase()
}

/// The Latin letter a small capital stands for (IPA and phonetic
/// extensions: U+0262 to U+0299, U+1D00 to U+1D22, U+A730 to U+A7AF).
fn small_capital(c: char) -> Option<char> {
    Some(match c {
        '\u{1d00}' => 'a',
        '\u{299}' => 'b',
        '\u{1d04}' => 'c',
        '\u{1d05}' => 'd',
        '\u{1d07}' => 'e',
        '\u{a730}' => 'f',
        '\u{262}' => 'g',
        '\u{29c}' => 'h',
        '\u{26a}' => 'i',
        '\u{1d0a}' => 'j',
        '\u{1d0b}' => 'k',
        '\u{29f}' => 'l',
        '\u{1d0d}' => 'm',
        '\u{274}' => 'n',
        '\u{1d0f}' => 'o',
        '\u{1d18}' => 'p',
        '\u{a7af}' => 'q',
        '\u{280}' => 'r',
        '\u{a731}' => 's',
        '\u{1d1b}' => 't',
        '\u{1d1c}' => 'u',
        '\u{1d20}' => 'v',
        '\u{1d21}' => 'w',
        '\u{28f}' => 'y',
        '\u{1d22}' => 'z',
        _ => return None,
    })
}

/// The bots, by number, with an index of key hashes.
#[derive(Default)]
pub struct Bots {
    by_no: HashMap<BotNo, BotRecord>,
    by_key: HashMap<TokenHash, BotNo>,
    /// By [`name_key`].
    names: HashMap<String, BotNo>,
}

impl Bots {
    /// Adds a stored or freshly registered bot.
    pub fn insert(&mut self, bot: BotRecord) {
        let Some(no) = parse_id(&bot.id) else {
            tracing::warn!(bot_id = %bot.id, "a stored bot id is not 16 hex digits; skipped");
            return;
        };
        if bot.revoked_unix_ms.is_none() {
            self.by_key.insert(bot.key_hash, no);
        }
        // The first of two stored look-alikes keeps the name.
        self.names.entry(name_key(&bot.name)).or_insert(no);
        self.by_no.insert(no, bot);
    }

    /// The bot with this name, or one that looks the same ([`name_key`]).
    pub fn by_name(&self, name: &str) -> Option<BotNo> {
        self.names.get(&name_key(name)).copied()
    }

    /// Whether a bot has this name, or one that looks the same
    /// ([`name_key`]).
    pub fn name_taken(&self, name: &str) -> bool {
        self.names.contains_key(&name_key(name))
    }

    /// The bot whose key hashes to `hash`.
    pub fn by_key(&self, hash: &TokenHash) -> Option<BotNo> {
        let no = *self.by_key.get(hash)?;
        // The map found it by hash; compare in constant time anyway, so that
        // no timing says how close a guess came.
        self.by_no
            .get(&no)
            .filter(|b| b.key_hash.matches(hash))
            .map(|_| no)
    }

    /// Bot `no`.
    pub fn get(&self, no: BotNo) -> Option<&BotRecord> {
        self.by_no.get(&no)
    }

    /// Replaces bot `no`'s key hash (a revoked bot's key works again).
    pub fn set_key(&mut self, no: BotNo, hash: TokenHash) {
        if let Some(bot) = self.by_no.get_mut(&no) {
            self.by_key.remove(&bot.key_hash);
            bot.key_hash = hash;
            bot.revoked_unix_ms = None;
            self.by_key.insert(hash, no);
        }
    }

    /// Revokes bot `no`'s key at `at_ms` (its first revocation's time is
    /// kept); that time.
    pub fn revoke(&mut self, no: BotNo, at_ms: u64) -> Option<u64> {
        let bot = self.by_no.get_mut(&no)?;
        self.by_key.remove(&bot.key_hash);
        Some(*bot.revoked_unix_ms.get_or_insert(at_ms))
    }

    /// The bot public id `id` names, if it may play: NOT_FOUND for no bot,
    /// INVALID_ARGUMENT (on `field`) for a revoked one.
    pub fn playable(&self, id: &str, field: &'static str) -> Result<BotNo, ServiceError> {
        let no = parse_id(id)
            .filter(|no| self.by_no.contains_key(no))
            .ok_or_else(|| ServiceError::BotNotFound(clip(id)))?;
        if self.is_revoked(no) {
            return Err(ServiceError::invalid(
                field,
                format!("bot {} is revoked: it cannot play", clip(id)),
            ));
        }
        Ok(no)
    }

    /// Whether bot `no` is revoked.
    pub fn is_revoked(&self, no: BotNo) -> bool {
        self.by_no
            .get(&no)
            .is_some_and(|b| b.revoked_unix_ms.is_some())
    }

    /// Bot `no` as leaderboards name it.
    pub fn reference(&self, no: BotNo) -> pb::BotRef {
        pb::BotRef {
            bot_id: public_id(no),
            name: self
                .by_no
                .get(&no)
                .map(|b| b.name.clone())
                .unwrap_or_default(),
            house: self
                .by_no
                .get(&no)
                .is_some_and(|b| b.owner_contact == HOUSE_CONTACT),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_names_share_a_key() {
        let key = name_key("Alpha");
        for look_alike in [
            "alpha",
            "ALPHA",
            "\u{ff21}lpha",
            "Al\u{200b}pha",
            "Alpha\u{301}",
            "\u{c1}lpha",
            "\u{410}lpha",
        ] {
            assert_eq!(name_key(look_alike), key, "{look_alike:?}");
        }
        // Capitals of other scripts whose lower case looks like no Latin
        // letter (Greek Β Ν Μ Η Κ, Cyrillic В М Н Т К).
        for (latin, other) in [
            ("Bob", "\u{392}ob"),
            ("Bob", "\u{412}ob"),
            ("Nick", "\u{39d}ick"),
            ("Mike", "\u{39c}ike"),
            ("Mike", "\u{41c}ike"),
            ("Hank", "\u{397}ank"),
            ("Hank", "\u{41d}ank"),
            ("Tom", "\u{422}om"),
            ("Kim", "\u{41a}im"),
            ("Kim", "\u{39a}im"),
        ] {
            assert_eq!(name_key(other), name_key(latin), "{other:?}");
        }
        assert_eq!(
            name_key("\u{1d00}\u{29f}\u{1d18}\u{29c}\u{1d00}"),
            key,
            "small capitals"
        );
        assert_ne!(name_key("Alpha2"), key);
        // Case never tells names apart, whatever the skeleton makes of a
        // capital (`I` looks like `l`).
        for (upper, lower) in ('A'..='Z').zip('a'..='z') {
            let (up, low) = (format!("{upper}van{upper}"), format!("{lower}van{lower}"));
            assert_eq!(name_key(&up), name_key(&low), "{up:?} {low:?}");
        }
        for (a, b) in [
            ("Ivan", "ivan"),
            ("IVAN", "lvan"),
            ("Lily", "LILY"),
            ("victim", "VICTIM"),
            // Other scripts: a capital with a Latin look-alike and its lower
            // case, and full case folding.
            (
                "\u{432}\u{435}\u{43a}\u{442}\u{43e}\u{440}",
                "\u{412}\u{415}\u{41a}\u{422}\u{41e}\u{420}",
            ),
            (
                "\u{3c3}\u{3bf}\u{3c6}\u{3af}\u{3b1}",
                "\u{3a3}\u{3bf}\u{3c6}\u{3af}\u{3b1}",
            ),
            ("\u{f0}an", "\u{d0}an"),
            ("stra\u{df}e", "STRASSE"),
        ] {
            assert_eq!(name_key(a), name_key(b), "{a:?} {b:?}");
        }
        // Every letter of the scripts names are written in: its capital and
        // its lower case share a key.
        use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
        // (A letter whose case takes two letters, `ᾀ` to `ἈΙ`, is left out.)
        let letter = |c: &char| {
            c.is_alphabetic()
                && !matches!(c.general_category(), G::NonspacingMark | G::SpacingMark)
                && c.to_uppercase().count() == 1
                && c.to_lowercase().count() == 1
        };
        for c in ('\u{20}'..='\u{24ff}').filter(letter) {
            let (up, low) = (c.to_uppercase().to_string(), c.to_lowercase().to_string());
            assert_eq!(name_key(&up), name_key(&low), "{c:?}: {up:?} {low:?}");
        }
        let refused = |name: &str| {
            check_registration(&pb::RegisterBotRequest {
                name: name.into(),
                ..Default::default()
            })
            .is_err()
        };
        assert!(refused("evil\u{202e}gnirts"));
        assert!(refused("zero\u{200b}width"));
        for blank in ['\u{3164}', '\u{2800}', '\u{fe0f}', '\u{115f}', '\u{34f}'] {
            assert!(refused(&format!("Zed{blank}")), "{blank:?}");
        }
        assert!(refused("house-mcts-9999"));
        assert!(refused("HOUSE-random"));
        for fake in [
            "\u{397}ouse-random",
            "\u{41d}OUSE-GREEDY",
            "\u{397}ouse-mcts-400",
            "\u{29c}\u{1d0f}\u{1d1c}s\u{1d07}-random",
            "\u{29c}\u{1d0f}\u{1d1c}\u{a731}\u{1d07}-z",
        ] {
            assert!(refused(fake), "{fake:?}");
        }
        assert!(!refused("Dolmen bot 2"));
        assert!(!refused("household"));
    }
}
