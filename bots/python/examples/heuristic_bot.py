#!/usr/bin/env python3
"""A simple Meduris heuristic: build temples, then huts (bonus chips first),
offer both goods, take the good held least, return the good held most, and
move workers to the plateau of the scarcest good. Random in other games.

    python examples/heuristic_bot.py --server 127.0.0.1:50051 --game-id ID --token T
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from druids_bot import meduris_pb2 as m, run_cli  # noqa: E402

GOOD_NAMES = {m.GOOD_WOOD: "wood", m.GOOD_WOOL: "wool", m.GOOD_COPPER: "copper", m.GOOD_STONE: "stone"}
CHIP_BONUS = {m.CHIP_PLUS_TWO: 3, m.CHIP_FREE_HUT: 4, m.CHIP_DRUID_OFFERING: 2}


def held(state, good):
    """How many of `good` this seat holds."""
    me = state.meduris.seats[state.viewer_seat]
    return getattr(me.goods, GOOD_NAMES[good]) if me.HasField("goods") else 0


def total(goods):
    return goods.wood + goods.wool + goods.copper + goods.stone


def score(action, state):
    """Higher is better; unknown kinds score 0."""
    kind = action.WhichOneof("kind")
    if kind == "build_temple":
        return 100 - total(action.build_temple.payment)
    if kind == "build_hut":
        field = next(f for f in state.meduris.fields if f.field == action.build_hut.field)
        chip = field.chip
        return 80 + 10 * CHIP_BONUS.get(chip, 0) - total(action.build_hut.payment)
    if kind == "offer_chip":
        return 60
    if kind == "offer":  # both goods > one good > nothing
        return 50 + total(action.offer.payment)
    if kind == "take_good":
        return 40 - held(state, action.take_good.good)
    if kind == "return_good":
        return 40 + held(state, action.return_good.good)
    if kind == "big_yield":
        return 20 - held(state, action.big_yield.to)
    if kind == "place_worker":
        return 10 - sum(len(p.workers) for p in state.meduris.plateaus if p.good == action.place_worker.plateau)
    return 0


def choose(legal_actions, state):
    """The best-scoring Meduris action (ties broken at random); random otherwise."""
    if state.WhichOneof("game") != "meduris":
        return random.choice(legal_actions)
    random.shuffle(legal_actions)
    return max(legal_actions, key=lambda la: score(la.action.meduris, state))


if __name__ == "__main__":
    run_cli(choose, __doc__)
