"""A linear softmax policy over the engine's observation, masked to the legal
actions: what ``train.py`` learns and ``ladder.py`` plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


def features(observations: Floats) -> Floats:
    """The observation squashed (counts and flags alike) for a linear model."""
    return np.log1p(observations, dtype=np.float32)


class LinearPolicy:
    """logits = W · features(observation) + b, illegal actions masked out."""

    def __init__(self, actions: int, size: int, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.rng = np.random.default_rng(seed + 1)
        self.w: Floats = (rng.standard_normal((actions, size)) * 0.01).astype(np.float32)
        self.b: Floats = np.zeros(actions, np.float32)

    def logits(self, observations: Floats, masks: Mask) -> Floats:
        """Masked logits of a batch (rows) of observations."""
        z = features(observations) @ self.w.T + self.b
        return np.where(masks, z, np.float32(-1e9)).astype(np.float32)

    def probabilities(self, observations: Floats, masks: Mask) -> Floats:
        z = self.logits(observations, masks)
        z = z - z.max(axis=1, keepdims=True)
        e: Floats = (np.exp(z) * masks).astype(np.float32)
        p: Floats = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
        return p

    def __call__(self, observation: Floats, mask: Mask) -> int:
        """One seat's choice, drawn from the policy's probabilities."""
        p = self.probabilities(observation[None, :], mask[None, :])[0]
        k = int(np.searchsorted(p.cumsum(), self.rng.random()))
        return min(k, len(p) - 1)

    def save(self, path: Path) -> None:
        np.savez(path, w=self.w, b=self.b)

    @staticmethod
    def load(path: Path) -> "LinearPolicy":
        data = np.load(path)
        policy = LinearPolicy(*data["w"].shape)
        policy.w, policy.b = data["w"], data["b"]
        return policy
