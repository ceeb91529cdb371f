"""The ``druids-bot`` command, and :func:`run_cli` for bot scripts.

    druids-bot --game-id ID --token T [--strategy random|first|FILE.py[:fn]|module[:fn]]

``--server`` (default ``$DRUIDS_SERVER``, else ``http://127.0.0.1:50051``)
takes ``host:port``, ``http://host:port`` or ``https://host:port``; ``--token``
defaults to ``$DRUIDS_TOKEN``, like the Rust ``druids`` client. When the game is
over the bot prints one JSON line (the same in both kits and ``druids bot``):
``{"game_id": "<id>", "seat": <n>, "outcome": {<Outcome in proto3 JSON>}, "actions": <n>, "restarts": 0}``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence

import grpc
from google.protobuf import json_format

from ._pb import druids_pb2 as pb
from .address import default_server, parse_servers
from .client import BotError, Client
from .seat import Chooser, SeatPlayer
from .strategies import BUILTIN, load_strategy


# The fields of an Outcome a result line shows (its tie-break keys are in the
# game's state and replay).
RESULT_FIELDS = ("bySafeguard", "ranking", "scores", "winners")


def result_line(
    game_id: str, seat: int, outcome: pb.Outcome | None, actions: int = 0, restarts: int = 0
) -> str:
    """The JSON line a bot prints at the end, the same for every way of
    playing (``druids bot --strategy`` or ``--exec``, both kits):
    ``game_id``, ``seat``, ``outcome`` (the Outcome's result fields in the
    canonical proto3 JSON mapping, keys sorted: bySafeguard, ranking, scores,
    winners; null if the game was abandoned),
    ``actions`` (the seat's actions the server applied) and ``restarts``
    (times the bot's program was restarted: 0 here)."""
    shown = None
    if outcome is not None:
        every = json_format.MessageToDict(outcome, always_print_fields_with_no_presence=True)
        shown = {k: every[k] for k in sorted(RESULT_FIELDS)}
    return json.dumps({"game_id": game_id, "seat": seat, "outcome": shown, "actions": actions, "restarts": restarts})


def _parser(description: str, with_strategy: bool) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--server",
        default=default_server(),
        help="host:port, http://host:port or https://host:port (env DRUIDS_SERVER; default %(default)s)",
    )
    ap.add_argument("--ca-cert", help="PEM certificate to trust for an https:// server")
    ap.add_argument("--game-id", required=True, help="the game to play")
    ap.add_argument(
        "--token",
        default=os.environ.get("DRUIDS_TOKEN"),
        help="the seat's secret token (env DRUIDS_TOKEN)",
    )
    ap.add_argument("--seed", type=int, help="seed of the bot's own random choices")
    ap.add_argument(
        "--all-payments",
        action="store_true",
        help="choose among every distinct payment (Meduris), not one default payment per target",
    )
    if with_strategy:
        ap.add_argument(
            "--strategy",
            default="random",
            help=f"{' or '.join(BUILTIN)} (built in), FILE.py[:function] or module[:function] "
            "(default: %(default)s; the function defaults to choose)",
        )
    return ap


def _play(args: argparse.Namespace, choose: Chooser) -> int:
    if not args.token:
        print("druids-bot: a seat token is needed: --token or DRUIDS_TOKEN", file=sys.stderr)
        return 2
    try:
        parse_servers(args.server)
    except ValueError as e:
        print(f"druids-bot: {e}", file=sys.stderr)
        return 2
    if args.seed is not None:
        random.seed(args.seed)
    with Client(args.server, ca_cert=args.ca_cert) as client:
        try:
            player = SeatPlayer(client, args.game_id, args.token, choose, all_payments=args.all_payments)
            outcome = player.play()
        except grpc.RpcError as e:
            print(f"druids-bot: {e.code().name}: {e.details()}", file=sys.stderr)
            return 1
        except BotError as e:
            print(f"druids-bot: {e}", file=sys.stderr)
            return 1
    print(result_line(args.game_id, player.seat, outcome, player.decisions), flush=True)
    return 0


def run_cli(choose: Chooser, description: str, argv: Sequence[str] | None = None) -> None:
    """The command line of a bot script: ``--server``, ``--game-id``,
    ``--token``, ``--seed``, ``--ca-cert``, ``--all-payments``; plays the seat
    with ``choose``, prints the result line and exits."""
    args = _parser(description, with_strategy=False).parse_args(argv)
    sys.exit(_play(args, choose))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``druids-bot`` console script."""
    args = _parser(__doc__ or "", with_strategy=True).parse_args(argv)
    try:
        choose = load_strategy(args.strategy)
    except ValueError as e:
        print(f"druids-bot: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(_play(args, choose))


if __name__ == "__main__":
    main()
