"""The ``random`` agent: a uniform choice among the legal actions."""

from __future__ import annotations

import random

import numba
import numpy as np

from agents.base import Agent
from agents.counter_rng import uniform1
from belote_env.numba_cache import heal_damaged_files
from belote_env.rules.info import InfoState

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal


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
        """As :meth:`act` row by row; with ``seeds``, row ``i`` picks from ``seeds[i]`` (``agents.counter_rng``)."""
        if seeds is None:
            return super().act_batch(observations, action_masks, infos)
        masks = np.ascontiguousarray(action_masks)
        if masks.dtype != np.int8:
            masks = (masks != 0).view(np.int8)  # bool and int8 masks are read as they are
        out = np.empty(len(masks), dtype=np.int64)
        if _kth_legal(masks, np.asarray(seeds, dtype=np.uint64).reshape(-1), out) >= 0:
            raise ValueError("RandomAgent.act_batch was called with an empty mask")
        return out.tolist()


@numba.njit(cache=True, nogil=True)
def _kth_legal(masks, seeds, out):
    """Row ``i``: the ``floor(uniform1(seeds[i]) * count)``-th of its ``count`` legal actions. Returns the first
    row without a legal action (nothing written from there), else -1."""
    for i in range(masks.shape[0]):
        count = 0
        for j in range(masks.shape[1]):
            count += masks[i, j] != 0
        if count == 0:
            return i
        k = np.int64(uniform1(seeds[i]) * count)
        for j in range(masks.shape[1]):
            if masks[i, j] != 0:
                if k == 0:
                    out[i] = j
                    break
                k -= 1
    return -1
