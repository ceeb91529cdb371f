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


def test_any_64_bit_seed_plays_and_bad_arguments_are_refused_before_any_game() -> None:
    top = (1 << 64) - 1
    result = evaluate(["greedy", "random"], "meduris", games=4, seed=top, progress=False)
    assert [g["seed"] for g in result.games] == [top, top, 0, 0]
    refused = [
        (ValueError, "no game is called", dict(agents=["random", "random"], game="chess")),
        (ValueError, "seed must be", dict(agents=["random", "random"], game="dolmen", seed=1 << 64)),
        (TypeError, "games is a whole number", dict(agents=["random", "random"], game="dolmen", games="4")),
        (TypeError, "seed is a whole number", dict(agents=["random", "random"], game="dolmen", seed=1.5)),
        (ValueError, "unknown built-in bot", dict(agents=["random:5", "random"], game="dolmen")),
        (ValueError, "mcts:N", dict(agents=["mcts:abc", "random"], game="dolmen")),
        (ValueError, "mcts:N", dict(agents=["mcts:-5", "random"], game="dolmen")),
        (TypeError, "callable policy", dict(agents=[5, "random"], game="dolmen")),
        (ValueError, "no agents", dict(agents=[], game="dolmen")),
        (TypeError, "not one string", dict(agents="random", game="dolmen")),
        (TypeError, "game is a game's name", dict(agents=["random", "random"], game=None)),
    ]
    for error, says, kwargs in refused:
        log = io.StringIO()
        with pytest.raises(error, match=says):
            evaluate(**kwargs, log=log, progress=False)  # type: ignore[arg-type]
        assert log.getvalue() == "", "no game was played"


def test_a_policys_illegal_choice_names_the_agent_and_game() -> None:
    def stubborn(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(np.flatnonzero(~mask)[0])

    with pytest.raises(ValueError, match=r"stubborn \(agent 1, seat 1\) in game 0 of dolmen: action \d+ is not legal"):
        evaluate(["random", stubborn], "dolmen", games=2, progress=False)


def test_a_policys_choice_is_an_index_never_a_rounded_number() -> None:
    for choice in (1.5, "3", True, None):
        with pytest.raises(TypeError, match=r"agent 1, seat 1\) in game 0 of dolmen: a policy returns an action's index"):
            evaluate(["random", lambda o, m, c=choice: c], "dolmen", games=1, progress=False)
