"""Playing agents against each other, like Kaggle's ``env.run``: seats
rotated, duplicate seeds for dice-driven games, win rates and mean scores
with 95 % intervals, one JSON line per game, a progress bar.

An agent is a built-in bot by name — ``"random"``, ``"greedy"``, ``"mcts"``
(200 iterations) or ``"mcts:N"`` (N iterations) — run in Rust, or a Python
callable ``agent(observation, mask) -> index`` over the seat's observation
and legal-action mask (the same policy plays on the server through
``druids_bot.policy_chooser``).
"""

from __future__ import annotations

import json
import operator
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, TextIO, Union

import numpy as np
import numpy.typing as npt

from ._core import Game, evaluation_summary, games

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], int]
Agent = Union[str, Policy]

DICE_DRIVEN = {g["name"]: bool(g["dice_driven"]) for g in games()}
"""Whether a game's result depends so much on the dice that evaluation plays
each seed once per seat rotation (duplicate games): the registry's word."""


@dataclass
class Standing:
    """One agent's results: ``summary`` holds ``games``, ``wins``,
    ``win_rate`` and ``mean_score`` each with ``_low`` and ``_high`` (95 %
    intervals), and with more than two agents the fitted ``strength``
    (Plackett-Luce over every game's finishing order), all computed by the
    statistics ``druids match`` uses (``druids_arena::evaluation``)."""

    name: str
    summary: dict[str, float] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return int(self.summary.get("games", 0))

    @property
    def wins(self) -> float:
        return self.summary.get("wins", 0.0)


@dataclass
class Result:
    """What :func:`evaluate` found, per agent in the order given."""

    standings: list[Standing]
    games: list[dict[str, object]]

    def beats(self, a: int, rate: float) -> bool:
        """Whether agent ``a``'s win rate is above ``rate`` with 95 % confidence."""
        return self.standings[a].summary["win_rate_low"] > rate


SEEDS = 1 << 64
"""Seeds are 64-bit: a game's seed and its bots' are taken modulo this."""

MAX_ITERATIONS = 1_000_000
"""The most iterations ``"mcts:N"`` may ask for."""


def _bot(agent: Agent) -> Optional[tuple[str, int]]:
    """A built-in bot's name and iterations, or None for a callable policy."""
    if callable(agent):
        return None
    if not isinstance(agent, str):
        raise TypeError(f"an agent is a built-in bot's name or a callable policy, not {type(agent).__name__}")
    name, colon, budget = agent.partition(":")
    if name not in ("random", "greedy", "mcts") or (colon and name != "mcts"):
        raise ValueError(f"unknown built-in bot {agent[:64]!r} (random, greedy, mcts, mcts:N)")
    if not colon:
        return name, 200
    if not budget.isdigit() or not 1 <= int(budget) <= MAX_ITERATIONS:
        raise ValueError(f"{agent[:64]!r}: N in mcts:N is a whole number from 1 to {MAX_ITERATIONS}")
    return name, int(budget)


def _whole(value: object, what: str) -> int:
    """``value`` as an int (Python's or numpy's), never a float rounded."""
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} is a whole number, not {type(value).__name__}") from None


def _name(agent: Agent, i: int) -> str:
    if isinstance(agent, str):
        return agent
    return getattr(agent, "__name__", f"agent {i}")


def evaluate(
    agents: Sequence[Agent],
    game: str,
    players: Optional[int] = None,
    games: int = 100,
    seed: int = 0,
    log: Optional[TextIO] = None,
    progress: bool = True,
) -> Result:
    """Plays ``games`` games of ``game`` between ``agents`` (one per seat;
    ``players`` defaults to their number) and returns their standings.

    Seats rotate every game, so with ``games`` a multiple of the players each
    agent plays each seat equally often (otherwise the first seat rotations
    get one game more). For a dice-driven game (Meduris) each seed is played
    once per rotation before the next (duplicate games), so luck evens out;
    otherwise each game has its own seed. Seeds are 64-bit (taken modulo
    2**64). One JSON line per game goes to ``log``; a progress bar to stderr.

    Bad arguments raise ``ValueError`` or ``TypeError`` before any game; a
    policy's illegal choice raises ``ValueError`` naming the agent and game.
    """
    if not isinstance(game, str):
        raise TypeError(f"game is a game's name, not {type(game).__name__}")
    if game not in DICE_DRIVEN:
        raise ValueError(f"no game is called {game[:64]!r} here (games: {', '.join(DICE_DRIVEN)})")
    if isinstance(agents, str):
        raise TypeError("agents is a list of agents (one per seat), not one string")
    agents = list(agents)
    if not agents:
        raise ValueError("no agents: give one per seat")
    games, seed = _whole(games, "games"), _whole(seed, "seed")
    n = _whole(players, "players") if players is not None else len(agents)
    if len(agents) != n:
        raise ValueError(f"{len(agents)} agents for {n} seats: give one per seat")
    if games < 1:
        raise ValueError("games must be at least 1")
    if not 0 <= seed < SEEDS:
        raise ValueError(f"seed must be from 0 to {SEEDS - 1}")
    bots = [_bot(a) for a in agents]
    standings = [Standing(_name(a, i)) for i, a in enumerate(agents)]
    records: list[dict[str, object]] = []
    seats_played: list[list[tuple[int, float, int]]] = []
    duplicate = DICE_DRIVEN[game]
    for g in range(games):
        shift = g % n
        game_seed = (seed + (g // n if duplicate else g)) % SEEDS
        entry_of_seat = [(s + shift) % n for s in range(n)]
        state = Game(game, n, seed=game_seed)
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            entry = entry_of_seat[seat]
            bot = bots[entry]
            if bot is None:
                policy = agents[entry]
                assert callable(policy)
                who = f"{standings[entry].name} (agent {entry}, seat {seat}) in game {g} of {game}"
                choice = policy(state.observation(seat), state.legal_mask())
                # The engine takes an index, never a number rounded to one.
                try:
                    state.apply(choice)
                except TypeError:
                    raise TypeError(f"{who}: a policy returns an action's index, not {type(choice).__name__}") from None
                except ValueError as e:
                    raise ValueError(f"{who}: {e}") from None
            else:
                bot_seed = (game_seed * 1000 + len(state.history)) % SEEDS
                state.apply(state.bot_action(bot[0], seed=bot_seed, iterations=bot[1]))
        outcome = state.outcome
        assert outcome is not None
        winners: list[int] = outcome["winners"]
        scores: list[int] = outcome["scores"]
        ranking: list[int] = outcome["ranking"]
        # Places: 1 for the winners, then the ranking's order.
        place = {s: 1 if s in winners else ranking.index(s) + 1 for s in range(n)}
        seats_played.append([(entry_of_seat[s], float(scores[s]), place[s]) for s in range(n)])
        record: dict[str, object] = {
            "game": g,
            "seed": game_seed,
            "seats": [standings[e].name for e in entry_of_seat],
            "entries": entry_of_seat,
            "scores": scores,
            "winners": winners,
        }
        records.append(record)
        if log is not None:
            log.write(json.dumps(record) + "\n")
            log.flush()
        if progress:
            _bar(g + 1, games, sys.stderr)
    if progress:
        sys.stderr.write("\n")
    for standing, summary in zip(standings, evaluation_summary(len(agents), seats_played)):
        standing.summary = summary
    return Result(standings, records)


def _bar(done: int, total: int, out: TextIO) -> None:
    width = 30
    filled = width * done // total
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games")
    out.flush()
