#!/usr/bin/env python3
"""A bot for the arena's ladder: registers once (or uses its API key), then
seeks rated matches and plays them, several at a time, until Ctrl-C.

    python examples/ladder_bot.py --server 127.0.0.1:50051 --register my-bot
    # prints the bot id and the API key (shown once: keep it), then plays
    DRUIDS_BOT_KEY=... python examples/ladder_bot.py --seek meduris:4 --concurrent 2

Each game prints one JSON line (match_id, index, game_id, seat, outcome), each
match one more (match_id, placements), as `druids bot --seek` does.
"""

import argparse
import json
import os
import random
import sys

import grpc
from google.protobuf import json_format

from druids_bot import BotError, Choice, GameResult, MatchResult, parse_pool, pb, register_bot, run_ladder


def choose(legal_actions: list[pb.LegalAction], state: pb.StateView) -> Choice:
    """Called whenever one of the bot's seats must decide (from several
    threads at a time with --concurrent > 1): returns one of `legal_actions`."""
    return random.choice(legal_actions)


def print_game(game: GameResult) -> None:
    outcome = (
        json_format.MessageToDict(game.outcome, always_print_fields_with_no_presence=True)
        if game.outcome is not None
        else None
    )
    line: dict[str, object] = {"match_id": game.match_id, "index": game.index, "game_id": game.game_id, "seat": game.seat}
    if game.error is not None:
        line["error"] = game.error
    else:
        line["outcome"] = outcome
    print(json.dumps(line), flush=True)


def print_match(match: MatchResult) -> None:
    placements = [
        {"bot_id": p.bot.bot_id, "name": p.bot.name, "rank": p.rank, "score": p.score} for p in match.placements
    ]
    print(json.dumps({"match_id": match.match_id, "placements": placements}), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=os.environ.get("DRUIDS_SERVER"), help="host:port or http(s)://host:port")
    ap.add_argument("--ca-cert", help="PEM certificate to trust for an https:// server")
    ap.add_argument("--key", default=os.environ.get("DRUIDS_BOT_KEY"), help="the bot's API key (env DRUIDS_BOT_KEY)")
    ap.add_argument("--register", metavar="NAME", help="register a bot of this name first and play with its key")
    ap.add_argument("--seek", default="meduris:4", help="pool: GAME:PLAYERS or GAME:MIN-MAX (default %(default)s)")
    ap.add_argument("--unrated", action="store_true", help="unrated matches (not on the leaderboard)")
    ap.add_argument("--concurrent", type=int, default=2, help="matches at once (default %(default)s)")
    ap.add_argument("--matches", type=int, help="stop after this many matches (default: until Ctrl-C)")
    ap.add_argument("--seed", type=int, help="seed of the bot's random choices")
    args = ap.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
    try:
        kind, low, high = parse_pool(args.seek)
    except ValueError as e:
        print(f"ladder_bot: {e}", file=sys.stderr)
        return 2
    try:
        key = args.key
        if args.register:
            bot_id, key = register_bot(args.register, "a random ladder bot", server=args.server, ca_cert=args.ca_cert)
            print(json.dumps({"bot_id": bot_id, "name": args.register, "api_key": key}), flush=True)
            print("ladder_bot: the API key is shown only this once: keep it", file=sys.stderr)
        if not key:
            print("ladder_bot: an API key is needed: --key, DRUIDS_BOT_KEY or --register NAME", file=sys.stderr)
            return 2
        run_ladder(
            choose,
            key=key,
            server=args.server,
            ca_cert=args.ca_cert,
            kind=kind,
            players=(low, high),
            rated=not args.unrated,
            concurrent=args.concurrent,
            matches=args.matches,
            on_game=print_game,
            on_match=print_match,
        )
    except BotError as e:
        print(f"ladder_bot: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except grpc.RpcError as e:
        print(f"ladder_bot: {e.code().name}: {e.details()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
