//! House bots, the arena's side: built-in bots the server registers and
//! seats itself, so that a lone seek gets a game within seconds (issue 29).
//!
//! They never crowd out real bots: a house bot never waits in the pool. Only
//! when a real bot's seek has waited `--house-bots-after-ms` for want of
//! bots (`WaitReason::TooFewBots`) does the round put idle house bots in the
//! pool beside it, rated close to it so that no window holds them apart,
//! form what it can, and take back every house seek the pool did not use,
//! all in the same round. A real bot that comes later meets real bots first.
//!
//! Each level is one registered bot (`house-random`, `house-greedy`,
//! `house-mcts-100`, ...) that plays every game kind: its ratings are per
//! pool like anyone's, and as fixed-strength players they anchor the rating
//! scale. `BotRef.house` marks them. Who plays their seats (and on what CPU)
//! is not the arena's business: each house seek's events go to the
//! receiver given to [`Arena::start_house_bots`] (`crate::house_bots`).

use druids_arena::pairing::BotId;
use druids_arena::pairing::pool::{Match, Seek};
use druids_arena::pairing::waiting::WaitReason;
use druids_arena::ratings::LiveRating;
use druids_bots::Strategy;
use druids_contract::{Kind, pb};
use tokio::sync::mpsc;

use super::bots::{BotNo, HOUSE_CONTACT, new_key, public_id};
use super::{Arena, SeekSender, Seeker, State};
use crate::store::{BotRecord, StoreError};

pub use crate::house_levels::{Level, Levels};

/// Buffer of a Seek or StreamBotEvents stream (a house bot's and a
/// client's alike).
pub(crate) const STREAM_BUFFER: usize = 32;

/// A house seek the arena opened: its bot, the game, and the seek's events
/// (the match and its games) for whoever plays the bot's seats.
pub struct HouseSeek {
    /// The house bot.
    pub bot: BotNo,
    /// Its game.
    pub kind: Kind,
    /// The seek's events.
    pub events: mpsc::Receiver<Result<druids_contract::pb::SeekEvent, tonic::Status>>,
}

/// A house bot ready to play: its number, level and a fresh key.
pub struct HouseBot {
    /// The bot.
    pub no: BotNo,
    /// Its level.
    pub level: Level,
    /// A key made at start-up (the stored hash is replaced).
    pub key: String,
}

/// The house bots of a running arena.
#[derive(Default)]
pub(super) struct House {
    bots: Vec<BotNo>,
    seeks: Option<mpsc::UnboundedSender<HouseSeek>>,
}

impl House {
    pub(super) fn is_house(&self, bot: BotNo) -> bool {
        self.bots.contains(&bot)
    }
}

impl Arena {
    /// Registers a house bot per level (or finds it from an earlier run),
    /// gives each a fresh key, and from now on calls them into the pool,
    /// sending each seek to `seeks`. Blocks on the store.
    pub fn start_house_bots(
        &self,
        levels: &[Level],
        seeks: mpsc::UnboundedSender<HouseSeek>,
    ) -> Result<Vec<HouseBot>, StoreError> {
        let mut ready = Vec::new();
        for &level in levels {
            let name = level.name();
            let existing = {
                let bots = self.bots();
                bots.by_name(&name)
                    .map(|no| (no, bots.get(no).map(|b| b.owner_contact.clone())))
            };
            let (key, hash) = new_key();
            let no = match existing {
                Some((no, Some(contact))) if contact == HOUSE_CONTACT => {
                    self.store.set_bot_key(&public_id(no), &hash)?;
                    self.bots
                        .write()
                        .unwrap_or_else(|p| p.into_inner())
                        .set_key(no, hash);
                    no
                }
                Some(_) => {
                    tracing::warn!(%name, "a bot of another owner has this name: no such house bot");
                    continue;
                }
                None => {
                    let no: BotNo = rand::random();
                    let record = BotRecord {
                        id: public_id(no),
                        name: name.clone(),
                        description: format!(
                            "a house bot of this server ({}): the built-in {} strategy{}",
                            "it plays any game when a seek lacks opponents",
                            level.strategy.name(),
                            match level.strategy {
                                Strategy::Mcts =>
                                    format!(" with {} iterations per decision", level.iterations),
                                _ => String::new(),
                            }
                        ),
                        owner_contact: HOUSE_CONTACT.to_owned(),
                        key_hash: hash,
                        registered_unix_ms: self.clock.now_ms(),
                        revoked_unix_ms: None,
                    };
                    if !self.store.register_bot(&record)? {
                        tracing::warn!(%name, "the house bot's name is taken: skipped");
                        continue;
                    }
                    self.bots
                        .write()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(record);
                    no
                }
            };
            ready.push(HouseBot { no, level, key });
        }
        {
            let mut house = self.house.lock().unwrap_or_else(|p| p.into_inner());
            house.bots = ready.iter().map(|b| b.no).collect();
            house.seeks = Some(seeks);
        }
        self.play_resumed_house_seats();
        tracing::info!(
            // Names and ids: what a challenge names.
            bots = %ready
                .iter()
                .map(|b| format!("{} {}", b.level.name(), public_id(b.no)))
                .collect::<Vec<_>>()
                .join(", "),
            "house bots ready"
        );
        Ok(ready)
    }

    /// Hands the house bots' player the seats of house bots in matches a
    /// restart put back into play ([`super::resume`]): those have no Seek
    /// streams, and their bots (real ones) come back through their event
    /// logs, which house bots do not read. Each such seat gets a stream now,
    /// told the starts of the match's games still running, so that the
    /// house bot plays them instead of leaving them to the turn clock's
    /// autopilot.
    fn play_resumed_house_seats(&self) {
        let mut st = self.state();
        for run in st.matches.values_mut() {
            // A match in play since this start has the streams it needs.
            if run.streams.iter().any(Option::is_some) {
                continue;
            }
            run.streams = self.house_streams(run.record.kind, &run.bots);
            for (index, game_id) in run.game_ids.iter().enumerate() {
                if run.outcomes.get(index).is_some_and(Option::is_some) {
                    continue;
                }
                for (seat, bot) in run.seating(index).into_iter().enumerate() {
                    let i = run.bots.iter().position(|&b| b == bot);
                    if let Some(Some(tx)) = i.and_then(|i| run.streams.get(i)) {
                        let game = super::matches::match_game(run, index, game_id, seat);
                        let _ = tx.try_send(Ok(pb::SeekEvent {
                            event: Some(pb::seek_event::Event::GameStarted(game)),
                        }));
                    }
                }
            }
        }
    }

    /// The public ids of this server's house bots, once registered (what
    /// a challenge names; also in the start-up log).
    pub fn house_bot_ids(&self) -> Vec<String> {
        let house = self.house.lock().unwrap_or_else(|p| p.into_inner());
        house.bots.iter().map(|&no| public_id(no)).collect()
    }

    /// Whether bot `no` is one of this server's house bots.
    pub fn is_house(&self, no: BotNo) -> bool {
        self.house
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_house(no)
    }

    /// A Seek stream for each house bot of `bots` (`None` for the others),
    /// each handed to the house bots' player: the games of a match a house
    /// bot accepted by challenge are played like those of its seeks.
    pub(super) fn house_streams(&self, kind: Kind, bots: &[BotNo]) -> Vec<Option<SeekSender>> {
        let house = self.house.lock().unwrap_or_else(|p| p.into_inner());
        bots.iter()
            .map(|&bot| {
                let player = house.seeks.as_ref().filter(|_| house.is_house(bot))?;
                let (tx, rx) = mpsc::channel(STREAM_BUFFER);
                player
                    .send(HouseSeek {
                        bot,
                        kind,
                        events: rx,
                    })
                    .ok()?;
                Some(tx)
            })
            .collect()
    }

    /// Whether house bots join lonely seeks here: started, with a level.
    pub(super) fn house_bots_play(&self) -> bool {
        let house = self.house.lock().unwrap_or_else(|p| p.into_inner());
        house.seeks.is_some() && !house.bots.is_empty()
    }

    /// The round's house call (see the module's doc): for each real seek
    /// that has waited long enough for want of bots, idle house bots join
    /// the pool for one formation; those the pool did not use leave it.
    /// The matches that formation made, for the round's pass to open
    /// ([`super::pass`]).
    pub(super) fn call_house_bots(&self, st: &mut State, now: u64) -> Vec<Match<Kind>> {
        let (bots, sender) = {
            let house = self.house.lock().unwrap_or_else(|p| p.into_inner());
            match &house.seeks {
                Some(tx) if !house.bots.is_empty() => (house.bots.clone(), tx.clone()),
                _ => return Vec::new(),
            }
        };
        let after = self.settings.house_bots_after_ms;
        let lonely: Vec<Seek<Kind>> = st
            .pool
            .waiting(now)
            .into_iter()
            .filter(|(_, w)| w.reason == WaitReason::TooFewBots)
            .filter_map(|(id, _)| st.pool.get(id).cloned())
            .filter(|s| !bots.contains(&s.bot.0) && s.since_ms.saturating_add(after) <= now)
            .collect();
        if lonely.is_empty() {
            return Vec::new();
        }
        let mut called = Vec::new();
        for seek in lonely {
            // Idle house bots (not playing as many matches as they may, not
            // called for this round yet), as many as its largest game lacks:
            // those rated nearest the seeker in its pool first (then the
            // least known), so that a seeker meets the house bots of its
            // strength and every level gets to play, not the first levels
            // of `--house-bots` always. Each joins at the seeker's rating,
            // so that the pool forms the game it was called for.
            let wanted = usize::from(*seek.players.end()).saturating_sub(1);
            let key = (seek.kind, u32::from(*seek.players.end()));
            let idle = bots
                .iter()
                .copied()
                .filter(|b| {
                    st.playing.get(b).copied().unwrap_or(0) < self.settings.bot_max_games
                        && !called.iter().any(|(_, c)| c == b)
                })
                .map(|b| (b, st.ratings.live(key, b)));
            let idle: Vec<BotNo> = nearest_first(seek.rating, idle)
                .into_iter()
                .take(wanted)
                .collect();
            for bot in idle {
                let id = druids_arena::pairing::pool::SeekId(st.next_seek);
                st.next_seek += 1;
                let playing = st.playing.get(&bot).copied().unwrap_or(0);
                st.pool
                    .set_load(BotId(bot), playing, self.settings.bot_max_games);
                let house_seek = Seek {
                    id,
                    bot: BotId(bot),
                    since_ms: now,
                    ..seek.clone()
                };
                if st.pool.add(house_seek).is_err() {
                    continue;
                }
                let (tx, rx) = mpsc::channel(STREAM_BUFFER);
                st.seeks.insert(
                    id,
                    Seeker {
                        bot,
                        tx,
                        // Never told: it leaves the pool this round if unused.
                        told: None,
                    },
                );
                called.push((id, bot));
                let _ = sender.send(HouseSeek {
                    bot,
                    kind: seek.kind,
                    events: rx,
                });
            }
        }
        let formed = st.pool.form(now);
        // The house seeks the pool did not use leave it (their receivers
        // see the stream end).
        for (id, _) in called {
            if st.pool.remove(id).is_some() {
                st.seeks.remove(&id);
            }
        }
        formed
    }
}

/// `bots` with their live ratings, those rated nearest `rating` (the display
/// scale) first, then the least known (largest σ), then by number.
fn nearest_first(rating: f64, bots: impl Iterator<Item = (BotNo, LiveRating)>) -> Vec<BotNo> {
    let mut bots: Vec<(f64, f64, BotNo)> = bots
        .map(|(b, live)| ((super::pool_rating(live.mu) - rating).abs(), live.sigma, b))
        .collect();
    bots.sort_by(|x, y| {
        x.0.total_cmp(&y.0)
            .then(y.1.total_cmp(&x.1))
            .then(x.2.cmp(&y.2))
    });
    bots.into_iter().map(|(_, _, b)| b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn house_bots_rated_nearest_the_seeker_come_first() {
        let live = |mu: f64, sigma: f64| LiveRating {
            mu,
            sigma,
            games: 0,
        };
        // Levels as `--house-bots random,greedy,mcts-100` would number them.
        let (random, greedy, mcts) = (1, 2, 3);
        let bots = || {
            [
                (random, live(20.0, 2.0)),
                (greedy, live(25.0, 2.0)),
                (mcts, live(31.0, 2.0)),
            ]
            .into_iter()
        };
        let at = |mu| super::super::pool_rating(mu);
        assert_eq!(nearest_first(at(30.0), bots()), vec![mcts, greedy, random]);
        assert_eq!(nearest_first(at(19.0), bots()), vec![random, greedy, mcts]);
        // Equally near: the least known first.
        let tied = [(random, live(25.0, 3.0)), (greedy, live(25.0, 5.0))];
        assert_eq!(
            nearest_first(at(25.0), tied.into_iter()),
            vec![greedy, random]
        );
    }

    #[test]
    fn levels_read_and_name_themselves() {
        let levels: Vec<Level> = ["random", "greedy", "mcts-100"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let names: Vec<String> = levels.iter().map(Level::name).collect();
        assert_eq!(names, ["house-random", "house-greedy", "house-mcts-100"]);
        assert!("mcts".parse::<Level>().is_err());
        assert!("mcts-0".parse::<Level>().is_err());
        assert!("chess".parse::<Level>().is_err());
    }
}
