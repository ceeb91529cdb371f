#!/usr/bin/env python3
"""A bot that picks uniformly among the legal actions, for any game (Meduris,
Die Dolmengoetter).

    python examples/random_bot.py --server 127.0.0.1:50051 --game-id ID --token T
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from druids_bot import run_cli  # noqa: E402


def choose(legal_actions, state):
    """Called whenever this seat must decide; returns one of `legal_actions`."""
    return random.choice(legal_actions)


if __name__ == "__main__":
    run_cli(choose, __doc__)
