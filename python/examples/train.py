"""Train a policy in-process, show that it beats random, save it.

REINFORCE on a linear softmax policy (``policy.py``), numpy only, over the
engine's vector env: in every game one seat is the learner (a different seat
in each slot, so it learns every seat) and the others play uniformly random
legal actions; the learner's reward is its share of the win. Then
``druids_engine.evaluate`` plays the trained policy (sampling its choices,
as it plays on the ladder) against random with rotated seats and duplicate
seeds, and the policy is saved for ``ladder.py``.

    python python/examples/train.py --minutes 8 --out policy.npz
    python python/examples/train.py --games 1200 --out policy.npz   # a budget of games

Exits 1 unless the policy beats random with 95 % confidence.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import druids_engine
from policy import Floats, LinearPolicy, features


def train(
    game: str, players: int, seconds: float, max_games: int, envs: int, seed: int
) -> LinearPolicy:
    """Trains until ``max_games`` games are played or ``seconds`` have passed."""
    env = druids_engine.VectorEnv(game, players, envs, seed=seed)
    probe = druids_engine.Game(game, players)
    policy = LinearPolicy(probe.num_actions, probe.observation_size, seed)
    rng = np.random.default_rng(seed)
    learner = np.arange(envs) % players
    eye = np.eye(probe.num_actions, dtype=np.float32)
    # Each slot's learner decisions since its game began: features, and the
    # gradient of log π(action) with respect to the logits (one-hot − π).
    xs: list[list[Floats]] = [[] for _ in range(envs)]
    ds: list[list[Floats]] = [[] for _ in range(envs)]
    baseline, lr_w, lr_b, batch = 1.0 / players, 0.01, 1.0, 16
    grad_w, grad_b = np.zeros_like(policy.w), np.zeros_like(policy.b)
    games = updates = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end and games < max_games:
        obs, masks, to_act = env.observations, env.masks, env.to_act
        mine = np.flatnonzero(to_act == learner)
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)  # random seats
        if len(mine):
            probs = policy.probabilities(obs[mine], masks[mine])
            picked = (probs.cumsum(axis=1) > rng.random((len(mine), 1))).argmax(axis=1)
            actions[mine] = picked
            x, d = features(obs[mine]), eye[picked] - probs
            for k, i in enumerate(mine):
                xs[i].append(x[k])
                ds[i].append(d[k])
        env.step(actions.astype(np.int64))
        for i in np.flatnonzero(env.terminations):
            g = float(env.rewards[i, learner[i]])
            advantage = g - baseline
            baseline += 0.02 * (g - baseline)
            if xs[i]:
                d_all, x_all = np.stack(ds[i]), np.stack(xs[i])
                grad_w += advantage * (d_all.T @ x_all)
                grad_b += advantage * d_all.sum(axis=0)
            xs[i], ds[i] = [], []
            games += 1
            if games % batch == 0:
                policy.w += lr_w * grad_w / batch
                policy.b += lr_b * grad_b / batch
                grad_w[:] = 0.0
                grad_b[:] = 0.0
                updates += 1
    took = seconds - (end - time.monotonic())
    print(f"trained on {games} games ({updates} updates) in {took:.0f} s", file=sys.stderr)
    return policy


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="meduris")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--minutes", type=float, default=8.0, help="at most this long")
    p.add_argument("--games", type=int, default=1_000_000, help="at most this many training games")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("policy.npz"))
    args = p.parse_args()

    policy = train(args.game, args.players, args.minutes * 60, args.games, args.envs, args.seed)
    agents: list[druids_engine.Agent] = [policy, *["random"] * (args.players - 1)]
    result = druids_engine.evaluate(
        agents, args.game, players=args.players, games=args.eval_games, seed=10_000, progress=False
    )
    for s in result.standings:
        m = s.summary
        print(
            f"{s.name}: win rate {m['win_rate']:.3f} [{m['win_rate_low']:.3f}, {m['win_rate_high']:.3f}],"
            f" mean score {m['mean_score']:.1f} [{m['mean_score_low']:.1f}, {m['mean_score_high']:.1f}]"
        )
    policy.save(args.out)
    beats = result.beats(0, 1.0 / args.players)
    print(f"saved {args.out}; beats random with 95 % confidence: {beats}")
    return 0 if beats else 1


if __name__ == "__main__":
    sys.exit(main())
