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


RNGS = ("cpython", "counter")


def rollout(variant: str | Variant = "coinche", num_deals: int = 100_000, seed: int = 0, rng: str = "cpython",
            **overrides):
    """Deal and play ``num_deals`` whole deals with uniformly random legal actions, in the kernels.

    Exactly what the rules core gives (bidding, play and scoring; a deal that everyone passes counts as one
    deal with outcome ``"redeal"`` and scores 0) for::

        rng = random.Random(seed)                          # rng="cpython" (the default)
        for k in range(num_deals):
            deal = play_random_deal(variant, rng, dealer=k % 4)

        for k in range(num_deals):                         # rng="counter": 1.9x faster
            deal = play_random_deal(variant, DealStream(seed, k), dealer=k % 4)

    With ``rng="counter"`` every deal has its own stream (:class:`~belote_env.fast.streams.DealStream`, the
    generator documented there), so :func:`rollout_deal` replays deal ``k`` alone. Runs on one core.

    Returns ``(scores, outcomes)``: int64[num_deals, 2] deal scores of teams
    0 and 1, and int8[num_deals] indices into :data:`OUTCOMES`.
    """
    from . import kernels, layout
    from .tables import variant_params

    v, num_deals, seed = _rollout_args(variant, num_deals, seed, rng, overrides)
    params = variant_params(v)
    scores = np.zeros((num_deals, 2), dtype=np.int64)
    outcomes = np.zeros(num_deals, dtype=np.int8)
    table = np.zeros((1, layout.NUM_COLUMNS), dtype=np.int64)
    if rng == "counter":
        kernels.rollout_counter(params, np.uint64(seed), table, np.zeros(1, dtype=np.uint64), scores, outcomes)
    else:
        from .mt import seeded_state

        kernels.rollout(params, seeded_state(seed), table, scores, outcomes)
    return scores, outcomes


def _rollout_args(variant, num_deals, seed, rng, overrides):
    if isinstance(num_deals, bool) or not isinstance(num_deals, (int, np.integer)) or num_deals < 0:
        raise ValueError(f"num_deals must be a non-negative int, got {num_deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, got {seed!r}")
    if rng not in RNGS:
        raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r}")
    if rng == "counter" and not 0 <= seed < 2**64:
        raise ValueError(f"with rng='counter' the seed is an int 0..2**64-1, got {seed!r}")
    return load_variant(variant, **overrides), int(num_deals), int(seed)


def reference_rollout(variant: str | Variant, num_deals: int, seed: int = 0, rng: str = "cpython", **overrides):
    """:func:`rollout` on the rules core (slow; the reference the kernels are tested against)."""
    from ..rules.state import play_random_deal
    from .streams import DealStream

    v, num_deals, seed = _rollout_args(variant, num_deals, seed, rng, overrides)
    gen = random.Random(seed) if rng == "cpython" else None
    scores = np.zeros((num_deals, 2), dtype=np.int64)
    outcomes = np.zeros(num_deals, dtype=np.int8)
    for k in range(num_deals):
        res = play_random_deal(v, gen if gen is not None else DealStream(seed, k), dealer=k % 4).result
        scores[k] = res.scores
        outcomes[k] = OUTCOMES.index(res.outcome)
    return scores, outcomes


def rollout_deal(variant: str | Variant, seed: int, k: int, rng: str = "counter", **overrides):
    """Deal ``k`` of ``rollout(variant, n, seed, rng=rng)`` (any n > k) replayed on the rules core: its
    :class:`~belote_env.rules.DealState`, every card and action. With ``rng="counter"`` from its own stream
    alone; with ``"cpython"`` after replaying the ``k`` deals before it."""
    from ..rules.state import play_random_deal
    from .streams import DealStream

    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative int, got {k!r}")
    v, _, seed = _rollout_args(variant, 0, seed, rng, overrides)
    if rng == "counter":
        return play_random_deal(v, DealStream(seed, int(k)), dealer=int(k) % 4)
    gen = random.Random(seed)
    for j in range(int(k)):
        play_random_deal(v, gen, dealer=j % 4)
    return play_random_deal(v, gen, dealer=int(k) % 4)


__all__ = ["rollout", "reference_rollout", "rollout_deal", "OUTCOMES", "RNGS"]
