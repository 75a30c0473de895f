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
minute for all kernels) and a change never reuses a stale compilation. The
folders of older sources are removed, the last few used kept (:data:`KEEP_CACHES`).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
from pathlib import Path

import numpy as np

from ..rules.scoring import Outcome
from ..rules.variant import Variant
from ..variants import load_variant

OUTCOMES = tuple(Outcome)  # made, failed, litige, redeal: the order of the kernels' outcome codes


ENGINE_SOURCES = ("fast/*.py", "rules/*.py", "observation.py", "rewards.py")  # under belote_env/


def source_digest(*extra: Path) -> str:
    """A digest of every source the engine's kernels are compiled from (this package, the rules core, whose
    constant tables they freeze, the observation layout and the rewards), plus the files ``extra``."""
    root = Path(__file__).resolve().parent.parent
    files = sorted({f for pattern in ENGINE_SOURCES for f in root.glob(pattern)} | {Path(e) for e in extra},
                   key=lambda f: (f.name, str(f)))
    h = hashlib.sha1()
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


KEEP_CACHES = 4  # per tag: the cache folders of the sources used last (another checkout, a branch switched back to)


def _cache_dir(tag: str, digest: str) -> str:
    """A writable folder for numba's cache named after ``tag`` and ``digest``: numba checks only the
    timestamp of the file that defines a kernel, and kernels read constants of other modules (tables.py,
    the rules core), so a change there must not reuse a stale compilation. '' when none is writable.
    The folder's time is set to now (it was used) and the folders of the same tag beyond the
    :data:`KEEP_CACHES` used last are removed (:func:`_prune_caches`)."""
    bases = [os.environ.get("NUMBA_CACHE_DIR"), Path(__file__).resolve().parent / "__pycache__",
             Path.home() / ".cache" / "belote_env"]
    for base in bases:
        if not base:
            continue
        path = Path(base) / f"{tag}-{digest}"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            os.utime(path)
        except OSError:
            continue
        _prune_caches(Path(base), tag, KEEP_CACHES)
        return str(path)
    return ""


def _prune_caches(base: Path, tag: str, keep: int) -> list[Path]:
    """Remove the cache folders ``<tag>-<digest>`` of ``base`` but the ``keep`` used last (by their times);
    returns the removed ones. Errors (a folder another process removes or holds) are ignored."""
    pattern = re.compile(re.escape(tag) + r"-[0-9a-f]{16}")
    try:
        folders = [f for f in base.iterdir() if pattern.fullmatch(f.name) and f.is_dir()]
        folders.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    except OSError:
        return []
    for old in folders[keep:]:
        shutil.rmtree(old, ignore_errors=True)
    return folders[keep:]


def import_cached(module: str, tag: str, *extra: Path):
    """Import the numba module ``module`` (a dotted name) with numba's cache in a folder named after ``tag`` and
    :func:`source_digest` of the engine's sources plus ``extra`` (the module's own file and whatever it reads
    constants from), restoring numba's setting afterwards so other numba code keeps its own."""
    import importlib

    import numba

    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = _cache_dir(tag, source_digest(*extra)) or previous
    try:
        return importlib.import_module(module)
    finally:
        numba.config.CACHE_DIR = previous


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
