//! Bots with faults behind the bridge: too slow for their clock, answering
//! garbage or whole actions, choosing their own payments, lost, exiting, or
//! flooding their output. Each game still finishes, the bridge's stderr
//! names the problem, and the server's log holds only the bot's valid
//! choices (and the clock's defaults).

use druids_contract::json::to_json;
use druids_contract::pb;

use super::{
    Scratch, bridge, check_finished, check_only_valid_choices, create, have, random_bot, replay,
    server,
};

/// A test bot with faults, chosen by its first argument (its second is a
/// scratch file). It plays random legal ids (whole actions in mode
/// `actions`) and logs each answer it means as valid as `chose VERSION
/// ACTION` on stderr.
pub(super) const FAULTY_BOT: &str = r##"
import json, os, random, sys, time
mode, marker = sys.argv[1], sys.argv[2]
versions = []

def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

def log(text):
    print(text, file=sys.stderr, flush=True)

def other_payment(action, goods):
    """The building action with another valid Meduris payment: one required
    good replaced by three others the seat has to spare (the rules allow it
    for huts and temples, not offerings); None if there is none.

    A payment of R required goods is exact when it holds R + 2s goods, s of
    them replaced by groups of three; one more replacement stays exact only
    while s < R. Every build needs R >= 2 goods, so a payment of at most 4
    goods (s <= 1) can always take one more; a larger one may already have
    every good replaced (8 copper for a two-good temple is an overpayment)."""
    for kind, body in (action.get("meduris") or {}).items():
        pay = body.get("payment") if kind in ("buildHut", "buildTemple") else None
        if pay is not None and sum(pay.values()) > 4:
            continue
        for g in pay or {}:
            if pay[g] < 1:
                continue
            spare = {k: goods.get(k, 0) - pay[k] for k in pay if k != g}
            extra = []
            for k in sorted(spare, key=lambda k: -spare[k]):
                extra += [k] * max(0, min(spare[k], 3 - len(extra)))
            if len(extra) == 3:
                new = dict(pay, **{g: pay[g] - 1})
                for k in extra:
                    new[k] += 1
                other = json.loads(json.dumps(action))
                other["meduris"][kind]["payment"] = new
                return other
    return None

others = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        restarts = msg["restarts"]
        log(f"start restarts={restarts}")
    elif msg["type"] == "game_end":
        break
    elif msg["type"] != "decision":
        log(f"notice {msg['type']}")
    else:
        v, attempt = msg["version"], msg["attempt"]
        log(f"asked {v} {attempt}")
        if v not in versions:
            versions.append(v)
        nth = versions.index(v) + 1
        other = None
        entry = random.choice([a for a in msg["legal_actions"] if a.get("id") is not None])
        if mode == "lost" and restarts == 0:
            say("???")
            continue
        if mode == "garbage" and nth <= 3 and attempt == 1:
            say("this is not json {")
            continue
        if mode == "garbage" and nth <= 3 and attempt == 2:
            say(json.dumps({"id": 99999, "version": v}))
            continue
        if mode == "flood" and nth == 1 and attempt == 1:
            say("x" * 100000)
            continue
        if mode == "flood":
            for i in range(300):
                say(f"# spam {i}")
        if mode == "slow":
            time.sleep(0.02)
        if mode == "sleep" and nth == 1:
            time.sleep(1.5)
        answer = json.dumps({"id": entry["id"], "version": v})
        if mode == "actions":
            if nth <= 5 and attempt == 1:
                say(json.dumps({"action": {"dolmen": {}}, "version": v}))
                continue
            answer = json.dumps({"action": entry["action"], "version": v})
        if mode == "payments" and attempt == 1 and others < 5:
            me = msg["state"]["meduris"]["seats"][msg["seat"]]
            for e in msg["legal_actions"]:
                other = other_payment(e["action"], me.get("goods") or {})
                if other is not None:
                    others += 1
                    log(f"chose {v} {json.dumps(other)}")
                    log(f"other payment {v} {json.dumps(other)}")
                    say(json.dumps({"action": other, "version": v}))
                    break
            if other is not None:
                continue
        log(f"chose {v} {json.dumps(entry['action'])}")
        say(answer)
        if mode == "flood" and nth == 1:
            for _ in range(20000):
                say(answer)
        if mode == "exit" and not os.path.exists(marker):
            open(marker, "w").close()
            sys.exit(3)
"##;

/// Plays a 2-player `game` with the faulty bot in `mode` on seat 0 (the
/// built-in random bot on seat 1); checks the game and returns the bridge's
/// summary, its stderr and the game's replay.
fn faulty_game(mode: &str, game: &str, extra: &[&str]) -> (serde_json::Value, String, pb::Replay) {
    assert!(have("python3"), "python3 is needed for the faulty bots");
    let url = server();
    let dir = Scratch::new(mode);
    let script = dir.path("faulty_bot.py");
    std::fs::write(&script, FAULTY_BOT).unwrap();
    let exec = format!(
        "python3 {} {mode} {}",
        script.display(),
        dir.path("marker").display()
    );
    let (id, tokens) = create(&url, game, extra);
    let opponent = random_bot(&url, &id, &tokens[1], &dir, "random");
    let (summary, err) = bridge(&url, &id, &tokens[0], &exec, &dir, "bridge").finish();
    opponent.finish();
    let replay = replay(&url, &id, &dir);
    check_finished(&summary, &replay);
    check_only_valid_choices(&err, &replay);
    (summary, err, replay)
}

/// A bot that sleeps past its turn clock: the server's default is applied,
/// the bot is told, and its late answer is discarded, not submitted.
#[test]
fn a_bot_too_slow_for_its_clock_is_covered_by_the_clock() {
    let (_, err, _) = faulty_game("sleep", "meduris", &["--decision-ms", "300"]);
    assert!(
        err.contains("the turn clock (the bot did not answer in time) decided"),
        "{err}"
    );
    assert!(err.contains("[bot seat 0] notice timed_out"), "{err}");
    assert!(
        err.contains("late answer to the decision of version"),
        "{err}"
    );
}

/// A bot that answers garbage, then an illegal id, then a good id: each bad
/// answer is named on stderr and the bot is asked again; nothing illegal
/// reaches the server.
#[test]
fn a_bot_answering_garbage_is_asked_again() {
    let (summary, err, _) = faulty_game("garbage", "dolmen", &[]);
    assert!(err.contains("unusable: not JSON"), "{err}");
    assert!(
        err.contains("unusable: id 99999 is not a legal action id of this decision"),
        "{err}"
    );
    assert!(err.contains("asking the bot again"), "{err}");
    assert!(err.contains("[bot seat 0] notice rejected"), "{err}");
    assert_eq!(summary["restarts"], 0);
}

/// A bot that answers with whole actions: one that is not legal (an action
/// of the other game) is named and never submitted; legal ones are played.
#[test]
fn a_bot_answering_whole_actions_is_checked_against_every_legal_action() {
    let (summary, err, _) = faulty_game("actions", "meduris", &[]);
    assert!(
        err.contains("unusable: the action is not legal now"),
        "{err}"
    );
    assert_eq!(err.matches("asking the bot again").count(), 5, "{err}");
    assert_eq!(summary["restarts"], 0);
}

/// A bot that pays for Meduris buildings differently from the listed
/// payments, with whole actions: the bridge finds them among all legal
/// payments and the server applies them.
#[test]
fn a_bot_choosing_its_own_meduris_payments_is_served() {
    let (_, err, replay) = faulty_game("payments", "meduris", &[]);
    assert!(!err.contains("unusable"), "{err}");
    let applied = err
        .lines()
        .filter_map(|l| l.split_once("[bot seat 0] other payment "))
        .filter(|(_, rest)| {
            let (v, action) = rest.split_once(' ').unwrap();
            let action: serde_json::Value = serde_json::from_str(action).unwrap();
            let done = &replay.actions[v.parse::<usize>().unwrap()];
            !done.timeout && to_json(done.action.as_ref().unwrap()) == action
        })
        .count();
    assert!(
        applied > 0,
        "a payment of the bot's own was applied:\n{err}"
    );
}

/// A bot that never answers usably is restarted after ten tries at one
/// decision; the new process plays.
#[test]
fn a_lost_bot_is_restarted() {
    let (summary, err, _) = faulty_game("lost", "dolmen", &[]);
    assert!(
        err.contains("the bot gave 10 unusable answers to one decision; restarting it"),
        "{err}"
    );
    assert_eq!(err.matches("unusable: not JSON").count(), 10, "{err}");
    assert_eq!(summary["restarts"], 1);
}

/// A bot that exits after its first move is restarted, gets the game again
/// and plays on.
#[test]
fn a_bot_that_exits_is_restarted() {
    let (summary, err, _) = faulty_game("exit", "dolmen", &["--decision-ms", "5000"]);
    assert!(
        err.contains("the bot exited (exit status: 3); restarting it"),
        "{err}"
    );
    assert!(err.contains("[bot seat 0] start restarts=1"), "{err}");
    assert_eq!(summary["restarts"], 1);
}

/// A bot that floods stdout: an over-long line, hundreds of log lines per
/// decision and twenty thousand repeated answers. The excess is dropped with
/// warnings and the game goes on.
#[test]
fn a_bot_flooding_its_output_is_contained() {
    let (_, err, _) = faulty_game("flood", "meduris", &[]);
    assert!(
        err.contains("unusable: the line is 100000 bytes long, over the limit of 65536"),
        "{err}"
    );
    assert!(err.contains("answers no pending question"), "{err}");
    assert!(
        err.contains("log lines of the bot over the limit of 200 per decision"),
        "{err}"
    );
    assert!(
        !err.contains("spam 200"),
        "log lines over the limit are not passed on"
    );
}
