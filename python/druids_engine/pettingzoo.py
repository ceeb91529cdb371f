"""PettingZoo AEC environments of both games, any player count.

``env("meduris", players=4)``: agents ``player_0`` … ``player_{n-1}`` (seats
in play order); each observation is ``{"observation": float32 tensor,
"action_mask": int8 mask}`` over the game's fixed action space (see
``docs/observations.md``); the winners share a reward of 1 at the end.
``reset(seed=S)`` starts the very game the engine, and the server, play
with seed S; a later ``reset()`` without a seed draws the next game's seed
from S, so a run seeded once is reproducible as a whole (Gymnasium's
convention).
"""

from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from ._core import Game


class DruidsEnv(AECEnv[str, dict[str, npt.NDArray[Any]], int]):
    """One game of Meduris or Die Dolmengötter as an AEC environment."""

    metadata = {"render_modes": ["ansi"], "name": "druids_v0", "is_parallelizable": False}

    def __init__(self, game: str, players: int, render_mode: Optional[str] = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {str(render_mode)[:32]!r} is not one of {self.metadata['render_modes']} (or None)")
        probe = Game(game, players)
        self.game_name = game
        self.players = players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, np.inf, (probe.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (probe.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(probe.num_actions) for a in self.possible_agents}
        self._game = probe
        # Seeds of resets without one: unseeded until a reset(seed=S).
        self._seeds = random.Random()
        self.metadata = dict(self.metadata, name=f"druids_{game}_v0")

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The engine game being played (a copy is safe to search)."""
        return self._game

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is None:
            seed = self._seeds.getrandbits(63)
        else:
            self._seeds.seed(seed)
        self._game = Game(self.game_name, self.players, seed=seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent_to_act()

    def _agent_to_act(self) -> str:
        seat = self._game.to_act
        return self.possible_agents[seat if seat is not None else 0]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = self.possible_agents.index(agent)
        if self._game.to_act == seat:
            mask = self._game.legal_mask().astype(np.int8)
        else:
            mask = np.zeros(self._game.num_actions, np.int8)
        return {"observation": self._game.observation(seat), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # The engine takes an index, never a number rounded to one: a
        # policy's 2.9 is a bug, not action 2.
        try:
            self._game.apply(action)
        except TypeError:
            raise TypeError(f"an action is an integer index of the action space, not {type(action).__name__}") from None
        self._cumulative_rewards[agent] = 0.0
        if self._game.is_over:
            for a, r in zip(self.possible_agents, self._game.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        seat = self._game.to_act
        if seat is None:
            return f"{self.game_name}: over, {self._game.outcome}"
        texts = ", ".join(t for _, t in self._game.legal_actions_text()[:5])
        return f"{self.game_name}: seat {seat} to act ({texts}, ...)"

    def close(self) -> None:
        pass


def env(game: str, players: int = 4, render_mode: Optional[str] = None) -> DruidsEnv:
    """An AEC environment of ``game`` ("meduris" or "dolmen") for ``players`` seats."""
    return DruidsEnv(game, players, render_mode=render_mode)
