//! The bounds of `ArenaService` requests. A tournament's schedule is sized
//! from its format's numbers, so those are bounded here before any schedule
//! is drawn (a round-robin's product of groups and games is bounded again by
//! the schedule itself, `druids_arena::pairing::schedule`).

use druids_arena::pairing::{Seats, schedule};
use druids_contract::{Kind, pb};
use pb::create_tournament_request::Format as F;

use super::{Bounded, at_most, at_most_bytes, printable, printable_lines, within};
use crate::error::ServiceError;

/// Most bytes of a bot's name.
pub const MAX_BOT_NAME_BYTES: usize = 40;
/// Most bytes of a bot's description.
pub const MAX_DESCRIPTION_BYTES: usize = 500;
/// Most bytes of a bot's owner contact.
pub const MAX_CONTACT_BYTES: usize = 200;
/// Most opponents of a challenge in any game: one fewer than the largest
/// game's seats (a game's own bounds are checked next, from its descriptor).
pub fn max_opponents() -> usize {
    druids_contract::Kind::all()
        .map(|k| k.descriptor().max_players())
        .max()
        .unwrap_or(2)
        - 1
}
/// Most bytes of the reason a bot gives when it declines a challenge.
pub const MAX_DECLINE_REASON_BYTES: usize = 140;
/// Longest expiry of a challenge, seconds.
pub const MAX_CHALLENGE_SECS: u32 = 600;
/// Milliseconds per decision a challenge or tournament may ask for.
pub const DECISION_MS: std::ops::RangeInclusive<u32> = 100..=600_000;
/// Time bank a challenge or tournament may ask for, ms.
pub const TIME_BANK_MS: std::ops::RangeInclusive<u32> = 0..=3_600_000;
/// Most bytes of a tournament's name.
pub const MAX_TOURNAMENT_NAME_BYTES: usize = 80;
/// Most entrants of a tournament.
pub const MAX_ENTRANTS: usize = 256;
/// Most Swiss rounds.
pub const MAX_ROUNDS: u32 = 100;
/// Most matches per group of a round-robin.
pub const MAX_GAMES_PER_GROUP: u32 = 100;
/// Most matches per entrant of a gauntlet.
pub const MAX_GAUNTLET_GAMES: u32 = 100;
/// Longest open entry, seconds.
pub const MAX_ENTRY_SECS: u32 = 86_400;

/// The game `kind` names, among the games this build knows
/// (INVALID_ARGUMENT if none); whether this server hosts it is its
/// catalog's to say ([`crate::catalog::Catalog::parse`]).
pub fn game_kind(kind: i32) -> Result<Kind, ServiceError> {
    Ok(Kind::from_number(kind)?)
}

/// The seats of `kind`'s arena games: its descriptor's player counts (from
/// two: the registry hosts no game of one player).
pub fn seats(kind: Kind) -> Seats {
    let game = kind.descriptor();
    let count = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
    Seats::try_new(count(game.min_players().max(2)), count(game.max_players()))
        .expect("every registered game seats two players or more")
}

/// Checks that games of `kind` are played by `players` (INVALID_ARGUMENT,
/// naming `field`, if not).
pub fn check_players(kind: Kind, players: u32, field: &'static str) -> Result<(), ServiceError> {
    let seats = seats(kind);
    if seats.contains(players as usize) {
        return Ok(());
    }
    Err(ServiceError::invalid(
        field,
        format!("{field} {players}: {kind} arena games have {seats} players"),
    ))
}

/// An arena id (a bot's public id, a challenge's, a tournament's) in field
/// `field`: 16 hex digits, else INVALID_ARGUMENT (a well-formed id of
/// nothing is the call's NOT_FOUND).
pub fn check_id(field: &'static str, id: &str) -> Result<(), ServiceError> {
    if id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(());
    }
    Err(ServiceError::invalid(
        field,
        format!("{field} {} is not 16 hex digits", crate::error::clip(id)),
    ))
}

fn check_clock(c: Option<&pb::TimeControl>) -> Result<(), ServiceError> {
    let Some(c) = c else { return Ok(()) };
    if !DECISION_MS.contains(&c.decision_ms) || !TIME_BANK_MS.contains(&c.time_bank_ms) {
        return Err(ServiceError::invalid(
            "time_control",
            format!(
                "decision_ms {} and time_bank_ms {}: a turn clock has {} to {} ms per decision and a bank of {} to {} ms",
                c.decision_ms,
                c.time_bank_ms,
                DECISION_MS.start(),
                DECISION_MS.end(),
                TIME_BANK_MS.start(),
                TIME_BANK_MS.end()
            ),
        ));
    }
    Ok(())
}

impl Bounded for pb::RegisterBotRequest {
    /// The name's form (printable, no look-alike of another) is the bots'
    /// registry's to judge ([`crate::arena::bots`]); the description, shown
    /// on the bot's page, may have several lines.
    fn check(&self) -> Result<(), ServiceError> {
        at_most_bytes("name", &self.name, MAX_BOT_NAME_BYTES)?;
        at_most_bytes("description", &self.description, MAX_DESCRIPTION_BYTES)?;
        printable_lines("description", &self.description)?;
        at_most_bytes("owner_contact", &self.owner_contact, MAX_CONTACT_BYTES)?;
        printable("owner_contact", &self.owner_contact)
    }
}

impl Bounded for pb::RotateBotKeyRequest {
    /// No number; an id is a string (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::RevokeBotRequest {
    /// No number; an id is a string (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::GetBotRequest {
    /// No number; an id is a string (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::SeekRequest {
    fn check(&self) -> Result<(), ServiceError> {
        let kind = game_kind(self.kind)?;
        let seats = seats(kind);
        let (lo, hi) = (u32::from(seats.min()), u32::from(seats.max()));
        let min = if self.min_players == 0 {
            lo
        } else {
            self.min_players
        };
        within("min_players", min, lo..=hi)?;
        if self.max_players != 0 {
            within("max_players", self.max_players, min..=hi)?;
        }
        Ok(())
    }
}

impl Bounded for pb::StreamBotEventsRequest {
    /// `from_seq` past the log's end waits for the log to grow.
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::GetLeaderboardRequest {
    /// `page_size` above its maximum is read as the maximum.
    fn check(&self) -> Result<(), ServiceError> {
        check_players(game_kind(self.kind)?, self.players, "players")
    }
}

impl Bounded for pb::ChallengeRequest {
    fn check(&self) -> Result<(), ServiceError> {
        let kind = game_kind(self.kind)?;
        let most = max_opponents();
        if self.opponents.is_empty() {
            return Err(ServiceError::invalid(
                "opponents",
                format!("no opponents: a challenge names 1 to {most}"),
            ));
        }
        at_most("opponents", &self.opponents, most)?;
        for id in &self.opponents {
            check_id("opponents", id)?;
        }
        let seated = self.opponents.len() as u32 + 1;
        check_players(kind, seated, "opponents").map_err(|_| {
            let seats = seats(kind);
            ServiceError::invalid(
                "opponents",
                format!(
                    "{} opponents: a {kind} game seats the challenger and {} to {}",
                    self.opponents.len(),
                    seats.min() - 1,
                    seats.max() - 1
                ),
            )
        })?;
        within(
            "expires_in_secs",
            self.expires_in_secs,
            0..=MAX_CHALLENGE_SECS,
        )?;
        check_clock(self.time_control.as_ref())
    }
}

impl Bounded for pb::AnswerChallengeRequest {
    /// The id is 16 hex digits (an unknown one is NOT_FOUND); a reason is
    /// short text, and only a decline's.
    fn check(&self) -> Result<(), ServiceError> {
        check_id("challenge_id", &self.challenge_id)?;
        at_most_bytes("reason", &self.reason, MAX_DECLINE_REASON_BYTES)?;
        printable("reason", &self.reason)?;
        if self.accept && !self.reason.is_empty() {
            return Err(ServiceError::invalid(
                "reason",
                "reason is a decline's: an acceptance gives none",
            ));
        }
        Ok(())
    }
}

impl Bounded for pb::ListPoolsRequest {
    /// No number; an unknown or unhosted kind is the catalog's to refuse.
    fn check(&self) -> Result<(), ServiceError> {
        Ok(())
    }
}

impl Bounded for pb::CancelChallengeRequest {
    /// No number; the id is 16 hex digits (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        check_id("challenge_id", &self.challenge_id)
    }
}

impl Bounded for pb::CreateTournamentRequest {
    fn check(&self) -> Result<(), ServiceError> {
        if self.name.trim().is_empty() {
            return Err(ServiceError::invalid("name", "name is required"));
        }
        at_most_bytes("name", &self.name, MAX_TOURNAMENT_NAME_BYTES)?;
        printable("name", &self.name)?;
        check_players(game_kind(self.kind)?, self.players, "players")?;
        at_most("entrants", &self.entrants, MAX_ENTRANTS)?;
        for id in &self.entrants {
            check_id("entrants", id)?;
        }
        match &self.format {
            None => return Err(ServiceError::invalid("format", "a format is required")),
            Some(F::RoundRobin(r)) => within(
                "format.round_robin.games_per_group",
                r.games_per_group,
                0..=MAX_GAMES_PER_GROUP,
            )?,
            Some(F::Swiss(s)) => within("format.swiss.rounds", s.rounds, 1..=MAX_ROUNDS)?,
            Some(F::Gauntlet(g)) => {
                within("format.gauntlet.games", g.games, 0..=MAX_GAUNTLET_GAMES)?;
                check_id("format.gauntlet.opponent", &g.opponent)?;
            }
        }
        check_clock(self.time_control.as_ref())?;
        if self.open_entry.is_none() {
            round_robin_fits(self, self.entrants.len())?;
        }
        if let Some(open) = &self.open_entry {
            within(
                "open_entry.closes_in_secs",
                open.closes_in_secs,
                1..=MAX_ENTRY_SECS,
            )?;
            within(
                "open_entry.max_entrants",
                open.max_entrants as usize,
                0..=MAX_ENTRANTS,
            )?;
            // A full entry must be able to fill a match (a gauntlet's fixed
            // opponent takes a seat of each).
            let seated_by_entrants = match &self.format {
                Some(F::Gauntlet(_)) => self.players.saturating_sub(1),
                _ => self.players,
            };
            // (No limit on entrants: checked when the entry closes.)
            if open.max_entrants != 0 {
                round_robin_fits(self, open.max_entrants as usize)?;
            }
            if open.max_entrants != 0 && open.max_entrants < seated_by_entrants {
                return Err(ServiceError::invalid(
                    "open_entry.max_entrants",
                    format!(
                        "open_entry.max_entrants {} cannot fill a match of {} players: the tournament could never be played",
                        open.max_entrants, self.players
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Refuses a round robin that would be more than the schedule takes
/// ([`schedule::MAX_ROUND_ROBIN_GAMES`]) with `entrants`, at creation
/// rather than once its entry has closed.
fn round_robin_fits(
    req: &pb::CreateTournamentRequest,
    entrants: usize,
) -> Result<(), ServiceError> {
    let Some(F::RoundRobin(r)) = &req.format else {
        return Ok(());
    };
    let per_group = r.games_per_group.max(1);
    let games = schedule::round_robin_games(entrants, req.players as u8, per_group);
    if games > schedule::MAX_ROUND_ROBIN_GAMES as u128 {
        return Err(ServiceError::invalid(
            "format.round_robin.games_per_group",
            format!(
                "a round robin of {entrants} entrants in groups of {} playing {per_group} games each is {games} games, more than the {} a tournament may have: take fewer entrants (open_entry.max_entrants) or games per group",
                req.players,
                schedule::MAX_ROUND_ROBIN_GAMES
            ),
        ));
    }
    Ok(())
}

impl Bounded for pb::GetTournamentRequest {
    /// No number; the id is 16 hex digits (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        check_id("tournament_id", &self.tournament_id)
    }
}

impl Bounded for pb::JoinTournamentRequest {
    /// No number; the id is 16 hex digits (an unknown one is NOT_FOUND).
    fn check(&self) -> Result<(), ServiceError> {
        check_id("tournament_id", &self.tournament_id)
    }
}

impl Bounded for pb::StreamTournamentEventsRequest {
    /// The id is 16 hex digits; `from_seq` past the log's end waits for the
    /// log to grow.
    fn check(&self) -> Result<(), ServiceError> {
        check_id("tournament_id", &self.tournament_id)
    }
}

impl Bounded for pb::GetRatingHistoryRequest {
    /// `page_size` above its maximum is read as the maximum.
    fn check(&self) -> Result<(), ServiceError> {
        check_players(game_kind(self.kind)?, self.players, "players")
    }
}

impl Bounded for pb::ListTournamentsRequest {
    /// `page_size` above its maximum is read as the maximum.
    fn check(&self) -> Result<(), ServiceError> {
        pb::TournamentStatus::try_from(self.status).map_err(|_| {
            ServiceError::invalid(
                "status",
                format!("status {} is no TournamentStatus", self.status),
            )
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_s_format_is_bounded_before_its_schedule_is_drawn() {
        let mut req = pb::CreateTournamentRequest {
            name: "cup".into(),
            kind: pb::GameKind::Dolmen as i32,
            players: 2,
            format: Some(F::Gauntlet(pb::Gauntlet {
                opponent: "0123456789abcdef".into(),
                games: u32::MAX,
            })),
            ..Default::default()
        };
        let e = req.check().unwrap_err();
        assert!(e.to_string().contains("format.gauntlet.games"), "{e}");
        req.format = Some(F::RoundRobin(pb::RoundRobin {
            games_per_group: 100,
        }));
        req.check().unwrap();
        req.players = u32::MAX;
        assert!(req.check().is_err());
    }

    #[test]
    fn a_challenge_expiry_beyond_ten_minutes_is_refused() {
        let mut req = pb::ChallengeRequest {
            kind: pb::GameKind::Dolmen as i32,
            opponents: vec!["0123456789abcdef".into()],
            expires_in_secs: 600,
            ..Default::default()
        };
        req.check().unwrap();
        req.expires_in_secs = 601;
        assert!(req.check().is_err());
    }
}
