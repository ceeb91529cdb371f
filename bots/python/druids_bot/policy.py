"""Playing a policy over (observation, mask) through the server.

A policy trained in-process with the ``druids-engine`` package —
``policy(observation, mask) -> index`` over the game's fixed action space —
plays a seat on a server unchanged: :func:`policy_chooser` turns it into the
kit's chooser. What the server sends the seat (its ``StateView`` and the legal
list of ``GetLegalActions``) becomes exactly the engine's observation and mask
(``druids_engine.observation_from_state_view`` and
``druids_engine.mask_from_legal_actions``, the engine's own decoding), and the
chosen index becomes the ``legal_action_id`` to submit.

    from druids_bot import connect, play_seat, policy_chooser
    play_seat(client, game_id, token, policy_chooser(policy))
    run_ladder(policy_chooser(policy), key=key, kind="meduris", players=4)

Needs ``pip install ./python`` (the ``druids-engine`` package) beside the kit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._pb import druids_pb2 as pb
from .client import KINDS, BotError
from .seat import Chooser

#: A policy: the seat's observation (float32) and legal-action mask (bool)
#: over the fixed action space, to the index of the action to take.
Policy = Callable[[Any, Any], int]

#: The engine's name of each game of the contract's GameKind.
GAME_NAMES = {value: name for name, value in KINDS.items()}


def observe(state: pb.StateView, legal: list[pb.LegalAction]) -> tuple[Any, Any, Any]:
    """The engine's observation, mask and legal_action_id per index (-1 where
    not legal) for what the server sent the seat."""
    import druids_engine  # the engine package, installed beside the kit

    game = GAME_NAMES.get(state.kind)
    if game is None:
        raise BotError(f"the state names no known game kind ({state.kind})")
    observation = druids_engine.observation_from_state_view(state.SerializeToString())
    response = pb.GetLegalActionsResponse(actions=legal).SerializeToString()
    mask, ids = druids_engine.mask_from_legal_actions(game, len(state.seats), response)
    return observation, mask, ids


def policy_chooser(policy: Policy) -> Chooser:
    """The kit's chooser that plays ``policy`` (see the module)."""

    def choose(legal: list[pb.LegalAction], state: pb.StateView) -> int:
        observation, mask, ids = observe(state, legal)
        index = int(policy(observation, mask))
        if not 0 <= index < len(ids) or ids[index] < 0:
            raise BotError(f"the policy chose action {index}, which is not legal now")
        return int(ids[index])

    return choose
