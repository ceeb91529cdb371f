#!/usr/bin/env python3
"""A random druids bot for the line protocol of `druids bot --exec`.

Plays either game (Meduris or Die Dolmengoetter): it picks a random legal
action id for every decision. Standard library only. Run it with

    druids bot --game-id ID --token TOKEN --exec "python3 bots/exec/random_bot.py"

The protocol is in docs/bot-protocol.md: one JSON object per line on stdin,
one answer line per "decision" message on stdout; "#" lines and stderr are logs.
"""
import json
import random
import sys


def log(text):
    # stderr is passed through to the bridge's stderr.
    print(text, file=sys.stderr, flush=True)


def answer(obj):
    # One line per decision; flush, or the bridge waits for the buffer.
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    rng = random.Random()
    seat = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "start":
            if msg["protocol"] != 1:
                log(f"unknown protocol {msg['protocol']}")
                return 1
            seat = msg["seat"]
            log(f"seat {seat} of {msg['players']} in {msg['kind']} game {msg['game_id']}")
        elif kind == "decision":
            ids = [a["id"] for a in msg["legal_actions"] if a.get("id") is not None]
            choice = rng.choice(ids)
            # Echoing the version lets the bridge tell a late answer apart.
            answer({"id": choice, "version": msg["version"]})
        elif kind == "rejected":
            log(f"answer rejected: {msg['reason']}")
        elif kind == "timed_out":
            log(f"too slow at version {msg['version']}: the clock decided")
        elif kind == "game_end":
            outcome = msg["outcome"] or {}
            log(f"game over ({msg['status']}): scores {outcome.get('scores')}, "
                f"winners {outcome.get('winners')}")
            return 0
        # Other types ("autopilot", and any added later) need no answer.
    return 0


if __name__ == "__main__":
    sys.exit(main())
