#!/usr/bin/env python3
"""A bot that picks uniformly among the legal actions, for any game (Meduris,
Die Dolmengoetter).

    python examples/random_bot.py --server 127.0.0.1:50051 --game-id ID --token T
"""

import random

from druids_bot import Choice, pb, run_cli


def choose(legal_actions: list[pb.LegalAction], state: pb.StateView) -> Choice:
    """Called whenever this seat must decide; returns one of `legal_actions`."""
    return random.choice(legal_actions)


if __name__ == "__main__":
    run_cli(choose, __doc__)
