"""Python's own random generator (MT19937) and ``random.shuffle``, in numba.

Every table of the batched engine deals exactly the cards that
``random.Random(seed)`` deals to the rules core: the generator state is taken
from ``Random.getstate()`` (624 words and the index, stored as 625 uint32) and
advanced here word for word as CPython's ``_randommodule.c`` does;
:func:`randbelow` and :func:`shuffle` follow ``Random._randbelow_with_getrandbits``
and ``Random.shuffle``. ``tests/belote_env/fast/test_mt.py`` checks them draw for draw
against the standard library.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

MT_N = 624
MT_M = 397
STATE_SIZE = MT_N + 1  # the 624 words, then the index
_VERSION = 3
BIT_LENGTH = np.array([n.bit_length() for n in range(256)], dtype=np.int64)


def state_of(rng: random.Random) -> np.ndarray:
    """The state of ``rng`` as 625 uint32 (words, then index)."""
    version, internal, _gauss = rng.getstate()
    if version != _VERSION:
        raise RuntimeError(f"unsupported random.Random state version {version}")
    return np.array(internal, dtype=np.uint32)


def random_from(state: np.ndarray) -> random.Random:
    """A ``random.Random`` continuing from a state written by :func:`state_of` or the kernels."""
    rng = random.Random()
    rng.setstate((_VERSION, tuple(int(x) for x in state), None))
    return rng


def seeded_state(seed: int) -> np.ndarray:
    return state_of(random.Random(seed))


@njit(cache=True)
def twist(mt) -> None:
    """The generator's next 624 words (CPython's genrand_uint32 refill), in three loops without modulo; kept out
    of line: it runs once per 624 draws, and inlined into every draw it slows the callers' loops."""
    upper, lower, matrix = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)
    one = np.uint32(1)
    for kk in range(MT_N - MT_M):
        y = (mt[kk] & upper) | (mt[kk + 1] & lower)
        v = mt[kk + MT_M] ^ (y >> one)
        if y & one:
            v ^= matrix
        mt[kk] = v
    for kk in range(MT_N - MT_M, MT_N - 1):
        y = (mt[kk] & upper) | (mt[kk + 1] & lower)
        v = mt[kk + MT_M - MT_N] ^ (y >> one)
        if y & one:
            v ^= matrix
        mt[kk] = v
    y = (mt[MT_N - 1] & upper) | (mt[0] & lower)
    v = mt[MT_M - 1] ^ (y >> one)
    if y & one:
        v ^= matrix
    mt[MT_N - 1] = v
    mt[MT_N] = 0


@njit(cache=True, inline="always")
def genrand(mt) -> np.uint32:
    """genrand_uint32 of CPython: one tempered 32-bit word; mt[624] is the index."""
    if mt[MT_N] >= MT_N:
        twist(mt)
    i = mt[MT_N]
    y = mt[i]
    mt[MT_N] = i + 1
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@njit(cache=True, inline="always")
def randbelow(mt, n):
    """``Random._randbelow(n)`` for 1 <= n < 2**16: getrandbits(k) with rejection."""
    k = 0
    m = n
    if m >= 256:
        m >>= 8
        k = 8
    k += BIT_LENGTH[m]
    shift = np.uint32(32 - k)
    r = np.int64(genrand(mt) >> shift)
    while r >= n:
        r = np.int64(genrand(mt) >> shift)
    return r


@njit(cache=True)
def shuffle(mt, x):
    """``Random.shuffle(x)`` in place."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = randbelow(mt, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t
