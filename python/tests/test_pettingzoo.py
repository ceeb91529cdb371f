"""PettingZoo's own conformance tests (api_test, seed_test) on both games,
and ``reset(seed=S)`` gives the engine's game with seed S."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from druids_engine import Game
from druids_engine.pettingzoo import env

CASES = [("meduris", 2), ("meduris", 4), ("dolmen", 2), ("dolmen", 5)]


@pytest.mark.parametrize("game,players", CASES)
def test_api(game: str, players: int) -> None:
    api_test(env(game, players=players), num_cycles=300)


@pytest.mark.parametrize("game,players", CASES)
def test_seed(game: str, players: int) -> None:
    seed_test(lambda: env(game, players=players), num_cycles=300)


@pytest.mark.parametrize("game,players", [("meduris", 3), ("dolmen", 4)])
def test_reset_with_a_seed_is_the_engines_game(game: str, players: int) -> None:
    e = env(game, players=players)
    e.reset(seed=77)
    g = Game(game, players, seed=77)
    rng = np.random.default_rng(3)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert e.game.outcome == g.outcome
            e.step(None)
            continue
        seat = e.possible_agents.index(agent)
        assert seat == g.to_act
        assert np.array_equal(obs["observation"], g.observation(seat))
        assert np.array_equal(obs["action_mask"].astype(bool), g.legal_mask())
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        g.apply(a)
        e.step(a)
    assert g.is_over


def test_an_action_is_an_index_never_a_rounded_number() -> None:
    e = env("dolmen", 2)
    e.reset(seed=3)
    version = len(e.game.history)
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    for bad in (legal + 0.9, str(legal), float(legal), True):
        with pytest.raises(TypeError, match="integer index"):
            e.step(bad)  # type: ignore[arg-type]
    assert len(e.game.history) == version, "nothing was played"
    e.step(np.int64(legal))
    assert len(e.game.history) == version + 1


def test_an_unknown_render_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        env("meduris", 2, render_mode="human")


def test_resets_after_a_seeded_one_are_reproducible() -> None:
    seeds = []
    for _ in range(2):
        e = env("dolmen", players=2)
        e.reset(seed=3)
        e.reset()
        first = e.game.seed
        e.reset()
        seeds.append((first, e.game.seed))
    assert seeds[0] == seeds[1]
    assert seeds[0][0] != seeds[0][1] != 3
