"""Steps per second from Python (BENCHMARKS.md, "The engine from Python").

One process, one thread unless said: the single-game Python loop (a random
legal action each step) on druids' Meduris and Die Dolmengötter, OpenSpiel's
backgammon through ``pyspiel`` and PettingZoo's ``connect_four_v3`` driven
by the same loop; the vector env with random actions drawn by numpy from the
masks (observations and masks written every step). Each figure is a fixed
number of steps over the CPU time the process took for them
(time.process_time: steps per second of one core, however busy the machine;
with two threads, both threads' time), and over the wall-clock time.

    python python/bench/steps.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Any, Callable

# numpy's BLAS threads would spin on the other core and count as our CPU time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import druids_engine  # noqa: E402


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row of ``masks``, drawn by numpy: the k-th
    legal index of each row, k uniform below the row's count."""
    rows, cols = np.nonzero(masks)
    counts = np.bincount(rows, minlength=len(masks))
    starts = np.cumsum(counts) - counts
    k = (rng.random(len(masks)) * counts).astype(np.int64)
    return cols[starts + k]


def rate(run: Callable[[int], int], steps: int) -> tuple[float, float]:
    """(steps per CPU second, steps per wall-clock second)."""
    run(max(1, steps // 10))  # warm up
    cpu, wall = time.process_time(), time.perf_counter()
    done = run(steps)
    return done / (time.process_time() - cpu), done / (time.perf_counter() - wall)


def druids_loop(game: str, players: int, observe: bool = False) -> Callable[[int], int]:
    """The single-game loop; with ``observe``, the seat's observation and the
    mask are read every step too."""

    def run(steps: int) -> int:
        rng = random.Random(1)
        g = druids_engine.Game(game, players, seed=1)
        seed = 1
        for _ in range(steps):
            if g.is_over:
                seed += 1
                g = druids_engine.Game(game, players, seed=seed)
            if observe:
                g.observation(g.to_act)
                g.legal_mask()
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
        return steps

    return run


def pyspiel_loop(name: str) -> Callable[[int], int]:
    import pyspiel

    game = pyspiel.load_game(name)

    def run(steps: int) -> int:
        rng = random.Random(1)
        state = game.new_initial_state()
        for _ in range(steps):
            if state.is_terminal():
                state = game.new_initial_state()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
        return steps

    return run


def connect_four_loop() -> Callable[[int], int]:
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()

    def run(steps: int) -> int:
        rng = random.Random(1)
        env.reset(seed=1)
        for _ in range(steps):
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset(seed=rng.randrange(1 << 30))
                continue
            mask = env.observe(env.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.randrange(len(legal))]))
        return steps

    return run


def vector(game: str, players: int, num_envs: int, threads: int) -> Callable[[int], int]:
    env = druids_engine.VectorEnv(game, players, num_envs, seed=1, threads=threads)
    rng = np.random.default_rng(1)

    def run(steps: int) -> int:
        calls = max(1, steps // num_envs)
        masks = env.masks
        for _ in range(calls):
            env.step(random_legal(masks, rng))
        return calls * num_envs

    return run


def vector_own_actions(game: str, players: int, num_envs: int, threads: int) -> Callable[[int], int]:
    """The vector env alone: actions chosen without numpy (first legal), to
    show what the env itself costs."""
    env = druids_engine.VectorEnv(game, players, num_envs, seed=1, threads=threads)

    def run(steps: int) -> int:
        calls = max(1, steps // num_envs)
        masks = env.masks
        for _ in range(calls):
            env.step(masks.argmax(axis=1))
        return calls * num_envs

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    k = 1 if args.quick else 5
    rows: list[tuple[str, tuple[float, float]]] = []
    rows.append(("Python loop, druids Meduris 4p", rate(druids_loop("meduris", 4), 20_000 * k)))
    rows.append(("Python loop, druids Meduris 4p + observation + mask", rate(druids_loop("meduris", 4, observe=True), 20_000 * k)))
    rows.append(("Python loop, druids Die Dolmengötter 5p", rate(druids_loop("dolmen", 5), 20_000 * k)))
    rows.append(("Python loop, OpenSpiel backgammon (pyspiel)", rate(pyspiel_loop("backgammon"), 20_000 * k)))
    rows.append(("Python loop, PettingZoo connect_four_v3", rate(connect_four_loop(), 20_000 * k)))
    for n in (64, 1024):
        rows.append((f"VectorEnv Meduris 4p, {n} envs, numpy random actions", rate(vector("meduris", 4, n, 1), 200_000 * k)))
    rows.append(("VectorEnv Meduris 4p, 1024 envs, first legal action", rate(vector_own_actions("meduris", 4, 1024, 1), 200_000 * k)))
    rows.append(("VectorEnv Meduris 4p, 1024 envs, 2 threads, numpy random actions", rate(vector("meduris", 4, 1024, 2), 200_000 * k)))
    rows.append(("VectorEnv Die Dolmengötter 5p, 1024 envs, numpy random actions", rate(vector("dolmen", 5, 1024, 1), 100_000 * k)))
    rows.append(("VectorEnv Die Dolmengötter 5p, 1024 envs, first legal action", rate(vector_own_actions("dolmen", 5, 1024, 1), 100_000 * k)))
    width = max(len(r[0]) for r in rows)
    print(f"| {'what':<{width}} | steps per CPU second | steps per second (wall) |")
    print(f"|{'-' * (width + 2)}|---:|---:|")
    for what, (cpu, wall) in rows:
        print(f"| {what:<{width}} | {cpu:,.0f} | {wall:,.0f} |")


if __name__ == "__main__":
    main()
