//! A match's life: recorded and started (from the pool, a challenge or a
//! tournament), its games played (a duplicate match's all at once, behind
//! the dice gate of [`gate`]) and their ends told. Its own end (the result,
//! the ratings, its bots told) is [`super::match_end`]'s.

use std::collections::HashMap;
use std::sync::Arc;

use druids_arena::pairing::BotId;
use druids_arena::pairing::duplicate::Outcome;
use druids_contract::{Kind, pb};
use druids_engine::Viewer;

use super::bots::{BotNo, public_id};
use super::gate;
use super::{Arena, Running, SeekSender, State};
use crate::error::ServiceError;
use crate::room::Room;
use crate::store::{MatchRecord, StoreError};

/// A match about to be recorded and started.
pub(super) struct NewMatch {
    /// Its id: a challenge's own (so a restart knows the challenge became
    /// it); none: a fresh one.
    pub id: Option<String>,
    pub kind: Kind,
    pub rated: bool,
    /// In the seat order of its first game.
    pub bots: Vec<BotNo>,
    /// The bots' Seek streams, by bot.
    pub streams: Vec<Option<SeekSender>>,
    /// The tournament and round it belongs to.
    pub tournament: Option<(String, u32)>,
    /// Its games' turn clock.
    pub clock: pb::TimeControl,
}

/// The rooms of the running matches' games, read by [`Arena::game_rooms`]
/// without the arena's lock.
#[derive(Default)]
pub(super) struct GameRooms(HashMap<String, Result<Arc<Room>, ServiceError>>);

impl Arena {
    /// Reads the rooms of every running match's games for the round's
    /// [`Arena::progress`], holding the arena's lock only to list them: a
    /// game not in memory (ended and evicted, or in play on another node of
    /// a cluster) is read from the store, which must not happen under the
    /// lock every other arena call waits on.
    pub(super) fn game_rooms(&self, now: u64) -> GameRooms {
        let ids: Vec<String> = {
            let st = self.state();
            st.matches
                .values()
                .flat_map(|run| run.game_ids.iter().cloned())
                .collect()
        };
        GameRooms(
            ids.into_iter()
                .map(|id| {
                    let room = self.rooms.load(&id, now);
                    (id, room)
                })
                .collect(),
        )
    }

    /// A new match's record (its id, seed, games and whether it is rated),
    /// not recorded yet; reads the ratings, writes nothing.
    pub(super) fn new_running(&self, st: &mut State, new: NewMatch, now: u64) -> Running {
        let NewMatch {
            id,
            kind,
            rated,
            bots,
            streams,
            tournament,
            clock,
        } = new;
        // A challenge (the only match with an id of its own: the bots chose
        // their opponents) between bots that started their rated matches of
        // the day together already is played unrated (docs/ratings.md,
        // "Cheap identities"); matchmaking and the operator's tournaments
        // choose pairings themselves.
        let chosen_by_bots = id.is_some();
        let rated = rated && (!chosen_by_bots || self.challenge_may_be_rated(st, kind, &bots, now));
        let games = match_games(kind, bots.len() as u32, rated || tournament.is_some());
        let mut options = self.options(&clock);
        // A duplicate match's games share their dice through the gate.
        options.match_dice_gate = games > 1;
        let record = MatchRecord {
            id: id.unwrap_or_else(|| format!("{:016x}", rand::random::<u64>())),
            kind,
            rated,
            seed: rand::random(),
            options,
            bots: bots.iter().map(|&b| public_id(b)).collect(),
            games,
            created_unix_ms: now,
            tournament,
        };
        Running {
            outcomes: vec![None; games as usize],
            told_before: HashMap::new(),
            untold_ends: Vec::new(),
            record,
            bots,
            game_ids: Vec::new(),
            streams,
        }
    }

    /// Records match `run`, tells its bots it started and creates its games,
    /// telling each game's bots as soon as it exists (a game that cannot be
    /// created is tried again by the next round's [`Arena::progress`]). Needs
    /// no lock: the match is not in the arena's state yet.
    pub(super) fn open_match(&self, run: &mut Running, now: u64) -> Result<(), StoreError> {
        self.store.create_match(&run.record)?;
        let started = self.match_started(run);
        self.announce(
            run,
            now,
            pb::seek_event::Event::MatchStarted(started.clone()),
            pb::bot_event::Event::MatchStarted(started),
        );
        // A duplicate match's rotations are all played at once, so that each
        // die of the shared sequence can be rolled in every game together.
        while run.game_ids.len() < run.record.games as usize && self.start_game(run, now) {}
        Ok(())
    }

    /// What match `run`'s bots are told when it starts.
    pub(super) fn match_started(&self, run: &Running) -> pb::MatchStarted {
        pb::MatchStarted {
            match_id: run.record.id.clone(),
            kind: run.record.kind.number(),
            players: run.bots.len() as u32,
            rated: run.record.rated,
            games: run.record.games,
            bots: run.bots.iter().map(|&b| self.bots().reference(b)).collect(),
        }
    }

    /// Puts recorded match `run` (whose bots' `playing` counts and pairs'
    /// rated starts include it, [`Arena::form`]) into play as match `seq`;
    /// the round's [`Arena::progress`] follows it from there.
    pub(super) fn enter_match(&self, st: &mut State, seq: u64, run: Running) {
        st.matches.insert(seq, run);
    }

    /// Moves match `seq` on: starts its games, records the ended ones and
    /// releases the draws every game has reached (the dice gate). True once
    /// all its games have ended: its end is then recorded by
    /// [`Arena::finish_matches`].
    /// Its games' rooms are taken from `read` ([`Arena::game_rooms`]); a
    /// game not in it (started since) is read here.
    pub(super) fn progress(
        &self,
        st: &mut State,
        seq: u64,
        now: u64,
        read: &mut GameRooms,
    ) -> bool {
        let Some(run) = st.matches.get_mut(&seq) else {
            return false;
        };
        while run.game_ids.len() < run.record.games as usize {
            if !self.start_game(run, now) {
                return false;
            }
        }
        let mut rooms = Vec::with_capacity(run.game_ids.len());
        let mut ended = Vec::new();
        for (index, game_id) in run.game_ids.iter().enumerate() {
            let room = read
                .0
                .remove(game_id)
                .unwrap_or_else(|| self.rooms.load(game_id, now));
            let room = match room {
                Ok(room) => room,
                // In play on another node of a cluster: read when it ends.
                Err(ServiceError::GameNotFound(_)) => return false,
                Err(e) => {
                    tracing::warn!(%game_id, "an arena game cannot be read: {e}");
                    return false;
                }
            };
            if run.outcomes[index].is_none() && room.ended_ms().is_some() {
                let (results, by_seat) = game_results(&room, &run.seating(index));
                ended.push((index, by_seat));
                run.outcomes[index] = Some(results);
            }
            rooms.push(room);
        }
        if run.outcomes.iter().all(Option::is_some) {
            // The games that end the match are told of after its result is
            // stored.
            run.untold_ends.extend(ended);
            return true;
        }
        for (index, by_seat) in ended {
            self.game_over(run, index, &by_seat, now);
        }
        gate::open(&rooms, now);
        false
    }

    /// Starts the next game of `run`; false if it could not be created (tried
    /// again next round).
    pub(super) fn start_game(&self, run: &mut Running, now: u64) -> bool {
        let index = run.game_ids.len();
        let seating = run.seating(index);
        let names = seating
            .iter()
            .map(|&b| self.bots().reference(b).name)
            .collect();
        let req = pb::CreateGameRequest {
            kind: run.record.kind.number(),
            players: seating.len() as u32,
            seat_names: names,
            options: Some(run.record.options.clone()),
            ..Default::default()
        };
        let created = crate::bounds::Checked::new(req)
            .and_then(|req| self.lobby.create_with_secret_seed(req, run.record.seed));
        let game_id = match created {
            Ok(reply) => reply.game_id,
            Err(e) => {
                tracing::warn!(match_id = %run.record.id, "cannot start an arena game (retrying): {e}");
                return false;
            }
        };
        if let Err(e) = self
            .store
            .add_match_game(&run.record.id, index as u32, &game_id)
        {
            tracing::error!(match_id = %run.record.id, game_id, "cannot record an arena game: {e}");
        }
        self.seats.insert(game_id.clone(), seating.clone());
        run.game_ids.push(game_id.clone());
        for (seat, &bot) in seating.iter().enumerate() {
            let game = match_game(run, index, &game_id, seat);
            self.tell(
                run,
                bot,
                now,
                pb::seek_event::Event::GameStarted(game.clone()),
                pb::bot_event::Event::GameStarted(game),
            );
        }
        true
    }

    /// Tells the bots of game `index` of `run` how it went: each seat's rank
    /// and score (rank 0: abandoned); not the bots told before a restart.
    pub(super) fn game_over(&self, run: &Running, index: usize, by_seat: &[(u32, i64)], now: u64) {
        let game_id = &run.game_ids[index];
        let seating = run.seating(index);
        for (seat, (&bot, &(rank, score))) in seating.iter().zip(by_seat).enumerate() {
            if run
                .told_before
                .get(&bot)
                .is_some_and(|g| g.contains(game_id))
            {
                continue;
            }
            let event = game_finished(&run.record.id, game_id, index, seat, (rank, score));
            self.tell_later(bot, now, event, None);
        }
    }

    /// Tells every bot of `run` (its event log and its Seek stream).
    pub(super) fn announce(
        &self,
        run: &Running,
        now: u64,
        seek: pb::seek_event::Event,
        event: pb::bot_event::Event,
    ) {
        for &bot in &run.bots {
            self.tell(run, bot, now, seek.clone(), event.clone());
        }
    }

    /// Tells bot `bot` of `run` now ([`Arena::tell_now`]): a match's or a
    /// game's start, told as soon as it exists.
    pub(super) fn tell(
        &self,
        run: &Running,
        bot: BotNo,
        now: u64,
        seek: pb::seek_event::Event,
        event: pb::bot_event::Event,
    ) {
        if let Err(e) = self.tell_now(bot, now, event) {
            tracing::warn!("cannot record a bot event: {e}");
        }
        if let Some(i) = run.bots.iter().position(|&b| b == bot)
            && let Some(Some(tx)) = run.streams.get(i)
        {
            let _ = tx.try_send(Ok(pb::SeekEvent { event: Some(seek) }));
        }
    }
}

impl Arena {
    /// Whether a challenge of `bots` may be rated: not when a pair of them
    /// started its rated matches of the day together already
    /// (`--arena-pair-matches-per-day`; docs/ratings.md, "Cheap identities").
    pub(super) fn challenge_may_be_rated(
        &self,
        st: &mut State,
        kind: Kind,
        bots: &[BotNo],
        now: u64,
    ) -> bool {
        let key = (kind, bots.len() as u32);
        let per_day = self.settings.pair_matches_per_day;
        let over = st.ratings.pair_over(key, bots, per_day, now);
        if let Some((a, b)) = over {
            tracing::info!(a = %public_id(a), b = %public_id(b), "a challenge of a pair past its rated matches of the day is played unrated");
        }
        over.is_none()
    }
}

/// How ended game `room` went for the bots of `seating`: each bot's result
/// (none: abandoned, and its match is void) and each seat's rank and score
/// (rank 0: abandoned).
pub(super) fn game_results(room: &Room, seating: &[BotNo]) -> (Vec<Outcome>, Vec<(u32, i64)>) {
    let results = match room.view(Viewer::Spectator).outcome {
        Some(outcome) => outcomes(seating, &outcome),
        None => Vec::new(),
    };
    let by_seat = if results.is_empty() {
        vec![(0, 0); seating.len()]
    } else {
        results
            .iter()
            .map(|o| (u32::from(o.rank), o.score))
            .collect()
    };
    (results, by_seat)
}

/// What the bot at `seat` of game `index` (`game_id`) of match `match_id` is
/// told of the game's end: its `(rank, score)` there.
pub(super) fn game_finished(
    match_id: &str,
    game_id: &str,
    index: usize,
    seat: usize,
    (rank, score): (u32, i64),
) -> pb::bot_event::Event {
    pb::bot_event::Event::GameFinished(pb::MatchGameFinished {
        match_id: match_id.to_owned(),
        game_id: game_id.to_owned(),
        index: index as u32,
        seat: seat as u32,
        rank,
        score,
    })
}

/// A game's result by bot: score and rank. A seat's rank is 1 + the seats
/// ahead of it by the rules' order (not resigned, then score, then the
/// tie-break keys), so seats equal on all of them share a place at every
/// place, not only the first (`Outcome.ranking` lists equal seats in seat
/// order, which says nothing of who was better).
fn outcomes(seating: &[BotNo], outcome: &pb::Outcome) -> Vec<Outcome> {
    let key = |seat: usize| {
        let seat32 = seat as u32;
        (
            !outcome.resigned.contains(&seat32),
            outcome.scores.get(seat).copied().unwrap_or(0),
            outcome
                .tie_breaks
                .get(seat)
                .map(|t| t.keys.clone())
                .unwrap_or_default(),
        )
    };
    let keys: Vec<_> = (0..seating.len()).map(key).collect();
    seating
        .iter()
        .enumerate()
        .map(|(seat, &bot)| {
            let ahead = keys.iter().filter(|k| **k > keys[seat]).count();
            Outcome {
                bot: BotId(bot),
                score: i64::from(keys[seat].1),
                rank: ahead as u8 + 1,
                resigned: !keys[seat].0,
            }
        })
        .collect()
}

/// What the bot in seat `seat` of game `index` (`game_id`) of `run` is told
/// when the game starts.
pub(super) fn match_game(run: &Running, index: usize, game_id: &str, seat: usize) -> pb::MatchGame {
    pb::MatchGame {
        match_id: run.record.id.clone(),
        game_id: game_id.to_owned(),
        seat: seat as u32,
        index: index as u32,
        options: Some(run.record.options.clone()),
    }
}

/// Games in a match of `kind` for `players`: luck is the enemy of ratings in
/// a dice game, so its rated and tournament (`counted`) matches are
/// duplicate matches, one game per seat rotation; every other match is one
/// game.
pub(super) fn match_games(kind: Kind, players: u32, counted: bool) -> u32 {
    if counted && kind.descriptor().dice_driven() {
        players
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &[i32]) -> pb::TieBreakKeys {
        pb::TieBreakKeys { keys: k.to_vec() }
    }

    #[test]
    fn seats_equal_by_the_rules_share_their_place_at_every_place() {
        // Seats 1 and 2 are equal on score and keys below the winner; seat 3
        // resigned with the best score.
        let outcome = pb::Outcome {
            scores: vec![9, 4, 4, 12],
            ranking: vec![0, 1, 2, 3],
            winners: vec![0],
            tie_breaks: vec![keys(&[3]), keys(&[0]), keys(&[0]), keys(&[5])],
            resigned: vec![3],
            ..Default::default()
        };
        let got: Vec<(u64, u8, bool)> = outcomes(&[10, 11, 12, 13], &outcome)
            .iter()
            .map(|o| (o.bot.0, o.rank, o.resigned))
            .collect();
        assert_eq!(
            got,
            vec![
                (10, 1, false),
                (11, 2, false),
                (12, 2, false),
                (13, 4, true)
            ]
        );
        // A tie-break key tells equal scores apart.
        let outcome = pb::Outcome {
            tie_breaks: vec![keys(&[3]), keys(&[1]), keys(&[0]), keys(&[5])],
            ..outcome
        };
        let ranks: Vec<u8> = outcomes(&[10, 11, 12, 13], &outcome)
            .iter()
            .map(|o| o.rank)
            .collect();
        assert_eq!(ranks, vec![1, 2, 3, 4]);
    }
}
