"""The ``random`` agent: a uniform choice among the legal actions."""

from __future__ import annotations

import random

import numpy as np

from belote_env.rules.info import InfoState

from .base import Agent
from .streams import to_uniform


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of the seat.

    It reads the legal set from ``action_mask`` (or from ``info``, the seat's
    InfoState, when it is given one: the same set); ``reset(seed)`` reseeds it, so
    a tournament that resets it with a seeded value replays identically.
    """

    name = "random"
    needs_observation = False
    needs_info = False  # the mask says what is legal; the play loop skips building InfoStates
    takes_seeds = True

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray | None, info: InfoState | None) -> int:
        if info is not None:
            legal = info.legal_actions()
        else:
            legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("RandomAgent.act was called with no legal action (empty mask, or a finished deal)")
        return legal[self.rng.randrange(len(legal))]

    def act_batch(self, observations, action_masks, infos, seeds=None) -> list[int]:
        """As :meth:`act` row by row; with ``seeds``, row ``i`` picks from ``seeds[i]`` (``agents.streams``)."""
        if seeds is None:
            return super().act_batch(observations, action_masks, infos)
        legal = np.asarray(action_masks) != 0
        count = legal.sum(axis=1)
        if not count.all():
            raise ValueError("RandomAgent.act_batch was called with an empty mask")
        k = (to_uniform(seeds) * count).astype(np.int64)  # the k-th legal action of each row
        return (legal.cumsum(axis=1) > k[:, None]).argmax(axis=1).tolist()
