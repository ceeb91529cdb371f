//! Creating games and claiming seats, retry-safe with request ids.
//!
//! A CreateGame or JoinGame that carries a `request_id` is recorded (the id's
//! hash, the request's fingerprint, the game and seat) in the same commit as
//! the change itself, and its seat tokens are derived from the server secret
//! and the id instead of drawn at random. A retry with the same id and request
//! within [`REQUEST_WINDOW_MS`] — also after a restart — is answered again,
//! tokens included, and changes nothing; the same id with another request is
//! refused, and so is an id of one call sent with another (CreateGame and
//! CreateTestGame, [`Maker`]). On a node of a cluster an id this node has not seen is looked up
//! in the database (another node may have answered it), and a retried create
//! whose game another node owns is answered by that node ([`Created::Owner`]).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use druids_contract::pb;
use druids_engine::{Seat, SetupError, Viewer};
use prost::Message;
use tracing::info;

use crate::auth::{self, TokenHash};
use crate::bounds::Checked;
use crate::catalog::Catalog;
use crate::clock::{Clock, ClockRules, SeatClocks};
use crate::cluster::{Cluster, Located};
use crate::error::{ServiceError, clip};
use crate::hosted_game::CreateError;
use crate::room::{Room, SeatSlot, Setup};
use crate::rooms::Rooms;
use crate::store::{Epoch, GameRecord, Games, RequestRecord, Requests, StoreError};

mod fingerprint;
mod start_from;

pub use fingerprint::Maker;
use fingerprint::fingerprint;
use start_from::{check_prefix, start_from};

/// How long a request id is honoured: 24 hours.
pub const REQUEST_WINDOW_MS: u64 = 24 * 60 * 60 * 1000;

/// Where games are created and seats claimed.
pub struct Lobby {
    rooms: Arc<Rooms>,
    games: Arc<dyn Games>,
    clock: Arc<dyn Clock>,
    secret: [u8; 32],
    /// This node's cluster, if it is one of several.
    cluster: Option<Arc<Cluster>>,
    /// The games it creates.
    catalog: Catalog,
    /// Answered request ids by hash; held while a keyed call runs, so two
    /// calls with one id never both create.
    requests: Mutex<HashMap<[u8; 32], RequestRecord>>,
    /// The stored request ids, asked on a node of a cluster for ids another
    /// node answered.
    stored: Arc<dyn Requests>,
}

/// A CreateGame's answer.
pub enum Created {
    /// Given here.
    Answer(Box<pb::CreateGameResponse>),
    /// A retry whose game the node at `addr` owns: it answers (forward the
    /// call there).
    Owner {
        /// The owner's address.
        addr: String,
        /// The game created by the first call.
        game_id: String,
    },
}

/// Who makes a game: a client (at its address, whose share of the games in
/// play is limited), the arena (with a secret seed, a duplicate match's), or
/// a practice game's request (a client's game whose seats but the first
/// are the server's bots', with tokens the server can derive again).
#[derive(Clone, Copy)]
enum Creator {
    Client(Option<IpAddr>),
    Arena { seed: u64 },
    Practice(Option<IpAddr>),
}

impl Lobby {
    /// A lobby writing games to `games`, with the request ids of `requests`
    /// answered within the window.
    pub fn new(
        rooms: Arc<Rooms>,
        games: Arc<dyn Games>,
        requests: Arc<dyn Requests>,
        clock: Arc<dyn Clock>,
        cluster: Option<Arc<Cluster>>,
        catalog: Catalog,
    ) -> Result<Lobby, StoreError> {
        let since = clock.now_ms().saturating_sub(REQUEST_WINDOW_MS);
        let secret = requests.secret()?;
        let requests_store = Arc::clone(&requests);
        let requests = requests
            .requests_since(since)?
            .into_iter()
            .map(|r| (r.key, r))
            .collect();
        Ok(Lobby {
            secret,
            rooms,
            games,
            clock,
            cluster,
            catalog,
            requests: Mutex::new(requests),
            stored: requests_store,
        })
    }

    /// The games this server hosts: every request's kind is parsed against
    /// them.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    fn requests(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], RequestRecord>> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The answered request whose id hashes to `key`: in memory, or (on a
    /// node of a cluster) in the database, answered by another node.
    fn answered(
        &self,
        requests: &mut HashMap<[u8; 32], RequestRecord>,
        key: [u8; 32],
    ) -> Result<Option<RequestRecord>, ServiceError> {
        if let Some(done) = requests.get(&key) {
            return Ok(Some(done.clone()));
        }
        if self.cluster.is_none() {
            return Ok(None);
        }
        let since = self.clock.now_ms().saturating_sub(REQUEST_WINDOW_MS);
        let found = self.stored.request(&key)?.filter(|r| r.at_ms >= since);
        if let Some(done) = &found {
            requests.insert(key, done.clone());
        }
        Ok(found)
    }

    /// Forgets request ids older than the window.
    pub fn forget_old(&self) {
        let since = self.clock.now_ms().saturating_sub(REQUEST_WINDOW_MS);
        self.requests().retain(|_, r| r.at_ms >= since);
    }

    /// A seat token: derived from the request id if there is one, else random.
    fn token(&self, request_id: &str, game_id: &str, seat: Seat) -> (String, TokenHash) {
        if request_id.is_empty() {
            auth::new_token()
        } else {
            auth::derived_token(&self.secret, request_id, game_id, seat)
        }
    }

    /// CreateGame (or CreateTestGame's game, as `maker` says) by a client at
    /// `address` (its share of the games in play is limited); `forwarded`
    /// if a peer node sent the call (a retry whose game is elsewhere is then
    /// not sent on).
    pub fn create(
        &self,
        req: Checked<pb::CreateGameRequest>,
        maker: Maker<'_>,
        address: Option<IpAddr>,
        forwarded: bool,
    ) -> Result<Created, ServiceError> {
        let mut req = req.into_inner();
        let request_id = std::mem::take(&mut req.request_id);
        if request_id.is_empty() {
            return self
                .create_new(req, "", None, Creator::Client(address))
                .map(|r| Created::Answer(Box::new(r)));
        }
        let key = auth::digest(request_id.as_bytes());
        let print = fingerprint(&maker.label(), req.encode_to_vec());
        let mut requests = self.requests();
        let again = |done: &RequestRecord| {
            if done.fingerprint != print || done.seat.is_some() {
                return Err(ServiceError::KeyReused {
                    what: "request id",
                    key: clip(&request_id),
                });
            }
            self.created_again(&req, &request_id, &done.game_id, forwarded)
        };
        if let Some(done) = self.answered(&mut requests, key)? {
            return again(&done);
        }
        let record = RequestRecord {
            key,
            fingerprint: print,
            game_id: String::new(),
            seat: None,
            started: false,
            at_ms: self.clock.now_ms(),
        };
        let reply = match self.create_new(
            req.clone(),
            &request_id,
            Some(record.clone()),
            Creator::Client(address),
        ) {
            Ok(reply) => reply,
            // Another node may have answered the same id meanwhile (its
            // record took the key first): answer as it did.
            Err(e) if self.cluster.is_some() => match self.stored.request(&key).ok().flatten() {
                Some(done) => return again(&done),
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        requests.insert(
            key,
            RequestRecord {
                game_id: reply.game_id.clone(),
                ..record
            },
        );
        Ok(Created::Answer(Box::new(reply)))
    }

    /// The test key of a game CreateTestGame made: derived from the request
    /// id if there is one (a retry gets it again), else random.
    pub fn test_key(&self, request_id: &str, game_id: &str) -> (String, TokenHash) {
        if request_id.is_empty() {
            auth::new_token()
        } else {
            auth::derived_test_key(&self.secret, request_id, game_id)
        }
    }

    /// The answer to a retried CreateGame: the same game and tokens, and its
    /// state now; on a node of a cluster, from the game's owner.
    fn created_again(
        &self,
        req: &pb::CreateGameRequest,
        request_id: &str,
        game_id: &str,
        forwarded: bool,
    ) -> Result<Created, ServiceError> {
        let now = self.clock.now_ms();
        let room = match &self.cluster {
            None => self.rooms.load(game_id, now)?,
            Some(cluster) => match cluster.locate(&self.rooms, game_id, now, forwarded)? {
                Located::Here(room) => room,
                Located::There(addr) => {
                    return Ok(Created::Owner {
                        addr,
                        game_id: game_id.to_owned(),
                    });
                }
            },
        };
        let view = room.view(Viewer::Spectator);
        let seats = view
            .seats
            .iter()
            .filter(|s| !req.open_seats.contains(&s.seat))
            .map(|s| pb::SeatToken {
                seat: s.seat,
                name: s.name.clone(),
                token: self.token(request_id, game_id, Seat(s.seat as u8)).0,
            })
            .collect();
        Ok(Created::Answer(Box::new(pb::CreateGameResponse {
            game_id: game_id.to_owned(),
            seats,
            state: Some(view),
        })))
    }

    /// Creates a game for the arena: every seat claimed (the bots act through
    /// their keys, not the tokens returned), played with `seed`, which stays
    /// secret (a duplicate match plays several games with one seed).
    pub fn create_with_secret_seed(
        &self,
        req: Checked<pb::CreateGameRequest>,
        seed: u64,
    ) -> Result<pb::CreateGameResponse, ServiceError> {
        self.create_new(req.into_inner(), "", None, Creator::Arena { seed })
    }

    /// Creates a practice game for a person at `address`: seat 0 is theirs,
    /// with a random token; every other seat's token is derived from the
    /// server secret ([`auth::practice_bot_token`]), so that the server's
    /// bots can play on after a restart or a takeover.
    pub fn create_practice(
        &self,
        req: Checked<pb::CreateGameRequest>,
        address: Option<IpAddr>,
    ) -> Result<pb::CreateGameResponse, ServiceError> {
        self.create_new(req.into_inner(), "", None, Creator::Practice(address))
    }

    /// The token of the server's bot on `seat` of practice game `game_id`
    /// ([`auth::practice_bot_token`]), and its hash.
    pub fn practice_bot_token(&self, game_id: &str, seat: Seat) -> (String, TokenHash) {
        auth::practice_bot_token(&self.secret, game_id, seat)
    }

    /// Creates the game of `req`, which is within its bounds
    /// ([`crate::bounds`]): no count in it is larger than a game's seats.
    fn create_new(
        &self,
        mut req: pb::CreateGameRequest,
        request_id: &str,
        request: Option<RequestRecord>,
        creator: Creator,
    ) -> Result<pb::CreateGameResponse, ServiceError> {
        let secret_seed = match creator {
            Creator::Arena { seed } => Some(seed),
            Creator::Client(_) | Creator::Practice(_) => None,
        };
        let prefix = start_from(&mut req)?;
        let kind = self.catalog.parse(req.kind)?;
        let players = req.players as usize;
        // Bounded before anything per seat is allocated.
        let game_type = kind.descriptor();
        if !game_type.players().contains(&players) {
            return Err(CreateError::Setup(SetupError::PlayerCount {
                game: game_type.name(),
                min: game_type.min_players(),
                max: game_type.max_players(),
                got: players,
            })
            .into());
        }
        let mut open = vec![false; players];
        for &s in &req.open_seats {
            match open.get_mut(s as usize) {
                Some(o) if !*o => *o = true,
                Some(_) => {
                    return Err(ServiceError::invalid(
                        "open_seats",
                        format!("open_seats lists seat {s} twice"),
                    ));
                }
                None => {
                    return Err(ServiceError::invalid(
                        "open_seats",
                        format!(
                            "open_seats lists seat {s}, but the game has seats 0 to {}",
                            players.saturating_sub(1)
                        ),
                    ));
                }
            }
        }
        let claimed: Vec<usize> = (0..players).filter(|&i| !open[i]).collect();
        // Names: none, one per seat, or one per claimed seat (open seats are
        // named by JoinGame).
        let names: Vec<Option<String>> = match req.seat_names.len() {
            0 => vec![None; players],
            n if n == players => {
                // A name for an open seat would be lost when the seat is
                // joined: refused rather than dropped.
                if let Some(s) = (0..players).find(|&s| open[s] && !req.seat_names[s].is_empty()) {
                    return Err(ServiceError::invalid(
                        "seat_names",
                        format!(
                            "seat_names[{s}] names open seat {s}: an open seat is named by the JoinGame that takes it (leave its name empty)"
                        ),
                    ));
                }
                req.seat_names.iter().cloned().map(Some).collect()
            }
            n if n == claimed.len() => {
                let mut names = vec![None; players];
                for (&seat, name) in claimed.iter().zip(&req.seat_names) {
                    names[seat] = Some(name.clone());
                }
                names
            }
            n => {
                return Err(ServiceError::invalid(
                    "seat_names",
                    format!(
                        "seat_names has {n} names for {players} seats ({} claimed): give none, one per seat or one per claimed seat",
                        claimed.len()
                    ),
                ));
            }
        };
        let (seed, seed_chosen) = match (secret_seed, req.seed) {
            (Some(seed), _) => (seed, false),
            (None, Some(seed)) => (seed, true),
            (None, None) => (rand::random(), false),
        };
        let options = req.options.unwrap_or_default();
        // Scripted dice are the creator's choice, as a chosen seed is: never
        // in a game whose seed must stay secret (the arena's).
        if secret_seed.is_some() && !options.chance_script.is_empty() {
            return Err(ServiceError::invalid(
                "options.chance_script",
                "an arena game's dice are secret: it takes no chance script",
            ));
        }
        // The dice gate joins the games of one duplicate match; only the
        // arena makes those.
        if secret_seed.is_none() && options.match_dice_gate {
            return Err(ServiceError::invalid(
                "options.match_dice_gate",
                "only the arena sets match_dice_gate, on the games of a duplicate match",
            ));
        }
        let seed_chosen = seed_chosen || !options.chance_script.is_empty();
        let game = crate::hosted_game::new_game(kind, players, seed, &options)?;
        if !prefix.is_empty() {
            check_prefix(kind, players, seed, &options, &prefix)?;
        }
        let play = self.rooms.reserve(match creator {
            Creator::Client(address) | Creator::Practice(address) => address,
            Creator::Arena { .. } => None,
        })?;
        let id = auth::new_game_id();
        let mut seats = Vec::with_capacity(players);
        let mut tokens = Vec::new();
        for (i, &is_open) in open.iter().enumerate() {
            let name = names[i].clone().unwrap_or_else(|| {
                if is_open {
                    String::new()
                } else {
                    format!("seat {i}")
                }
            });
            if is_open {
                seats.push(SeatSlot { name, token: None });
            } else {
                let (token, hash) = match creator {
                    Creator::Practice(_) if i > 0 => {
                        auth::practice_bot_token(&self.secret, &id, Seat(i as u8))
                    }
                    _ => self.token(request_id, &id, Seat(i as u8)),
                };
                tokens.push(pb::SeatToken {
                    seat: i as u32,
                    name: name.clone(),
                    token,
                });
                seats.push(SeatSlot {
                    name,
                    token: Some(hash),
                });
            }
        }
        let created = self.clock.now_ms();
        // Until its room is added: a cluster's upkeep sees a game leased to
        // this node, not in memory, as one to take over.
        let _creating = self.rooms.creating(&id);
        let failed = |e: StoreError| {
            tracing::warn!(game_id = %id, "creating a game failed: {e}");
            e
        };
        self.games
            .create_game(&GameRecord {
                id: id.clone(),
                kind: game.kind(),
                players,
                seed,
                seed_chosen,
                options: options.clone(),
                created_unix_ms: created,
                seats: seats
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.token.map(|t| (Seat(i as u8), s.name.clone(), t)))
                    .collect(),
                request: request.map(|r| RequestRecord {
                    game_id: id.clone(),
                    ..r
                }),
            })
            .map_err(failed)?;
        // In a cluster the creator takes the game's first lease before anything
        // is written to its log.
        let epoch = match &self.cluster {
            None => Epoch::NONE,
            Some(cluster) => cluster
                .lease_new(&id)
                .map_err(failed)?
                .ok_or_else(|| ServiceError::Moved(clip(&id)))?,
        };
        let clocks = ClockRules::of(&options).map(|r| SeatClocks::new(r, players));
        let setup = Setup {
            id: id.clone(),
            created_unix_ms: created,
            seed,
            seed_chosen,
            options,
            epoch,
        };
        let room = Arc::new(Room::new(setup, game, seats, clocks, created, Some(play)));
        for action in prefix {
            room.apply_prefix(action, self.games.as_ref(), created)?;
        }
        let state = room.view(Viewer::Spectator);
        self.rooms.insert(room);
        // The seed is never logged: it decides the dice of a running game.
        info!(game_id = %id, kind = ?state.kind, players, seed_chosen, "game created");
        Ok(pb::CreateGameResponse {
            game_id: id,
            seats: tokens,
            state: Some(state),
        })
    }

    /// JoinGame.
    pub fn join(
        &self,
        req: Checked<pb::JoinGameRequest>,
    ) -> Result<pb::JoinGameResponse, ServiceError> {
        let mut req = req.into_inner();
        let request_id = std::mem::take(&mut req.request_id);
        let room = self.rooms.load(&req.game_id, self.clock.now_ms())?;
        let now = self.clock.now_ms();
        if request_id.is_empty() {
            return self.claim(&room, &req, "", None, now);
        }
        let key = auth::digest(request_id.as_bytes());
        let print = fingerprint(b"join\0", req.encode_to_vec());
        let mut requests = self.requests();
        if let Some(done) = self.answered(&mut requests, key)? {
            let Some(seat) = done.seat.filter(|_| done.fingerprint == print) else {
                return Err(ServiceError::KeyReused {
                    what: "request id",
                    key: clip(&request_id),
                });
            };
            let name = room
                .view(Viewer::Spectator)
                .seats
                .get(seat.index())
                .map(|s| s.name.clone())
                .unwrap_or_default();
            return Ok(pb::JoinGameResponse {
                seat: Some(pb::SeatToken {
                    seat: seat.0 as u32,
                    name,
                    token: self.token(&request_id, &room.id, seat).0,
                }),
                started: done.started,
            });
        }
        let record = RequestRecord {
            key,
            fingerprint: print,
            game_id: room.id.clone(),
            seat: None,
            started: false,
            at_ms: now,
        };
        let reply = self.claim(&room, &req, &request_id, Some(record.clone()), now)?;
        let seat = reply.seat.as_ref().map(|s| Seat(s.seat as u8));
        requests.insert(
            key,
            RequestRecord {
                seat,
                started: reply.started,
                ..record
            },
        );
        Ok(reply)
    }

    fn claim(
        &self,
        room: &Room,
        req: &pb::JoinGameRequest,
        request_id: &str,
        request: Option<RequestRecord>,
        now: u64,
    ) -> Result<pb::JoinGameResponse, ServiceError> {
        let (claimed, token, hash) =
            room.claim(req.seat, &req.name, self.games.as_ref(), now, |seat| {
                let (token, hash) = self.token(request_id, &room.id, seat);
                (token, hash, request)
            })?;
        self.rooms.add_token(hash);
        info!(game_id = %room.id, seat = claimed.seat.0, started = claimed.started, "seat claimed");
        Ok(pb::JoinGameResponse {
            seat: Some(pb::SeatToken {
                seat: claimed.seat.0 as u32,
                name: claimed.name,
                token,
            }),
            started: claimed.started,
        })
    }
}
