"""Random numbers that belong to a table: counter-based, so no draw depends on which other tables draw too.

Training collection (``agents.training.collection``, ``agents.training.ppo.collect``) takes every random decision of a table from
:func:`keys` ``(key, table, step, stream)``: the run's key (drawn from the collection generator when the
tables are re-dealt), the table's number in the run (``0 .. num_envs - 1``), the step since then and what the
number is for (:data:`OPPONENT`, :data:`TEAM`, :data:`SNAPSHOT`, :data:`NETWORK`, :data:`AGENT`,
:data:`RESEED`). A table therefore plays the same cards, opponents and actions whether the run's tables are
collected in one process or split among Ray rollout actors (``agents.training.ray_rollouts``): the split cannot change
a result (``tests/train/test_split_collection.py``).

The numbers are splitmix64 (Steele, Lea and Flood, 2014) applied in turn to the key, the stream, the table and
the step: each output bit depends on every input bit, which is what sampling needs; they are not for
cryptography.
"""

from __future__ import annotations

import numba
import numpy as np

from belote_env.numba_cache import heal_damaged_files

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal

OPPONENT, TEAM, SNAPSHOT, NETWORK, AGENT, RESEED = range(1, 7)  # the streams

_G = 0x9E3779B97F4A7C15  # 2**64 / golden ratio (Python int: scalar products wrap by hand, without numpy's warning)
_GOLDEN = np.uint64(_G)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


@numba.njit(cache=True, nogil=True, inline="always")
def mix1(z):
    """splitmix64's finaliser on one uint64 (wrapping arithmetic): the one definition of the mixing."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(cache=True, nogil=True, inline="always")
def uniform1(seed):
    """The float64 in [0, 1) of one uint64: its top 53 bits (:func:`to_uniform` of one number)."""
    return np.float64(seed >> _S11) * 2.0**-53


@numba.njit(cache=True, nogil=True)
def _mix_all(z, out):
    for i in range(len(z)):
        out[i] = mix1(z[i])


def _mix(z: np.ndarray) -> np.ndarray:
    """:func:`mix1` on every entry of a uint64 array."""
    z = np.ascontiguousarray(z, dtype=np.uint64)
    out = np.empty_like(z)
    _mix_all(z.reshape(-1), out.reshape(-1))
    return out


def derived(seeds, k: int) -> np.ndarray:
    """Independent uint64 numbers from ``seeds`` for an agent's ``k``-th draw (``k >= 1``) of one decision:
    ``mix1(seed + k)`` (a network with factored calls draws its strain and level from them)."""
    return _mix(np.asarray(seeds, dtype=np.uint64) + np.uint64(k))


def bases(key: int, tables, stream: int) -> np.ndarray:
    """The start of each table's ``stream`` under ``key`` (uint64, one per entry of ``tables``), for
    :func:`at_step`: computed once per key, it leaves one mixing round per draw."""
    t = np.asarray(tables, dtype=np.uint64)
    h = _mix(np.full(t.shape, (int(key) + _G * int(stream)) % 2**64, dtype=np.uint64))
    return _mix(h ^ (t * _GOLDEN))


def at_step(table_bases: np.ndarray, step: int, idx: np.ndarray | None = None) -> np.ndarray:
    """The numbers (uint64) at ``step`` of the streams that :func:`bases` started (of ``table_bases[idx]``
    when ``idx`` is given), in their shape."""
    return _step(table_bases, step, idx, np.uint64)


def uniforms_at(table_bases: np.ndarray, step: int, idx: np.ndarray | None = None) -> np.ndarray:
    """``to_uniform(at_step(table_bases, step, idx))`` in one pass: about 4 µs at a step's ~100 tables, against
    11 for the same arithmetic in numpy expressions (their temporaries)."""
    return _step(table_bases, step, idx, np.float64)


def _step(table_bases, step: int, idx, dtype) -> np.ndarray:
    b = np.asarray(table_bases, dtype=np.uint64)
    shape = b.shape if idx is None else np.shape(idx)
    rows = np.arange(b.size, dtype=np.int64) if idx is None else np.asarray(idx, dtype=np.int64).reshape(-1)
    out = np.empty(len(rows), dtype=dtype)
    (_uniform_at if dtype is np.float64 else _at_step)(b.reshape(-1), rows, np.uint64(_G * int(step) % 2**64), out)
    return out.reshape(shape)


@numba.njit(cache=True, nogil=True)
def _at_step(table_bases, rows, add, out):
    """``out[i] = mix1(table_bases[rows[i]] + add)``."""
    for i in range(len(rows)):
        out[i] = mix1(table_bases[rows[i]] + add)


@numba.njit(cache=True, nogil=True)
def _uniform_at(table_bases, rows, add, out):
    """``out[i] = uniform1(mix1(table_bases[rows[i]] + add))``."""
    for i in range(len(rows)):
        out[i] = uniform1(mix1(table_bases[rows[i]] + add))


def keys(key: int, tables, step: int, stream: int) -> np.ndarray:
    """One uint64 per entry of ``tables`` (table numbers): the number of (``key``, table, ``step``, ``stream``)."""
    return at_step(bases(key, tables, stream), step)


def uniforms(key: int, tables, step: int, stream: int) -> np.ndarray:
    """One float64 in [0, 1) per entry of ``tables``: the top 53 bits of :func:`keys`."""
    return to_uniform(keys(key, tables, step, stream))


def to_uniform(seeds) -> np.ndarray:
    """The float64 in [0, 1) of each uint64 of ``seeds`` (what an agent given ``seeds`` draws from)."""
    s = np.ascontiguousarray(seeds, dtype=np.uint64)
    out = np.empty(s.shape, dtype=np.float64)
    _uniform_all(s.reshape(-1), out.reshape(-1))
    return out


@numba.njit(cache=True, nogil=True)
def _uniform_all(seeds, out):
    for i in range(len(seeds)):
        out[i] = uniform1(seeds[i])


__all__ = ["AGENT", "NETWORK", "OPPONENT", "RESEED", "SNAPSHOT", "TEAM", "at_step", "bases", "keys", "to_uniform",
           "uniforms", "uniforms_at"]
