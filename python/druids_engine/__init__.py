"""The exact druids rules engines (Meduris, Die Dolmengötter) from Python.

One implementation of the rules: the same Rust engine the server runs, with
a fixed action space and observation tensors per game and player count
(``docs/observations.md``), copy, serialisation, resampling from a seat's
view and an explicit chance mode.

* :class:`Game` — one game, played by action indices;
* :class:`VectorEnv` — N games stepped by one call into numpy arrays;
* :func:`evaluate` — play agents against each other, with 95 % intervals;
* :mod:`druids_engine.pettingzoo` — ``env(game, players=N)``, an AEC env;
* :mod:`druids_engine.openspiel` — ``register()`` for ``pyspiel``;
* :func:`observation_from_state_view`, :func:`mask_from_legal_actions` — the
  server's messages turned into the same observation and mask.
"""

from ._core import Game, VectorEnv, games, mask_from_legal_actions, observation_from_state_view
from .evaluate import Agent, Policy, Result, Standing, evaluate

GAMES = tuple(g["name"] for g in games())
"""The games, by the registry's names (:func:`games` describes each)."""

__all__ = [
    "Agent",
    "GAMES",
    "Policy",
    "Result",
    "Standing",
    "Game",
    "VectorEnv",
    "evaluate",
    "games",
    "mask_from_legal_actions",
    "observation_from_state_view",
]
