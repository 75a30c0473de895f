"""The kernels' generator is Python's: same words, same randbelow, same shuffle."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from belote_env.fast.mt import genrand, randbelow, random_from, shuffle, state_of


@njit  # not cached: it reads the kernels' constants, which numba's cache would not track
def _words(mt, n):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = genrand(mt)
    return out


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 + 7, 2**63 + 3])
def test_words_shuffle_and_randbelow_match_the_standard_library(seed):
    rng = random.Random(seed)
    mt = state_of(rng)
    # 2,000 words: more than three regenerations of the 624-word state.
    assert _words(mt, 2000).tolist() == [rng.getrandbits(32) for _ in range(2000)]
    assert random_from(mt).getstate() == rng.getstate()
    for _ in range(50):
        x = np.arange(32, dtype=np.int64)
        shuffle(mt, x)
        y = list(range(32))
        rng.shuffle(y)
        assert x.tolist() == y
    for n in (1, 2, 3, 7, 8, 31, 32, 33, 66, 100, 255, 256, 1000):
        assert randbelow(mt, n) == rng._randbelow(n)
    assert random_from(mt).getstate() == rng.getstate()
