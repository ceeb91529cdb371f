//! The arena: bots as identities, matchmaking, rated matches and ratings
//! (`ArenaService`, proto/druids/v1/arena.proto). It sits beside the game
//! service and uses it as any client would: it creates games through the
//! [`Lobby`] and reads their outcomes from their rooms; no rule is known here.
//!
//! * [`bots`]: registration and API keys; in a game a bot holds a seat in,
//!   its key acts for the seat ([`Arena::seat_in`]).
//! * The pool (`druids_arena::pairing`) forms matches from open seeks; a
//!   rated Meduris match is a duplicate match: one game per seat rotation,
//!   one after another, with one secret seed.
//! * [`ratings`]: every rated result updates the live rating of its pool and
//!   feeds the periodic fit; both are replayed from the stored results at
//!   start-up.
//! * [`events`]: each bot's resumable event log.
//!
//! The arena's round ([`Arena::tick`]) forms matches, starts their games and
//! records their results; it blocks on the store and runs off the async
//! workers.

mod accounts;
pub mod api;
mod challenges;
pub mod bots;
pub mod events;
pub mod ratings;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use dashmap::DashMap;
use druids::pb;
use druids_arena::pairing::duplicate::{self, Outcome};
use druids_arena::pairing::pool::{Match, Pool, PoolConfig, Seek, SeekId};
use druids_arena::pairing::{self, BotId};
use druids_engine::{Seat, Viewer};
use tokio::sync::mpsc;
use tonic::Status;

use crate::arena_store::{ArenaStore, MatchRecord, PlacementRecord, StoredMatch};
use crate::auth::TokenHash;
use crate::clock::Clock;
use crate::config::ArenaSettings;
use crate::error::ServiceError;
use crate::lobby::Lobby;
use crate::rooms::Rooms;
use crate::store::StoreError;
use bots::{BotNo, Bots, public_id};
use events::Events;
use ratings::{PoolKey, Ratings};

/// What a Seek stream carries.
pub type SeekSender = mpsc::Sender<Result<pb::SeekEvent, Status>>;

/// Matches a bot's profile shows.
const RECENT_MATCHES: usize = 20;

/// An open seek.
struct Seeker {
    bot: BotNo,
    tx: SeekSender,
}

/// A match being played.
struct Running {
    record: MatchRecord,
    /// Its bots, in the seat order of its first game.
    bots: Vec<BotNo>,
    /// Its games started so far.
    game_ids: Vec<String>,
    /// Each finished game's result by bot.
    outcomes: Vec<Vec<Outcome>>,
    /// The bots' Seek streams, by bot (none after a restart, or for a match
    /// not formed by the pool).
    streams: Vec<Option<SeekSender>>,
}

impl Running {
    fn pool(&self) -> PoolKey {
        (self.record.kind as i32, self.bots.len() as u32)
    }

    /// The seating of game `index`: rotations of the first game's.
    fn seating(&self, index: usize) -> Vec<BotNo> {
        let k = self.bots.len();
        (0..k).map(|s| self.bots[(s + index) % k]).collect()
    }
}

/// What the arena's round changes.
struct State {
    pool: Pool<i32>,
    seeks: HashMap<SeekId, Seeker>,
    next_seek: u64,
    /// Running matches by formation order.
    matches: BTreeMap<u64, Running>,
    next_match: u64,
    ratings: Ratings,
    /// Matches each bot is in.
    playing: HashMap<BotNo, u32>,
    recent: HashMap<BotNo, VecDeque<pb::MatchFinished>>,
    /// When each address registered bots, for the hourly quota.
    registrations: HashMap<Option<IpAddr>, VecDeque<u64>>,
    /// Challenges waiting for answers, by id.
    challenges: HashMap<String, challenges::Pending>,
    /// When each bot challenged others, for the hourly quota.
    challenged: HashMap<BotNo, VecDeque<u64>>,
}

/// The arena of one server.
pub struct Arena {
    settings: ArenaSettings,
    store: Arc<dyn ArenaStore>,
    lobby: Arc<Lobby>,
    rooms: Arc<Rooms>,
    clock: Arc<dyn Clock>,
    bots: RwLock<Bots>,
    /// The bots of each arena game, by seat: whose key acts for which seat.
    seats: DashMap<String, Vec<BotNo>>,
    events: Events,
    state: Mutex<State>,
}

impl Arena {
    /// The arena over `store`, with its bots, the ratings replayed from the
    /// stored results and the unfinished matches resumed. Blocks on the store.
    pub fn new(
        settings: ArenaSettings,
        store: Arc<dyn ArenaStore>,
        lobby: Arc<Lobby>,
        rooms: Arc<Rooms>,
        clock: Arc<dyn Clock>,
    ) -> Result<Arena, StoreError> {
        let mut bots = Bots::default();
        for bot in store.bots()? {
            bots.insert(bot);
        }
        let arena = Arena {
            settings,
            store,
            lobby,
            rooms,
            clock,
            bots: RwLock::new(bots),
            seats: DashMap::new(),
            events: Events::default(),
            state: Mutex::new(State {
                pool: Pool::new(PoolConfig::default()),
                seeks: HashMap::new(),
                next_seek: 0,
                matches: BTreeMap::new(),
                next_match: 0,
                ratings: Ratings::default(),
                playing: HashMap::new(),
                recent: HashMap::new(),
                registrations: HashMap::new(),
                challenges: HashMap::new(),
                challenged: HashMap::new(),
            }),
        };
        arena.resume(arena.store.matches()?);
        Ok(arena)
    }

    /// Replays the stored matches: results into the ratings in the order they
    /// were recorded, unfinished matches back into play.
    fn resume(&self, stored: Vec<StoredMatch>) {
        let mut st = self.state();
        let mut finished: Vec<(u64, u64, StoredMatch)> = Vec::new();
        for (seq, m) in stored.into_iter().enumerate() {
            let seq = seq as u64;
            st.next_match = seq + 1;
            match m.finished_unix_ms {
                Some(at) => finished.push((at, seq, m)),
                None => {
                    let bots: Vec<BotNo> = m
                        .record
                        .bots
                        .iter()
                        .filter_map(|b| bots::parse_id(b))
                        .collect();
                    let running = Running {
                        bots,
                        game_ids: m.game_ids,
                        outcomes: Vec::new(),
                        streams: Vec::new(),
                        record: m.record,
                    };
                    for (i, id) in running.game_ids.iter().enumerate() {
                        self.seats.insert(id.clone(), running.seating(i));
                    }
                    for &b in &running.bots {
                        *st.playing.entry(b).or_default() += 1;
                    }
                    st.matches.insert(seq, running);
                }
            }
        }
        finished.sort_by_key(|(at, seq, _)| (*at, *seq));
        for (_, _, m) in finished {
            let placements = m.placements.unwrap_or_default();
            if m.record.rated && !placements.is_empty() {
                let ranks: Vec<(BotNo, u32)> = placements
                    .iter()
                    .filter_map(|p| Some((bots::parse_id(&p.bot_id)?, p.rank)))
                    .collect();
                st.ratings
                    .record((m.record.kind as i32, ranks.len() as u32), &ranks);
            }
            let summary = self.finished_message(&m.record.id, &placements);
            for p in &placements {
                if let Some(no) = bots::parse_id(&p.bot_id) {
                    remember(&mut st.recent, no, summary.clone());
                }
            }
        }
        let limit = self.settings.bot_max_games;
        let loads: Vec<(BotNo, u32)> = st.playing.iter().map(|(&b, &n)| (b, n)).collect();
        for (bot, n) in loads {
            st.pool.set_load(BotId(bot), n, limit);
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bots(&self) -> std::sync::RwLockReadGuard<'_, Bots> {
        self.bots.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The seat bot key `token` acts for in game `game_id`, if its bot plays
    /// there.
    pub fn seat_in(&self, game_id: &str, token: &TokenHash) -> Option<Seat> {
        let bot = self.bots().by_key(token)?;
        let seats = self.seats.get(game_id)?;
        seats.iter().position(|&b| b == bot).map(|s| Seat(s as u8))
    }

    /// The bot whose key is `token`.
    pub fn bot_of(&self, token: Option<&TokenHash>) -> Result<BotNo, ServiceError> {
        let token = token.ok_or(ServiceError::BotKeyUnknown("none was sent"))?;
        self.bots()
            .by_key(token)
            .ok_or(ServiceError::BotKeyUnknown("the key sent is not a bot's"))
    }

    /// Opens a seek of bot `bot` whose events go to `tx`.
    pub fn seek(
        &self,
        bot: BotNo,
        req: &pb::SeekRequest,
        tx: SeekSender,
    ) -> Result<(), ServiceError> {
        let kind = pb::GameKind::try_from(req.kind)
            .ok()
            .filter(|k| *k != pb::GameKind::Unspecified)
            .ok_or_else(|| {
                ServiceError::invalid("kind", format!("kind {} is not a game", req.kind))
            })?;
        let min = if req.min_players == 0 {
            2
        } else {
            req.min_players
        };
        let max = if req.max_players == 0 {
            min
        } else {
            req.max_players
        };
        let (lo, hi) = (
            u32::from(pairing::MIN_PLAYERS),
            u32::from(pairing::MAX_PLAYERS),
        );
        if !(lo..=hi).contains(&min) || !(min..=hi).contains(&max) {
            return Err(ServiceError::invalid(
                "min_players",
                format!(
                    "players {min} to {max}: the arena forms games of {lo} to {hi} players, min_players <= max_players"
                ),
            ));
        }
        let now = self.clock.now_ms();
        let mut st = self.state();
        let open = st
            .seeks
            .values()
            .filter(|s| s.bot == bot && !s.tx.is_closed())
            .count();
        if open >= self.settings.bot_max_seeks as usize {
            return Err(quota(format!(
                "a bot may have {} seeks open at once",
                self.settings.bot_max_seeks
            )));
        }
        let playing = st.playing.get(&bot).copied().unwrap_or(0);
        if playing >= self.settings.bot_max_games {
            return Err(quota(format!(
                "a bot may play {} matches at once",
                self.settings.bot_max_games
            )));
        }
        st.pool
            .set_load(BotId(bot), playing, self.settings.bot_max_games);
        // The pool's windows are in Elo-like points: 40 per unit of mu.
        let live = st.ratings.live((kind as i32, max), bot);
        let id = SeekId(st.next_seek);
        st.next_seek += 1;
        let seek = Seek {
            id,
            bot: BotId(bot),
            kind: kind as i32,
            players: (min as u8)..=(max as u8),
            rated: req.rated,
            rating: 1500.0 + 40.0 * (live.mu - 25.0),
            since_ms: now,
        };
        st.pool
            .add(seek)
            .map_err(|e| ServiceError::invalid("min_players", e.to_string()))?;
        let _ = tx.try_send(Ok(pb::SeekEvent {
            event: Some(pb::seek_event::Event::Seeking(pb::Seeking {
                pool_size: st.pool.len() as u32,
            })),
        }));
        st.seeks.insert(id, Seeker { bot, tx });
        Ok(())
    }

    /// The arena's round: forgets cancelled seeks, forms matches, starts
    /// their games, records finished ones, refits ratings when due. Blocks on
    /// the store.
    pub fn tick(&self) {
        let now = self.clock.now_ms();
        let mut st = self.state();
        let cancelled: Vec<SeekId> = st
            .seeks
            .iter()
            .filter(|(_, s)| s.tx.is_closed())
            .map(|(&id, _)| id)
            .collect();
        for id in cancelled {
            st.seeks.remove(&id);
            st.pool.remove(id);
        }
        for formed in st.pool.form(now) {
            self.start_match(&mut st, formed, now);
        }
        self.expire_challenges(&mut st, now);
        let running: Vec<u64> = st.matches.keys().copied().collect();
        for seq in running {
            self.progress(&mut st, seq, now);
        }
        st.ratings
            .refit(now, self.settings.fit_secs.saturating_mul(1000));
    }

    /// The options of arena games: the arena's turn clock.
    fn options(&self) -> pb::GameOptions {
        pb::GameOptions {
            decision_ms: Some(self.settings.decision_ms),
            time_bank_ms: Some(self.settings.time_bank_ms),
            autopilot_after: Some(self.settings.autopilot_after),
            ..Default::default()
        }
    }

    /// Starts a match the pool formed.
    fn start_match(&self, st: &mut State, formed: Match<i32>, now: u64) {
        let kind = pb::GameKind::try_from(formed.kind).unwrap_or(pb::GameKind::Meduris);
        let bots: Vec<BotNo> = formed.seats.iter().map(|(_, b)| b.0).collect();
        let streams: Vec<Option<SeekSender>> = formed
            .seats
            .iter()
            .map(|(id, _)| st.seeks.remove(id).map(|s| s.tx))
            .collect();
        if let Err(e) = self.begin_match(st, kind, formed.rated, bots.clone(), streams.clone(), now) {
            tracing::warn!("cannot record a match: {e}");
            let status: Status = ServiceError::Storage(e).into();
            for tx in streams.into_iter().flatten() {
                let _ = tx.try_send(Err(status.clone()));
            }
            for &b in &bots {
                let playing = st.playing.get(&b).copied().unwrap_or(0);
                st.pool
                    .set_load(BotId(b), playing, self.settings.bot_max_games);
            }
        }
    }

    /// Records and starts a match of `bots` (in the seat order of its first
    /// game), telling them on their event logs and `streams`; its id.
    fn begin_match(
        &self,
        st: &mut State,
        kind: pb::GameKind,
        rated: bool,
        bots: Vec<BotNo>,
        streams: Vec<Option<SeekSender>>,
        now: u64,
    ) -> Result<String, StoreError> {
        // Luck is the enemy of ratings in a dice game: rated Meduris is
        // played as duplicate matches.
        let games = if rated && kind == pb::GameKind::Meduris {
            bots.len() as u32
        } else {
            1
        };
        let record = MatchRecord {
            id: format!("{:016x}", rand::random::<u64>()),
            kind,
            rated,
            seed: rand::random(),
            options: self.options(),
            bots: bots.iter().map(|&b| public_id(b)).collect(),
            games,
            created_unix_ms: now,
            tournament: None,
        };
        self.store.create_match(&record)?;
        let id = record.id.clone();
        for &b in &bots {
            *st.playing.entry(b).or_default() += 1;
        }
        let started = pb::MatchStarted {
            match_id: record.id.clone(),
            kind: kind as i32,
            players: bots.len() as u32,
            rated: record.rated,
            games,
            bots: bots.iter().map(|&b| self.bots().reference(b)).collect(),
        };
        let running = Running {
            record,
            bots,
            game_ids: Vec::new(),
            outcomes: Vec::new(),
            streams,
        };
        self.announce(
            &running,
            now,
            pb::seek_event::Event::MatchStarted(started.clone()),
            pb::bot_event::Event::MatchStarted(started),
        );
        let seq = st.next_match;
        st.next_match += 1;
        st.matches.insert(seq, running);
        self.progress(st, seq, now);
        Ok(id)
    }

    /// Moves match `seq` on: starts its next game, records a finished one,
    /// or finishes the match.
    fn progress(&self, st: &mut State, seq: u64, now: u64) {
        let Some(run) = st.matches.get_mut(&seq) else {
            return;
        };
        let started = run.game_ids.len();
        if started > run.outcomes.len() {
            let current = run.game_ids[started - 1].clone();
            let room = match self.rooms.load(&current, now) {
                Ok(room) => room,
                Err(e) => {
                    tracing::warn!(game_id = %current, "an arena game cannot be read: {e}");
                    return;
                }
            };
            if room.ended_ms().is_none() {
                return;
            }
            let Some(outcome) = room.view(Viewer::Spectator).outcome else {
                // Abandoned: the match is void.
                self.finish(st, seq, now, true);
                return;
            };
            let seating = run.seating(started - 1);
            run.outcomes.push(outcomes(&seating, &outcome));
        }
        if run.outcomes.len() < run.record.games as usize {
            self.start_game(run, now);
        } else {
            self.finish(st, seq, now, false);
        }
    }

    /// Starts the next game of `run`.
    fn start_game(&self, run: &mut Running, now: u64) {
        let index = run.game_ids.len();
        let seating = run.seating(index);
        let names = seating
            .iter()
            .map(|&b| self.bots().reference(b).name)
            .collect();
        let req = pb::CreateGameRequest {
            kind: run.record.kind as i32,
            players: seating.len() as u32,
            seat_names: names,
            options: Some(run.record.options),
            ..Default::default()
        };
        let game_id = match self.lobby.create_with_secret_seed(req, run.record.seed) {
            Ok(reply) => reply.game_id,
            Err(e) => {
                tracing::warn!(match_id = %run.record.id, "cannot start an arena game (retrying): {e}");
                return;
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
            let game = pb::MatchGame {
                match_id: run.record.id.clone(),
                game_id: game_id.clone(),
                seat: seat as u32,
                index: index as u32,
                options: Some(run.record.options),
            };
            self.tell(
                run,
                bot,
                now,
                pb::seek_event::Event::GameStarted(game.clone()),
                pb::bot_event::Event::GameStarted(game),
            );
        }
    }

    /// Records the end of match `seq` (`void`: a game was abandoned), its
    /// ratings, and tells its bots.
    fn finish(&self, st: &mut State, seq: u64, now: u64, void: bool) {
        let Some(run) = st.matches.get(&seq) else {
            return;
        };
        let placements = if void { Vec::new() } else { placements(run) };
        let records: Vec<PlacementRecord> = placements
            .iter()
            .map(|p| PlacementRecord {
                bot_id: public_id(p.bot.0),
                rank: u32::from(p.rank),
                score: p.total_score,
            })
            .collect();
        if let Err(e) = self.store.finish_match(&run.record.id, &records, now) {
            // Tried again next round: nothing is recorded before the store has it.
            tracing::warn!(match_id = %run.record.id, "cannot record a match's result: {e}");
            return;
        }
        let Some(run) = st.matches.remove(&seq) else {
            return;
        };
        let finished = self.finished_message(&run.record.id, &records);
        self.announce(
            &run,
            now,
            pb::seek_event::Event::MatchFinished(finished.clone()),
            pb::bot_event::Event::MatchFinished(finished.clone()),
        );
        if run.record.rated && !void {
            let ranks: Vec<(BotNo, u32)> = placements
                .iter()
                .map(|p| (p.bot.0, u32::from(p.rank)))
                .collect();
            let key = run.pool();
            for change in st.ratings.record(key, &ranks) {
                let event = pb::bot_event::Event::RatingChanged(pb::RatingChanged {
                    match_id: run.record.id.clone(),
                    kind: key.0,
                    players: key.1,
                    before: Some(ratings::rating(&change.before)),
                    after: Some(ratings::rating(&change.after)),
                });
                if let Err(e) = self
                    .events
                    .append(self.store.as_ref(), change.bot.0, now, event)
                {
                    tracing::warn!("cannot record a bot event: {e}");
                }
            }
        }
        for &b in &run.bots {
            remember(&mut st.recent, b, finished.clone());
            let playing = st.playing.entry(b).or_default();
            *playing = playing.saturating_sub(1);
            let playing = *playing;
            st.pool
                .set_load(BotId(b), playing, self.settings.bot_max_games);
        }
        for game_id in &run.game_ids {
            self.seats.remove(game_id);
        }
        // Dropping the senders ends the Seek streams.
    }

    fn finished_message(
        &self,
        match_id: &str,
        placements: &[PlacementRecord],
    ) -> pb::MatchFinished {
        let bots = self.bots();
        pb::MatchFinished {
            match_id: match_id.to_owned(),
            placements: placements
                .iter()
                .map(|p| pb::Placement {
                    bot: Some(bots::parse_id(&p.bot_id).map_or_else(
                        || pb::BotRef {
                            bot_id: p.bot_id.clone(),
                            name: String::new(),
                        },
                        |no| bots.reference(no),
                    )),
                    rank: p.rank,
                    score: p.score,
                })
                .collect(),
        }
    }

    /// Tells every bot of `run` (its event log and its Seek stream).
    fn announce(
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

    /// Tells bot `bot` of `run`.
    fn tell(
        &self,
        run: &Running,
        bot: BotNo,
        now: u64,
        seek: pb::seek_event::Event,
        event: pb::bot_event::Event,
    ) {
        if let Err(e) = self.events.append(self.store.as_ref(), bot, now, event) {
            tracing::warn!("cannot record a bot event: {e}");
        }
        if let Some(i) = run.bots.iter().position(|&b| b == bot)
            && let Some(Some(tx)) = run.streams.get(i)
        {
            let _ = tx.try_send(Ok(pb::SeekEvent { event: Some(seek) }));
        }
    }
}

/// A game's result by bot: score and rank (the engine's ranking; the winners
/// share first place).
fn outcomes(seating: &[BotNo], outcome: &pb::Outcome) -> Vec<Outcome> {
    seating
        .iter()
        .enumerate()
        .map(|(seat, &bot)| {
            let seat = seat as u32;
            let place = outcome
                .ranking
                .iter()
                .position(|&s| s == seat)
                .unwrap_or(seating.len() - 1);
            let rank = if outcome.winners.contains(&seat) {
                1
            } else {
                place as u8 + 1
            };
            Outcome {
                bot: BotId(bot),
                score: i64::from(outcome.scores.get(seat as usize).copied().unwrap_or(0)),
                rank,
            }
        })
        .collect()
}

/// A finished match's placements: its one game's ranks, or a duplicate
/// match's ranking by total score.
fn placements(run: &Running) -> Vec<duplicate::Placing> {
    if run.outcomes.len() > 1 {
        if let Ok(placings) = duplicate::combine(&run.outcomes) {
            return placings;
        }
    }
    run.outcomes
        .first()
        .map(|game| {
            game.iter()
                .map(|o| duplicate::Placing {
                    bot: o.bot,
                    rank: o.rank,
                    total_score: o.score,
                    total_rank: u32::from(o.rank),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn remember(
    recent: &mut HashMap<BotNo, VecDeque<pb::MatchFinished>>,
    bot: BotNo,
    m: pb::MatchFinished,
) {
    let list = recent.entry(bot).or_default();
    list.push_front(m);
    list.truncate(RECENT_MATCHES);
}

/// A quota refusal: RESOURCE_EXHAUSTED with a retry delay.
fn quota(what: String) -> ServiceError {
    ServiceError::RateLimited {
        what,
        retry_after: std::time::Duration::from_secs(1),
    }
}
