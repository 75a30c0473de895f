"""Counter-based random streams for :func:`belote_env.fast.rollout` with ``rng="counter"``.

Deal ``k`` of a rollout seeded ``seed`` draws every random number (its shuffle, then each random legal action)
from its own stream, :class:`DealStream` ``(seed, k)``: SplitMix64 (Steele, Lea and Flood, 2014) started at

    state = mix(seed * 0x9E3779B97F4A7C15 + k)      (64-bit wrap-around)

where ``mix`` is SplitMix64's output function; each draw adds ``0x9E3779B97F4A7C15`` to the state and takes the
top 32 bits of ``mix(state)`` as a word ``w``; a number below ``n`` is ``(w * n) >> 32`` (a multiply-shift; its
bias is below ``n / 2**32``, under 3e-8 for the 112 actions). ``shuffle`` is Fisher-Yates from the end, as
``random.shuffle``; ``choice(seq)`` is ``seq[below(len(seq))]``.

A deal is thus replayed alone from ``(seed, k)``, without the deals before it, by the rules core
(``play_random_deal(variant, DealStream(seed, k), dealer=k % 4)``, :func:`belote_env.fast.rollout_deal`), and
the kernels here draw the same numbers as the Python class (``tests/belote_env/fast/test_rollout.py``). It is
faster in the kernels than CPython's Mersenne Twister with its rejection sampling, which
``rng="cpython"`` (the default) reproduces word for word.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def mix(z: int) -> int:
    """SplitMix64's output function on a 64-bit int."""
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def stream_start(seed: int, k: int) -> int:
    """The initial state of deal ``k``'s stream."""
    return mix((seed * GOLDEN + k) & MASK64)


class DealStream:
    """The random numbers of deal ``k`` of a rollout seeded ``seed`` (0 <= seed, k < 2**64): what the rules core
    needs from a generator to deal and play random deals (``shuffle`` and ``choice``)."""

    __slots__ = ("state",)

    def __init__(self, seed: int, k: int = 0):
        for name, value in (("seed", seed), ("k", k)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= MASK64:
                raise ValueError(f"{name} must be an int 0..2**64-1, got {value!r}")
        self.state = stream_start(int(seed), int(k))

    def word(self) -> int:
        """The next 32-bit word."""
        self.state = (self.state + GOLDEN) & MASK64
        return mix(self.state) >> 32

    def below(self, n: int) -> int:
        """A number in 0..n-1 (1 <= n < 2**32)."""
        return (self.word() * n) >> 32

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, x) -> None:
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]


_GOLDEN = np.uint64(GOLDEN)


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def start(seed, k):
    """:func:`stream_start` in the kernels (seed and k as uint64)."""
    return _mix(seed * _GOLDEN + k)


@njit(cache=True, inline="always")
def below(st, n):
    """:meth:`DealStream.below` on the one-word state array ``st`` (uint64[1])."""
    s = st[0] + _GOLDEN
    st[0] = s
    return np.int64(((_mix(s) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def shuffle(st, x):
    """:meth:`DealStream.shuffle` in place."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = below(st, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


__all__ = ["DealStream", "below", "mix", "shuffle", "start", "stream_start"]
