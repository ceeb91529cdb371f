//! The arena: bots as identities, matchmaking, rated matches and ratings
//! (`ArenaService`, proto/druids/v1/arena.proto). It sits beside the game
//! service and uses it as any client would: it creates games through the
//! [`Lobby`] and reads their outcomes from their rooms; no rule is known here.
//!
//! * [`bots`]: registration and API keys; in a game a bot holds a seat in,
//!   its key acts for the seat ([`Arena::seat_in`]).
//! * The pool (`druids_arena::pairing`) forms matches from open seeks; a
//!   rated Meduris match is a duplicate match: one game per seat rotation,
//!   all at once, with one secret seed whose draws [`gate`] releases to a
//!   game only once every game of the match has reached them.
//! * [`ratings`]: every rated result updates the live rating of its pool and
//!   feeds the periodic fit; both are replayed from the stored results at
//!   start-up.
//! * [`events`]: the resumable event logs, each bot's and each
//!   tournament's.
//! * `challenges` (stored while pending) and `tournaments` (round-robin,
//!   Swiss, gauntlet; open entry) start matches as the pool does.
//! * `resume`: the stored matches replayed at start-up (or on the node that
//!   takes the arena over), and what a stopped holder left untold told.
//! * [`outbox`]: the events decided under the arena's lock, stored in order
//!   once it is let go (the state's guard does it).
//!
//! The arena's round ([`Arena::tick`]) forms matches, starts their games
//! ([`pass`]: many at once, without holding the arena's lock) and records
//! their results; it blocks on the store and runs off the async workers.
//!
//! Once it serves, no call writes to the store while it holds the arena's
//! lock, which every other call waits on: what it decides under the lock is
//! stored once the lock is let go, by the outbox, or by the call itself
//! while what it decided about is marked as being recorded (a formed match,
//! a challenge, an entry, a bot's name); calls about the same thing wait
//! for that ([`outbox::StateGuard::wait_while`]). One exception: the round
//! retries under the lock the start of a match's game that failed before.

pub(crate) mod accounts;
pub mod bots;
mod challenges;
pub mod events;
mod gate;
mod hourly;
pub mod house;
mod listings;
mod match_end;
mod matches;
mod outbox;
mod pass;
mod pools;
pub mod ratings;
mod resume;
mod tournaments;
mod waiting;

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Condvar, Mutex, RwLock};

use std::num::NonZeroUsize;

use dashmap::DashMap;
use druids_arena::pairing::BotId;
use druids_arena::pairing::duplicate::Outcome;
use druids_arena::pairing::pool::{Pool, PoolConfig, Seek, SeekId};
use druids_arena::pairing::windows::LADDER;
use druids_contract::{Kind, pb};
use druids_engine::Seat;
use lru::LruCache;
use tokio::sync::mpsc;
use tonic::Status;

use crate::auth::TokenHash;
use crate::bounds::Checked;
use crate::bounds::arena::seats;
use crate::clock::Clock;
use crate::config::ArenaSettings;
use crate::error::ServiceError;
use crate::lobby::Lobby;
use crate::rooms::Rooms;
use crate::store::StoreError;
use crate::store::{ArenaStore, MatchRecord};
use bots::{BotNo, Bots};
use events::{Events, TournamentEvents};
use hourly::Hourly;
use outbox::Outbox;
use ratings::{PoolKey, Ratings};

/// What a Seek stream carries.
pub type SeekSender = mpsc::Sender<Result<pb::SeekEvent, Status>>;

/// Games of finished matches whose seats bots' keys still act for (about
/// 100 bytes each).
const ENDED_SEATS: NonZeroUsize = NonZeroUsize::new(100_000).expect("not zero");

/// Matches a bot's profile shows.
const RECENT_MATCHES: usize = 20;

/// The pool's windows, in the points of [`pool_rating`]: the ladder's
/// ([`LADDER`], documented there and in the README's "Run a ladder").
const POOL: PoolConfig = LADDER;

/// The pool's scale: points per unit of a live rating's mu.
const POINTS_PER_MU: f64 = 20.0;

/// A live rating on the pool's scale: [`POINTS_PER_MU`] around 1500 (a new
/// bot's mu of 25), so a window of ±100 spans ±5 mu, about 0.6 of a new
/// bot's sigma.
fn pool_rating(mu: f64) -> f64 {
    1500.0 + POINTS_PER_MU * (mu - 25.0)
}

/// An open seek.
struct Seeker {
    bot: BotNo,
    tx: SeekSender,
    /// What it was last told it waits for.
    told: Option<waiting::Told>,
}

/// A match being played.
struct Running {
    record: MatchRecord,
    /// Its bots, in the seat order of its first game.
    bots: Vec<BotNo>,
    /// Its games started so far, by index (all of them at once, but a
    /// failed creation is retried next round).
    game_ids: Vec<String>,
    /// Each ended game's result by bot, by index (empty: abandoned, and the
    /// match is void); recorded and told once.
    outcomes: Vec<Option<Vec<Outcome>>>,
    /// The games whose end each of its bots was told before a restart: not
    /// told again (a holder may stop between telling one bot and the next).
    told_before: HashMap<BotNo, HashSet<String>>,
    /// The games whose end ended the match, by index, with each seat's rank
    /// and score: told only once the match's result is stored
    /// ([`Arena::finish_matches`]), as a restart expects ([`resume`]).
    untold_ends: Vec<(usize, Vec<(u32, i64)>)>,
    /// The bots' Seek streams, by bot (none after a restart, or for a match
    /// not formed by the pool).
    streams: Vec<Option<SeekSender>>,
}

impl Running {
    fn pool(&self) -> PoolKey {
        (self.record.kind, self.bots.len() as u32)
    }

    /// The seating of game `index`: rotations of the first game's.
    fn seating(&self, index: usize) -> Vec<BotNo> {
        rotation(&self.bots, index)
    }
}

/// The seating of game `index` of a match whose first game seats `bots`.
fn rotation(bots: &[BotNo], index: usize) -> Vec<BotNo> {
    let k = bots.len();
    (0..k).map(|s| bots[(s + index) % k]).collect()
}

/// What the arena's round changes.
struct State {
    pool: Pool<Kind>,
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
    registrations: HashMap<Option<IpAddr>, Hourly>,
    /// The names of the bots being registered ([`bots::name_key`]): taken
    /// while the store records them.
    registering: HashSet<String>,
    /// Challenges waiting for answers, by id.
    challenges: HashMap<String, challenges::Pending>,
    /// When each bot challenged others, for the hourly quota.
    challenged: HashMap<BotNo, Hourly>,
    /// When each bot created tournaments, for the hourly quota.
    created_tournaments: HashMap<BotNo, Hourly>,
    /// Tournaments by id.
    tournaments: BTreeMap<String, tournaments::Tourney>,
}

/// The arena of one server.
pub struct Arena {
    settings: ArenaSettings,
    store: Arc<dyn ArenaStore>,
    lobby: Arc<Lobby>,
    rooms: Arc<Rooms>,
    clock: Arc<dyn Clock>,
    bots: RwLock<Bots>,
    /// The bots of each game of a running match, by seat: whose key acts
    /// for which seat.
    seats: DashMap<String, Vec<BotNo>>,
    /// The same for games of finished matches, the most recent ones: a bot
    /// still reads its ended games as their seat.
    ended_seats: Mutex<LruCache<String, Vec<BotNo>>>,
    events: Events,
    tournament_events: TournamentEvents,
    state: Mutex<State>,
    /// What was decided under `state`'s lock, told once it is let go.
    outbox: Outbox,
    /// Woken when a call has recorded what it decided under `state`'s
    /// lock and let go of it meanwhile (a challenge being answered): calls
    /// about the same thing wait for it ([`outbox::StateGuard::wait_while`]).
    recorded: Condvar,
    /// The house bots, once started.
    house: Mutex<house::House>,
    /// Turns true when this arena stops serving because another node of the
    /// cluster took its work over ([`Arena::close`]).
    moved: tokio::sync::watch::Sender<bool>,
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
            ended_seats: Mutex::new(LruCache::new(ENDED_SEATS)),
            house: Mutex::new(house::House::default()),
            moved: tokio::sync::watch::channel(false).0,
            events: Events::default(),
            tournament_events: TournamentEvents::default(),
            outbox: Outbox::default(),
            recorded: Condvar::new(),
            state: Mutex::new(State {
                pool: Pool::new(POOL, |kind| seats(*kind)),
                seeks: HashMap::new(),
                next_seek: 0,
                matches: BTreeMap::new(),
                next_match: 0,
                ratings: Ratings::default(),
                playing: HashMap::new(),
                recent: HashMap::new(),
                registrations: HashMap::new(),
                registering: HashSet::new(),
                challenges: HashMap::new(),
                challenged: HashMap::new(),
                created_tournaments: HashMap::new(),
                tournaments: BTreeMap::new(),
            }),
        };
        let matches = arena.store.matches()?;
        arena.resume_challenges(arena.store.challenges()?, &matches);
        arena.resume_tournaments(arena.store.tournaments()?, &matches);
        arena.resume(matches);
        Ok(arena)
    }

    /// Stops serving: another node took the arena's work over. Open seeks
    /// and event streams end with `UNAVAILABLE` / `GAME_MOVED`, so their
    /// clients open them again, on any node.
    pub fn close(&self) {
        self.moved.send_replace(true);
        let mut st = self.state();
        for (_, seeker) in st.seeks.drain() {
            let _ = seeker.tx.try_send(Err(ServiceError::ArenaMoved.into()));
        }
    }

    /// Turns true when the arena is closed ([`Arena::close`]).
    pub fn moved(&self) -> tokio::sync::watch::Receiver<bool> {
        self.moved.subscribe()
    }

    fn bots(&self) -> std::sync::RwLockReadGuard<'_, Bots> {
        self.bots.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The seat bot key `token` acts for in game `game_id`, if its bot plays
    /// there.
    pub fn seat_in(&self, game_id: &str, token: &TokenHash) -> Option<Seat> {
        let bot = self.bots().by_key(token)?;
        let seat = |seats: &[BotNo]| seats.iter().position(|&b| b == bot).map(|s| Seat(s as u8));
        if let Some(seats) = self.seats.get(game_id) {
            return seat(&seats);
        }
        let mut ended = self.ended_seats.lock().unwrap_or_else(|p| p.into_inner());
        seat(ended.get(game_id)?)
    }

    /// Remembers the seating of a game of a finished match.
    pub(super) fn ended(&self, game_id: String, seating: Vec<BotNo>) {
        self.ended_seats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .put(game_id, seating);
    }

    /// Whether game `game_id`'s seed must stay secret although the game may
    /// be over: it belongs to a match still being played (a duplicate
    /// match's games share one seed).
    pub fn hides_seed(&self, game_id: &str) -> bool {
        self.seats.contains_key(game_id)
    }

    /// Whether `token` is the operator key.
    fn is_operator(&self, token: Option<&TokenHash>) -> bool {
        accounts::is_operator_key(&self.settings, token)
    }

    /// Whether `token` is a bot's key now (not rotated away nor revoked).
    pub fn knows_key(&self, token: &TokenHash) -> bool {
        self.bots().by_key(token).is_some()
    }

    /// The bot whose key is `token`.
    pub fn bot_of(&self, token: Option<&TokenHash>) -> Result<BotNo, ServiceError> {
        let token = token.ok_or(ServiceError::BotKeyUnknown("none was sent"))?;
        // Someone who sent an operator key learns why it is not one here.
        let why = match self.settings.operator_key {
            Some(_) => {
                "the key sent is not a bot's (a bot's key is the whole `druids_bot_…` string \
                 RegisterBot answered, and stops working once rotated or revoked)"
            }
            None => {
                "the key sent is not a bot's (a bot's key is the whole `druids_bot_…` string \
                 RegisterBot answered, and stops working once rotated or revoked), nor an \
                 operator key: this server was started without --operator-key"
            }
        };
        self.bots()
            .by_key(token)
            .ok_or(ServiceError::BotKeyUnknown(why))
    }

    /// Opens a seek of bot `bot` whose events go to `tx`.
    pub fn seek(
        &self,
        bot: BotNo,
        req: &Checked<pb::SeekRequest>,
        tx: SeekSender,
    ) -> Result<(), ServiceError> {
        let kind = self.lobby.catalog().parse(req.kind)?;
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
        let live = st.ratings.live((kind, max), bot);
        let id = SeekId(st.next_seek);
        st.next_seek += 1;
        let seek = Seek {
            id,
            bot: BotId(bot),
            kind,
            players: (min as u8)..=(max as u8),
            rated: req.rated,
            rating: pool_rating(live.mu),
            since_ms: now,
        };
        st.pool
            .add(seek.clone())
            .map_err(|e| ServiceError::invalid("min_players", e.to_string()))?;
        let pool_size = st.pool.compatible(&seek);
        let _ = tx.try_send(Ok(pb::SeekEvent {
            event: Some(pb::seek_event::Event::Seeking(pb::Seeking {
                pool_size: pool_size as u32,
            })),
        }));
        st.seeks.insert(
            id,
            Seeker {
                bot,
                tx,
                told: None,
            },
        );
        Ok(())
    }

    /// The arena's round: forgets cancelled seeks, forms matches and draws
    /// tournament rounds, opens them ([`pass`]) and reads the games in play
    /// ([`Arena::game_rooms`]) and records finished matches
    /// ([`Arena::finish_matches`]) without holding the lock across I/O, and
    /// refits ratings when due. Blocks on the store.
    pub fn tick(&self) {
        let now = self.clock.now_ms();
        let formed = {
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
            let mut formed = st.pool.form(now);
            formed.extend(self.call_house_bots(&mut st, now));
            self.take_formed(&mut st, formed, now)
        };
        self.open_formed_matches(formed, now);
        let decided = {
            let mut st = self.state();
            self.tell_waiting(&mut st, now);
            self.expire_challenges(&mut st, now);
            self.run_tournaments(&mut st, now)
        };
        self.open_rounds(decided.rounds, now);
        self.end_tournaments(decided.ends, now);
        let mut rooms = self.game_rooms(now);
        let mut st = self.state();
        // Results enter the ratings in the order a restart replays them
        // (`resume`): by the time they were recorded, then by match id. Not
        // by formation order, which the store does not keep: a matchmaking
        // pass records its matches concurrently.
        let mut running: Vec<(String, u64)> = st
            .matches
            .iter()
            .map(|(&seq, run)| (run.record.id.clone(), seq))
            .collect();
        running.sort_unstable();
        let mut over = Vec::new();
        for (_, seq) in running {
            if self.progress(&mut st, seq, now, &mut rooms) {
                over.push(seq);
            }
        }
        let mut st = self.finish_matches(st, over, now);
        st.ratings
            .refit(now, self.settings.fit_secs.saturating_mul(1000));
    }

    /// When a bot counts as established in a pool.
    fn established(&self) -> ratings::Established {
        ratings::Established {
            matches: self.settings.established_matches,
            opponents: self.settings.established_opponents,
        }
    }

    /// The arena's turn clock.
    fn default_clock(&self) -> pb::TimeControl {
        pb::TimeControl {
            decision_ms: self.settings.decision_ms,
            time_bank_ms: self.settings.time_bank_ms,
        }
    }

    /// The time control `requested` (none: the arena's turn clock), of a
    /// request within its bounds ([`crate::bounds::arena`]).
    fn clock(&self, requested: Option<&pb::TimeControl>) -> pb::TimeControl {
        requested.copied().unwrap_or_else(|| self.default_clock())
    }

    /// The options of arena games with time control `clock`.
    fn options(&self, clock: &pb::TimeControl) -> pb::GameOptions {
        pb::GameOptions {
            decision_ms: Some(clock.decision_ms),
            time_bank_ms: Some(clock.time_bank_ms),
            autopilot_after: Some(self.settings.autopilot_after),
            ..Default::default()
        }
    }
}

/// A quota refusal: RESOURCE_EXHAUSTED with a retry delay.
fn quota(what: String) -> ServiceError {
    ServiceError::RateLimited {
        what,
        retry_after: std::time::Duration::from_secs(1),
    }
}

#[cfg(test)]
mod tests;
