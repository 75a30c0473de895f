"""The batched engine: every variant as numba kernels over N tables.

``belote_env.fast`` plays the rules of ``belote_env.rules`` on many tables at
once, with each table's state one row of a struct-of-arrays (see
:mod:`.kernels`). It is a faster copy of the rules core, never a second
specification: the tests replay its tables on the rules core and compare
every observation, mask, seat, reward and result bit for bit.

- :class:`belote_env.vector.VectorEnv`: N tables stepped together, the
  interface for training and evaluation;
- :func:`rollout`: whole random deals inside the kernels, for search and
  speed comparisons.

Importing this package compiles nothing; the kernels are compiled on their
first call and cached on disk (``cache=True``) in a folder named after a
digest of their sources (this package, the rules core, the observation
layout), so only the first run after a change pays the compilation (about a
minute for all kernels) and a change never reuses a stale compilation
(:mod:`belote_env.numba_cache`).
"""

from __future__ import annotations

import random

import numpy as np

from ..numba_cache import import_cached
from ..rules.scoring import Outcome
from ..rules.variant import Variant
from ..variants import load_variant

OUTCOMES = tuple(Outcome)  # made, failed, litige, redeal: the order of the kernels' outcome codes


import_cached(f"{__name__}.kernels", "numba")  # imports .mt, the other kernel module, with the same cache


def rollout(variant: str | Variant = "coinche", num_deals: int = 100_000, seed: int = 0, **overrides):
    """Deal and play ``num_deals`` whole deals with uniformly random legal actions, in the kernels.

    Exactly what the rules core gives for::

        rng = random.Random(seed)
        for k in range(num_deals):
            deal = play_random_deal(variant, rng, dealer=k % 4)

    (bidding, play and scoring; a deal that everyone passes counts as one
    deal with outcome ``"redeal"`` and scores 0). Runs on one core.

    Returns ``(scores, outcomes)``: int64[num_deals, 2] deal scores of teams
    0 and 1, and int8[num_deals] indices into :data:`OUTCOMES`.
    """
    from . import kernels
    from .mt import seeded_state
    from .tables import variant_params

    if isinstance(num_deals, bool) or not isinstance(num_deals, (int, np.integer)) or num_deals < 0:
        raise ValueError(f"num_deals must be a non-negative int, got {num_deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, got {seed!r}")
    v = load_variant(variant, **overrides)
    params = variant_params(v)
    mt = seeded_state(int(seed))
    scores = np.zeros((int(num_deals), 2), dtype=np.int64)
    outcomes = np.zeros(int(num_deals), dtype=np.int8)
    kernels.rollout(params, mt, int(num_deals), scores, outcomes)
    return scores, outcomes


def reference_rollout(variant: str | Variant, num_deals: int, seed: int = 0, **overrides):
    """:func:`rollout` on the rules core (slow; the reference the kernels are tested against)."""
    from ..rules.state import play_random_deal

    v = load_variant(variant, **overrides)
    rng = random.Random(seed)
    scores = np.zeros((num_deals, 2), dtype=np.int64)
    outcomes = np.zeros(num_deals, dtype=np.int8)
    for k in range(num_deals):
        res = play_random_deal(v, rng, dealer=k % 4).result
        scores[k] = res.scores
        outcomes[k] = OUTCOMES.index(res.outcome)
    return scores, outcomes


__all__ = ["rollout", "reference_rollout", "OUTCOMES"]
