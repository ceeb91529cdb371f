//! A lonely seek says why: after each round of matchmaking, every seek the
//! pool could not match is told on its Seek stream what it waits for and
//! what would help (`SeekWaiting`), once, and again when that changes. The
//! pool's own analysis (`druids_arena::pairing::waiting`) decides the
//! reason; this module words it for the bot's author.

use druids_arena::pairing::pool::{PoolConfig, Seek};
use druids_arena::pairing::waiting::{WaitReason, Waiting};
use druids_contract::{Kind, pb};

use super::{Arena, POINTS_PER_MU, State};

/// What a seek was last told: its reason, and for too few bots their
/// number (a busy pool's other changes are not worth a message each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Told {
    reason: WaitReason,
    bots: usize,
}

impl Told {
    fn of(w: &Waiting) -> Told {
        Told {
            reason: w.reason,
            bots: if w.reason == WaitReason::TooFewBots {
                w.bots
            } else {
                0
            },
        }
    }
}

impl Arena {
    /// Tells each seek still in the pool after a round why it waits, if it
    /// has not been told that already.
    pub(super) fn tell_waiting(&self, st: &mut State, now: u64) {
        let house_after_ms = self
            .house_bots_play()
            .then_some(self.settings.house_bots_after_ms);
        let State { pool, seeks, .. } = st;
        for (id, waiting) in pool.waiting(now) {
            let (Some(seeker), Some(seek)) = (seeks.get_mut(&id), pool.get(id)) else {
                continue;
            };
            let told = Told::of(&waiting);
            if seeker.told == Some(told) {
                continue;
            }
            seeker.told = Some(told);
            let other_rated = pool.compatible(&Seek {
                rated: !seek.rated,
                ..seek.clone()
            });
            let event = pb::SeekWaiting {
                reason: reason(waiting.reason) as i32,
                bots: waiting.bots as u32,
                players_needed: u32::from(waiting.needed),
                window_opens_unix_ms: match waiting.reason {
                    WaitReason::RatingWindow { opens_at_ms } => opens_at_ms.unwrap_or(0),
                    _ => 0,
                },
                other_rated_seeks: other_rated as u32,
                message: words(
                    seek,
                    &waiting,
                    other_rated,
                    pool.config(),
                    house_after_ms,
                    now,
                ),
            };
            let _ = seeker.tx.try_send(Ok(pb::SeekEvent {
                event: Some(pb::seek_event::Event::Waiting(event)),
            }));
        }
    }
}

fn reason(r: WaitReason) -> pb::WaitReason {
    match r {
        WaitReason::TooFewBots => pb::WaitReason::TooFewBots,
        WaitReason::BotsBusy => pb::WaitReason::BotsBusy,
        WaitReason::RatingWindow { .. } => pb::WaitReason::RatingWindow,
    }
}

/// `SeekWaiting.message`: what `seek` waits for and what would help
/// (`house_after_ms`: house bots join a lonely seek after that long).
fn words(
    seek: &Seek<Kind>,
    w: &Waiting,
    other_rated: usize,
    config: &PoolConfig,
    house_after_ms: Option<u64>,
    now: u64,
) -> String {
    let kind = seek.kind.name();
    let rated = if seek.rated { "rated" } else { "unrated" };
    let (lo, hi) = (*seek.players.start(), *seek.players.end());
    let players = if lo == hi {
        format!("{lo} players")
    } else {
        format!("{lo} to {hi} players")
    };
    match w.reason {
        WaitReason::TooFewBots => {
            let bots = match w.bots {
                1 => "1 bot (this one) seeks".to_owned(),
                n => format!("{n} bots (this one included) seek"),
            };
            let missing = usize::from(w.needed).saturating_sub(w.bots);
            let mut help = Vec::new();
            if lo > 2 {
                help.push(format!(
                    "seek smaller games too (min_players 2, `--seek {kind}:2-{hi}`)"
                ));
            }
            if other_rated > 0 {
                let other = if seek.rated { "unrated" } else { "rated" };
                help.push(format!(
                    "seek {other} games ({other_rated} such seek(s) are open)"
                ));
            }
            help.push("challenge bots by id (Challenge)".to_owned());
            help.push("run more bots of your own".to_owned());
            let waits = match house_after_ms {
                Some(after) => {
                    let secs = after.saturating_sub(now.saturating_sub(seek.since_ms));
                    format!(
                        "house bots fill the game in about {} s unless another bot comes first",
                        secs.div_ceil(1000)
                    )
                }
                None => "the seek waits for them".to_owned(),
            };
            format!(
                "{bots} {rated} {kind} games of {players}: a game needs {missing} more; \
                 {waits}. To play sooner: {}",
                help.join(", or ")
            )
        }
        WaitReason::BotsBusy => format!(
            "enough bots seek {rated} {kind} games of {players}, but some of them are \
             playing as many matches as they may at once: the seek waits for their matches \
             to end"
        ),
        WaitReason::RatingWindow { opens_at_ms } => {
            let window = config.window(now.saturating_sub(seek.since_ms));
            let opens = match opens_at_ms {
                Some(at) => format!(
                    "; in {} s it takes any rating",
                    at.saturating_sub(now).div_ceil(1000)
                ),
                None => String::new(),
            };
            format!(
                "enough bots seek {rated} {kind} games of {players}, but none near enough \
                 in rating yet: the window is ±{:.1} in mu (the live rating's skill, as \
                 GetLeaderboard and `druids leaderboard` show it) and widens while the seek \
                 waits{opens}",
                window / POINTS_PER_MU
            )
        }
    }
}
