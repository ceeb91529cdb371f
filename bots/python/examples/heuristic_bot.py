#!/usr/bin/env python3
"""A simple heuristic bot for both games.

Meduris: temples, then huts (bonus chips first); offer both goods; take the good
held least, return the one held most; move workers to the scarcest good.
Die Dolmengoetter: always leave a stone; rate a walk or flight by the stone it
leaves where the druid stood (+2 per open circle of that site where it gives this
seat sole majority, +1 where it ties); highest dolmen on top, lowest under a
stack, never pass; place druids on sites touching the most circles.

    python examples/heuristic_bot.py --server 127.0.0.1:50051 --game-id ID --token T
"""

import random
from collections.abc import Callable
from typing import Any

from druids_bot import Choice, dolmen_pb2, pb, run_cli
from druids_bot import meduris_pb2 as m

GOOD_NAMES = {
    m.MEDURIS_GOOD_WOOD: "wood",
    m.MEDURIS_GOOD_WOOL: "wool",
    m.MEDURIS_GOOD_COPPER: "copper",
    m.MEDURIS_GOOD_STONE: "stone",
}
CHIP_BONUS = {m.MEDURIS_CHIP_PLUS_TWO: 3, m.MEDURIS_CHIP_FREE_HUT: 4, m.MEDURIS_CHIP_DRUID_OFFERING: 2}


def held(state: pb.StateView, good: m.MedurisGood) -> int:
    """How many of `good` this seat holds."""
    me = state.meduris.seats[state.viewer_seat]
    return getattr(me.goods, GOOD_NAMES[good]) if me.HasField("goods") else 0


def total(goods: m.MedurisGoods) -> int:
    return goods.wood + goods.wool + goods.copper + goods.stone


def meduris_score(action: m.MedurisAction, state: pb.StateView) -> int:
    """Higher is better; unknown kinds score 0."""
    kind = action.WhichOneof("kind")
    if kind == "build_temple":
        return 100 - total(action.build_temple.payment)
    if kind == "build_hut":
        field = next(f for f in state.meduris.fields if f.field == action.build_hut.field)
        return 80 + 10 * CHIP_BONUS.get(field.chip, 0) - total(action.build_hut.payment)
    if kind == "offer_chip":
        return 60
    if kind == "offer":  # both goods > one good > nothing
        return 50 + total(action.offer.payment)
    if kind == "take_good":
        return 40 - held(state, action.take_good.good)
    if kind == "return_good":
        return 40 + held(state, action.return_good.good)
    if kind == "big_yield":
        return 20 - held(state, action.big_yield.to_plateau)
    if kind == "place_worker":
        return 10 - sum(len(p.workers) for p in state.meduris.plateaus if p.good == action.place_worker.plateau)
    return 0


def stone_value(site: int, state: pb.StateView) -> int:
    """What one more stone of ours on `site` does to the majorities of its open circles."""
    me, value = state.viewer_seat, 0
    for c in (state.dolmen.circles[i] for i in state.dolmen.sites[site].circles):
        if c.complete:
            continue
        mine = c.stones[me] + 1
        best_other = max((k for s, k in enumerate(c.stones) if s != me), default=0)
        value += 2 if mine > best_other else 1 if mine == best_other else 0
    return value


def dolmen_score(action: dolmen_pb2.DolmenAction, state: pb.StateView) -> int:
    """Higher is better; unknown kinds score 0."""
    kind = action.WhichOneof("kind")
    if kind == "place_stone":
        return 100
    if kind == "place_dolmen":  # highest on top, lowest under the stack
        value = action.place_dolmen.value
        return 50 + (value if state.decision.dolmen.on_top else -value)
    if kind in ("walk", "fly"):
        return 10 + stone_value(getattr(action, kind).from_site, state)
    if kind == "collect_herbs":
        return 10
    if kind == "place_druid":
        return len(state.dolmen.sites[action.place_druid.site].circles)
    return 0  # decline_stone, pass_dolmen


SCORES: dict[str, Callable[[Any, pb.StateView], int]] = {"meduris": meduris_score, "dolmen": dolmen_score}


def choose(legal_actions: list[pb.LegalAction], state: pb.StateView) -> Choice:
    """The best-scoring action of this game (ties broken at random)."""
    random.shuffle(legal_actions)
    game = state.WhichOneof("game")
    return max(legal_actions, key=lambda la: SCORES[game](getattr(la.action, game), state))


if __name__ == "__main__":
    run_cli(choose, __doc__)
