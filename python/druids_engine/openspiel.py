"""The games in OpenSpiel: ``register()`` registers ``druids_meduris`` and
``druids_dolmen`` with ``pyspiel`` (parameters ``players`` and ``seed``).

Meduris is sampled-stochastic (the die is rolled from the state's seed;
``chance_mode`` explicit lives in :class:`druids_engine.Game`; a clone keeps
the seed's stream, as ``random_sim_test`` requires, so search over plain
clones sees the true coming dice: resample, as ISMCTS does), Die
Dolmengötter deterministic; both are imperfect-information games with
information-state and observation tensors (the seat's view, see
``docs/observations.md``) and ``resample_from_infostate`` taking OpenSpiel's
sampler. Limits of open-spiel 2.0.2 for every game registered from Python:
``random_sim_test(serialize=True)`` fails for a sampled-stochastic game, and
the C++ ``pyspiel.ISMCTSBot`` crashes; use the Python ``ISMCTSBot``.

``action_to_string`` words the actions legal in the state; any other index
reads ``action N``. An index is one of a fixed action space and may stand
for different payments in different states (a hut on field 5, paid as the
state allows), so its words are the state's: to log a game, keep them
before applying (``state.action_to_string(player, action)``, or
``state.core.legal_actions_text()``).
"""

from __future__ import annotations

import itertools
from typing import Any, Optional, Sequence

import numpy as np
import pyspiel

from ._core import Game, games

# Each game as the registry describes it (players, dice, display name).
_GAMES = {g["name"]: g for g in games()}


def _default_players(game: str) -> int:
    """As many players as the game takes, up to four."""
    return min(4, int(_GAMES[game]["max_players"]))
# The most decisions a game can take (the max_turns safeguard, 1,000 turns,
# times the decisions one turn can hold), for OpenSpiel's GameInfo.
_MAX_GAME_LENGTH = 1000 * 60


def _game_type(game: str) -> Any:
    about = _GAMES[game]
    return pyspiel.GameType(
        short_name=f"druids_{game}",
        long_name=f"{about['display_name']} (druids engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
            if about["dice_driven"]
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=about["max_players"],
        min_num_players=about["min_players"],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": _default_players(game), "seed": 0},
    )


class DruidsGame(pyspiel.Game):  # type: ignore[misc]
    """A druids game for OpenSpiel; each new state takes the next seed."""

    NAME = ""

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", _default_players(self.NAME)))
        probe = Game(self.NAME, players)
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=_MAX_GAME_LENGTH,
        )
        super().__init__(_game_type(self.NAME), info, params)
        self._players = players
        self._seeds = itertools.count(int(params.get("seed", 0)))
        self._layout = probe.observation_layout()
        self._size = probe.observation_size

    def new_initial_state(self) -> "DruidsState":
        return DruidsState(self, Game(self.NAME, self._players, seed=next(self._seeds)))

    def make_py_observer(
        self, iig_obs_type: Optional[Any] = None, params: Optional[dict[str, Any]] = None
    ) -> "DruidsObserver":
        if params:
            raise ValueError(f"observer parameters are not supported: {params}")
        public_only = (
            iig_obs_type is not None
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        )
        return DruidsObserver(self._layout, self._size, public_only)


class DruidsState(pyspiel.State):  # type: ignore[misc]
    """A position; only the engine game and the moves before a resample are
    kept in ``__dict__`` (so ``clone()`` works)."""

    def __init__(self, game: DruidsGame, core: Game, prefix: Sequence[int] = ()) -> None:
        super().__init__(game)
        self._core = core
        # The moves made before ``resample_from_infostate`` built this state:
        # pyspiel keeps a state's history in its C++ base, which only applying
        # actions fills, so Python's history() and move_number() add them.
        # (C++ code reading the base sees the moves since the resample only.)
        self._prefix = list(prefix)

    def history(self) -> list[int]:
        return self._prefix + list(super().history())

    def history_str(self) -> str:
        return ", ".join(str(a) for a in self.history())

    def move_number(self) -> int:
        return len(self._prefix) + int(super().move_number())

    def is_initial_state(self) -> bool:
        return not self._prefix and bool(super().is_initial_state())

    def current_player(self) -> int:
        if self._core.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = self._core.to_act
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._core.legal_actions())

    def _apply_action(self, action: int) -> None:
        self._core.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        try:
            return self._core.action_text(action)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self._core.is_over

    def returns(self) -> list[float]:
        return self._core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "DruidsState":
        """A state consistent with what ``player_id`` sees, the rest dealt from the sampler."""
        seed = int(probability_sampler() * 2**53)
        return DruidsState(self.get_game(), self._core.resample(player_id, seed), self.history())

    @property
    def core(self) -> Game:
        """The engine game behind this state."""
        return self._core

    def __str__(self) -> str:
        return self._core.serialize()


class DruidsObserver:
    """The seat's view as a tensor (``dict`` by section) and as a string."""

    def __init__(self, layout: list[tuple[str, tuple[int, int]]], size: int, public_only: bool):
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        start = 0
        for name, (rows, cols) in layout:
            self.dict[name] = self.tensor[start : start + rows * cols].reshape(rows, cols)
            start += rows * cols
        self._public_only = public_only

    def _seat(self, player: int) -> Optional[int]:
        return None if self._public_only else player

    def set_from(self, state: DruidsState, player: int) -> None:
        self.tensor[:] = state.core.observation(self._seat(player))

    def string_from(self, state: DruidsState, player: int) -> str:
        return state.core.state_view(self._seat(player)).hex()


class MedurisGame(DruidsGame):
    NAME = "meduris"


class DolmenGame(DruidsGame):
    NAME = "dolmen"


_registered = False


def register() -> None:
    """Registers every game of the engine with ``pyspiel`` (once), as
    ``druids_<name>``: ``druids_meduris``, ``druids_dolmen``."""
    global _registered
    if _registered:
        return
    named = {cls.NAME: cls for cls in (MedurisGame, DolmenGame)}
    for game in _GAMES:
        cls = named.get(game) or type(f"{game.title()}Game", (DruidsGame,), {"NAME": game})
        pyspiel.register_game(_game_type(game), cls)
    _registered = True
