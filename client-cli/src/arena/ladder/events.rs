//! `druids bot --events`: the bot follows its own event log
//! (StreamBotEvents) and plays the games of matches it did not seek itself:
//! tournament rounds and challenges. With `--accept-challenges` it accepts
//! every `challenge_received`. It runs beside the seeks of `--seek` (or
//! alone) in the same [`Ladder`], so a game the Seek stream names too is
//! played once: every game id is claimed by whichever names it first.
//!
//! The log is kept from seq 1, and a process that just started must neither
//! replay old games nor miss a game in progress (a bot restarted in the
//! middle of a tournament). So the log is read from seq 1; events from
//! before the process started are history: a `game_started` there is kept
//! aside until a later `game_finished` (or its `match_finished`) in the log
//! shows the game is over, and challenges until they end or expire. Once the
//! log reaches the present (an event newer than the start, or a second
//! without events), what is left is played, each game after GetState says
//! it is not over yet, and the pending challenges are accepted. From then on
//! every `game_started` is played at once. A dropped stream resumes from the
//! last seq seen + 1, with a few retries and a growing pause. It follows
//! until Ctrl-C (`--games` limits only the seeks); the games in progress
//! are then played to their end.
//!
//! Like the seeks it prints one JSON line per game played ([`game_line`]) and
//! one per match finished that it played for (matches of this process's
//! seeks are printed by the seek).
//!
//! [`game_line`]: crate::arena::ladder::lines::game_line

use std::sync::Arc;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::bot_event::Event;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_stream::StreamExt;
use tonic::Status;

use crate::arena::challenge::challenge_text;
use crate::arena::client::arena_error;
use crate::arena::ladder::state::{Ladder, stopped};
use crate::arena::resume::Resume;
use crate::connect::{CliError, authed};
use crate::render::time::now_ms;
use crate::retry::code_name;
use crate::seat::follow::get_state;

/// How long a log without new events counts as read to the present.
const CATCH_UP: Duration = Duration::from_secs(1);

/// What the log asks the bot to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Play this game (it started while the process runs).
    Play(pb::MatchGame),
    /// Play this game if GetState says it is not over (it started before).
    PlayUnlessOver(pb::MatchGame),
    /// Accept this challenge.
    Accept(pb::ChallengeInfo),
    /// A match of the bot is over: its line (unless a seek prints it).
    Finished(pb::MatchFinished),
}

/// The bot's event log as read so far: history kept aside until the log
/// reaches the present (see the module).
#[derive(Debug, Default)]
pub struct Log {
    /// When the process started, ms since the Unix epoch.
    start_ms: u64,
    /// Whether the log reached the present.
    live: bool,
    /// Accept challenges.
    accept: bool,
    /// Games started before `start_ms` with no end seen yet, in log order.
    pending: Vec<pb::MatchGame>,
    /// Challenges received before `start_ms` that did not end yet.
    challenges: Vec<pb::ChallengeInfo>,
}

impl Log {
    /// A log read by a process started at `start_ms`.
    pub fn new(start_ms: u64, accept: bool) -> Log {
        Log {
            start_ms,
            accept,
            ..Log::default()
        }
    }

    /// Whether the log reached the present.
    pub fn live(&self) -> bool {
        self.live
    }

    /// The log reached the present: the history's games still open and its
    /// challenges not yet expired.
    pub fn catch_up(&mut self) -> Vec<Action> {
        self.live = true;
        let mut actions: Vec<Action> = self.pending.drain(..).map(Action::PlayUnlessOver).collect();
        let start = self.start_ms;
        actions.extend(
            self.challenges
                .drain(..)
                .filter(|c| c.expires_unix_ms > start)
                .map(Action::Accept),
        );
        actions
    }

    /// The next event of the log.
    pub fn event(&mut self, e: pb::BotEvent) -> Vec<Action> {
        // A heartbeat (the stream is quiet) is not an event of the log.
        if matches!(e.event, Some(Event::Heartbeat(_))) {
            return Vec::new();
        }
        let old = e.at_unix_ms < self.start_ms && !self.live;
        let mut actions = Vec::new();
        if !old && !self.live {
            actions = self.catch_up();
        }
        match e.event {
            Some(Event::GameStarted(g)) if old => self.pending.push(g),
            Some(Event::GameStarted(g)) => actions.push(Action::Play(g)),
            Some(Event::GameFinished(f)) => self.pending.retain(|g| g.game_id != f.game_id),
            Some(Event::MatchFinished(m)) if old => {
                self.pending.retain(|g| g.match_id != m.match_id)
            }
            Some(Event::MatchFinished(m)) => actions.push(Action::Finished(m)),
            Some(Event::ChallengeReceived(c)) if self.accept && old => self.challenges.push(c),
            Some(Event::ChallengeReceived(c)) if self.accept => actions.push(Action::Accept(c)),
            Some(Event::ChallengeEnded(c)) => {
                self.challenges.retain(|p| p.challenge_id != c.challenge_id)
            }
            _ => {}
        }
        actions
    }
}

/// Whether the game is over already (finished or abandoned); on an error,
/// false: the attempt to play it will say what is wrong.
async fn over(ladder: &Ladder, game_id: &str) -> bool {
    let mut client = ladder.client.clone();
    match get_state(&mut client, game_id, Some(&ladder.key)).await {
        Ok(view) => [pb::GameStatus::Finished, pb::GameStatus::Abandoned]
            .iter()
            .any(|&s| view.status == s as i32),
        Err(_) => false,
    }
}

/// Does what the log asks.
fn act(ladder: &Arc<Ladder>, action: Action, tasks: &mut JoinSet<()>) {
    match action {
        Action::Play(g) => ladder.start_game("events", g, tasks),
        Action::PlayUnlessOver(g) => {
            if !ladder.claim(&g.game_id) {
                return;
            }
            let ladder = Arc::clone(ladder);
            tasks.spawn(async move {
                if over(&ladder, &g.game_id).await {
                    return;
                }
                eprintln!(
                    "[events] resuming game {} of match {}: {} in seat {}",
                    g.index, g.match_id, g.game_id, g.seat
                );
                ladder.play(g).await;
            });
        }
        Action::Accept(c) => {
            let ladder = Arc::clone(ladder);
            tasks.spawn(async move {
                eprintln!("[events] accepting {}", challenge_text(&c));
                let request = pb::AnswerChallengeRequest {
                    challenge_id: c.challenge_id.clone(),
                    accept: true,
                    ..Default::default()
                };
                let Ok(request) = authed(Some(&ladder.key), request) else {
                    return;
                };
                let mut arena = ladder.arena.clone();
                match arena.answer_challenge(request).await {
                    Ok(r) if !r.get_ref().match_id.is_empty() => {
                        eprintln!("[events] match {} starts", r.get_ref().match_id)
                    }
                    Ok(_) => {}
                    Err(s) => eprintln!(
                        "[events] challenge {}: {}: {}",
                        c.challenge_id,
                        code_name(s.code()),
                        s.message()
                    ),
                }
            });
        }
        Action::Finished(m) => {
            let sought = ladder.sought.lock().expect("no panics while locked");
            if !sought.contains(&m.match_id) {
                ladder.finished("events", &m);
            }
        }
    }
}

/// How reading the stream stopped.
enum Ended {
    /// Ctrl-C.
    Stop,
    /// The stream dropped (an error) or ended.
    Dropped(Result<(), Status>),
}

/// Follows the bot's events until a stop (see the module); games in
/// progress are played to their end.
pub async fn follow(ladder: Arc<Ladder>, mut stop: watch::Receiver<bool>) -> Result<(), CliError> {
    let mut log = Log::new(now_ms(), ladder.accept_challenges);
    let mut resume = Resume::from(1);
    let mut tasks: JoinSet<()> = JoinSet::new();
    let result = loop {
        let request = authed(
            Some(&ladder.key),
            pb::StreamBotEventsRequest {
                from_seq: resume.next,
            },
        )?;
        let mut arena = ladder.arena.clone();
        let ended = tokio::select! {
            opened = arena.stream_bot_events(request) => match opened {
                Ok(reply) => {
                    let mut stream = reply.into_inner();
                    loop {
                        tokio::select! {
                            next = stream.next() => match next {
                                Some(Ok(e)) => {
                                    resume.seen(e.seq);
                                    for action in log.event(e) {
                                        act(&ladder, action, &mut tasks);
                                    }
                                }
                                Some(Err(s)) => break Ended::Dropped(Err(s)),
                                None => break Ended::Dropped(Ok(())),
                            },
                            _ = tokio::time::sleep(CATCH_UP), if !log.live() => {
                                for action in log.catch_up() {
                                    act(&ladder, action, &mut tasks);
                                }
                            }
                            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                            _ = stopped(&mut stop) => break Ended::Stop,
                        }
                    }
                }
                Err(s) => Ended::Dropped(Err(s)),
            },
            _ = stopped(&mut stop) => Ended::Stop,
        };
        let Ended::Dropped(dropped) = ended else {
            break Ok(());
        };
        let Some(pause) = resume.retry(dropped.as_ref().err()) else {
            break Err(match dropped {
                Err(s) => arena_error(&ladder.server, s),
                Ok(()) => CliError::Protocol("the bot's event stream kept ending".into()),
            });
        };
        let why = match &dropped {
            Err(s) => format!("{}: {}", code_name(s.code()), s.message()),
            Ok(()) => "ended".into(),
        };
        eprintln!(
            "[events] the event stream dropped ({why}); resuming from #{} in {pause:.1?}",
            resume.next
        );
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopped(&mut stop) => break Ok(()),
        }
    };
    while tasks.join_next().await.is_some() {}
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seq: u64, at_unix_ms: u64, event: Event) -> pb::BotEvent {
        pb::BotEvent {
            seq,
            at_unix_ms,
            event: Some(event),
        }
    }

    fn game(m: &str, g: &str) -> pb::MatchGame {
        pb::MatchGame {
            match_id: m.into(),
            game_id: g.into(),
            ..Default::default()
        }
    }

    fn challenge(id: &str, expires_unix_ms: u64) -> pb::ChallengeInfo {
        pb::ChallengeInfo {
            challenge_id: id.into(),
            expires_unix_ms,
            ..Default::default()
        }
    }

    #[test]
    fn history_is_played_only_where_it_is_not_over() {
        let mut log = Log::new(1000, true);
        let finished = |m: &str, g: &str| {
            Event::GameFinished(pb::MatchGameFinished {
                match_id: m.into(),
                game_id: g.into(),
                ..Default::default()
            })
        };
        let history = [
            at(1, 10, Event::GameStarted(game("m1", "g1"))),
            at(2, 11, finished("m1", "g1")),
            at(3, 12, Event::GameStarted(game("m2", "g2"))),
            at(4, 13, Event::GameStarted(game("m3", "g3"))),
            at(
                5,
                14,
                Event::MatchFinished(pb::MatchFinished {
                    match_id: "m3".into(),
                    placements: vec![],
                }),
            ),
            at(6, 15, Event::ChallengeReceived(challenge("c1", 2000))),
            at(7, 16, Event::ChallengeReceived(challenge("c2", 999))),
            at(8, 17, Event::ChallengeReceived(challenge("c3", 5000))),
            at(
                9,
                18,
                Event::ChallengeEnded(pb::ChallengeEnded {
                    challenge_id: "c3".into(),
                    reason: "expired".into(),
                    ..Default::default()
                }),
            ),
        ];
        for e in history {
            assert_eq!(log.event(e), vec![], "history is kept aside");
        }
        assert!(!log.live());
        // A heartbeat, sent now, is not an event of the present.
        let beat = at(9, 1000, Event::Heartbeat(pb::Heartbeat {}));
        assert_eq!(log.event(beat), vec![]);
        assert!(!log.live());
        // The first event of the present flushes what is left, then counts.
        let actions = log.event(at(10, 1001, Event::GameStarted(game("m4", "g4"))));
        assert_eq!(
            actions,
            vec![
                Action::PlayUnlessOver(game("m2", "g2")),
                Action::Accept(challenge("c1", 2000)),
                Action::Play(game("m4", "g4")),
            ]
        );
        assert!(log.live());
        let end = pb::MatchFinished {
            match_id: "m4".into(),
            placements: vec![],
        };
        assert_eq!(
            log.event(at(11, 1002, Event::MatchFinished(end.clone()))),
            vec![Action::Finished(end)]
        );
    }

    #[test]
    fn a_quiet_log_catches_up_and_challenges_need_the_flag() {
        let mut log = Log::new(1000, false);
        log.event(at(1, 10, Event::GameStarted(game("m1", "g1"))));
        log.event(at(2, 11, Event::ChallengeReceived(challenge("c1", 2000))));
        assert_eq!(
            log.catch_up(),
            vec![Action::PlayUnlessOver(game("m1", "g1"))]
        );
        assert_eq!(
            log.event(at(3, 1500, Event::ChallengeReceived(challenge("c2", 3000)))),
            vec![]
        );
        // Live events stay live even when the server's clock is behind.
        assert_eq!(
            log.event(at(4, 5, Event::GameStarted(game("m2", "g2")))),
            vec![Action::Play(game("m2", "g2"))]
        );
        let mut accepting = Log::new(1000, true);
        assert_eq!(
            accepting.event(at(1, 1500, Event::ChallengeReceived(challenge("c2", 3000)))),
            vec![Action::Accept(challenge("c2", 3000))]
        );
    }
}
