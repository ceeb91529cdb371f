"""evaluate(): seats rotated, duplicate seeds for the dice game, one JSON line
per game, intervals that separate a strong agent from random, Python
callables beside the built-in bots."""

import io
import json

import numpy as np
import pytest

from druids_engine import evaluate


def test_greedy_beats_random_with_rotated_seats_and_duplicate_seeds() -> None:
    log = io.StringIO()
    result = evaluate(["greedy", "random", "random"], "meduris", games=24, seed=5, log=log, progress=False)
    lines = [json.loads(line) for line in log.getvalue().splitlines()]
    assert len(lines) == 24
    # Each seed is played once per rotation of the seats (duplicate games).
    assert [r["seed"] for r in lines[:6]] == [5, 5, 5, 6, 6, 6]
    assert [r["entries"] for r in lines[:3]] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    greedy = result.standings[0]
    assert greedy.games == 24 and result.beats(0, 1 / 3)
    s = greedy.summary
    assert s["win_rate_low"] <= s["win_rate"] <= s["win_rate_high"]
    assert s["mean_score_low"] <= s["mean_score"] <= s["mean_score_high"]
    assert sum(st.wins for st in result.standings) == pytest.approx(24)


def test_python_callables_and_mcts_play_dolmen_with_a_seed_per_game() -> None:
    rng = np.random.default_rng(0)

    def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        assert observation.dtype == np.float32 and mask.dtype == np.bool_
        return int(np.flatnonzero(mask)[0])

    def uniform(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    result = evaluate([first_legal, uniform, "mcts:20"], "dolmen", games=3, seed=9, progress=False)
    assert [g["seed"] for g in result.games] == [9, 10, 11]
    assert [st.name for st in result.standings] == ["first_legal", "uniform", "mcts:20"]
    with pytest.raises(ValueError, match="unknown built-in bot"):
        evaluate(["random", "alphazero"], "dolmen", games=1, progress=False)
    with pytest.raises(ValueError, match="one per seat"):
        evaluate(["random"], "dolmen", players=2, games=1, progress=False)
