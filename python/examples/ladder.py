"""Play a trained policy on a running server, through the bot kit's ladder
loop: registers the policy's bot (and, with ``--sparring``, a random bot to
play against), seeks rated matches and plays them.

    python python/examples/ladder.py --server 127.0.0.1:50051 --policy policy.npz --matches 1 --sparring

The first run registers the bot (``--name``, "trained-policy" by default) and
prints its API key on stderr, once: keep it, and come back to the ladder as
the same bot with ``--key KEY`` (or ``$DRUIDS_BOT_KEY``), its rating and
history with it.

What the server sends the seat becomes the engine's observation and mask
(``druids_bot.policy_chooser``, over ``druids_engine``'s wire functions), so
the policy plays exactly as it did in training. Prints one JSON line per
game and per match.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import threading
from pathlib import Path

import grpc  # type: ignore[import-untyped]  # grpcio ships no type hints

from druids_bot import GameResult, MatchResult, pb, policy_chooser, register_bot, run_ladder
from policy import LinearPolicy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True, help="host:port or http(s)://host:port")
    ap.add_argument("--policy", type=Path, default=Path("policy.npz"))
    ap.add_argument("--game", default="meduris")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--matches", type=int, default=1)
    ap.add_argument("--sparring", action="store_true", help="also register and run a random bot to play against")
    ap.add_argument("--name", default="trained-policy", help="the name to register the policy's bot under")
    ap.add_argument("--key", default=os.environ.get("DRUIDS_BOT_KEY"),
                    help="play as the bot registered earlier with this API key (default $DRUIDS_BOT_KEY)")
    args = ap.parse_args()

    policy = LinearPolicy.load(args.policy)
    key = args.key
    if not key:
        try:
            _, key = register_bot(args.name, "a linear policy trained in-process", server=args.server)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.ALREADY_EXISTS:
                raise
            print(f"ladder.py: the name {args.name!r} is taken: pass the key it was registered with "
                  "(--key or $DRUIDS_BOT_KEY), or another --name", file=sys.stderr)
            return 2
        print(f"ladder.py: registered {args.name!r}; its API key, shown once (keep it, and pass it "
              f"as --key next time): {key}", file=sys.stderr, flush=True)
    results: list[MatchResult] = []

    def on_game(game: GameResult) -> None:
        line = {"match_id": game.match_id, "game_id": game.game_id, "seat": game.seat}
        if game.outcome is not None:
            line["scores"] = list(game.outcome.scores)
        if game.error is not None:
            line["error"] = game.error
        print(json.dumps(line), flush=True)

    def random_choice(legal: list[pb.LegalAction], state: pb.StateView) -> pb.LegalAction:
        return random.choice(legal)

    sparring = None
    if args.sparring:
        # A throwaway opponent: a fresh name each run.
        name = f"random-sparring-{secrets.token_hex(3)}"
        _, sparring_key = register_bot(name, "uniformly random", server=args.server)
        sparring = threading.Thread(
            target=run_ladder,
            args=(random_choice,),
            kwargs=dict(key=sparring_key, server=args.server, kind=args.game, players=args.players,
                        matches=args.matches, concurrent=1, verbose=False),
            daemon=True,
        )
        sparring.start()
    results = run_ladder(
        policy_chooser(policy),
        key=key,
        server=args.server,
        kind=args.game,
        players=args.players,
        matches=args.matches,
        concurrent=1,
        on_game=on_game,
        verbose=False,
    )
    for match in results:
        placements = [{"name": p.bot.name, "rank": p.rank, "score": p.score} for p in match.placements]
        print(json.dumps({"match_id": match.match_id, "placements": placements}), flush=True)
    if sparring is not None:
        sparring.join(timeout=60)
    return 0 if len(results) == args.matches else 1


if __name__ == "__main__":
    sys.exit(main())
