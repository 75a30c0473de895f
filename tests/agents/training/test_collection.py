"""agents.training.collection's per-step kernels against the numpy they replace in ``train.collect``, and the rollout
buffer's observations (kept as their non-zero entries)."""

import numpy as np
import pytest
import torch

from agents.training.collection import ENTRIES_PER_ROW, Rollout, credit_rewards, link_decisions
from agents.neural.sparse import SparseObs, to_csr
from belote_env.observation import OBS_SIZE
from belote_env.vector import VectorEnv


def test_link_decisions_links_each_seat_to_its_next_decision():
    rng = np.random.default_rng(0)
    n, size = 64, 0
    last = np.full((n, 4), -1, dtype=np.int64)
    ref_last = last.copy()
    next_index, next_value = np.full(2000, -1, np.int64), np.zeros(2000, np.float32)
    ref_index, ref_value = next_index.copy(), next_value.copy()
    values = rng.normal(size=2000).astype(np.float32)
    for _ in range(20):
        seat = rng.integers(0, 4, n).astype(np.int8)
        mine = np.flatnonzero(rng.random(n) < 0.7)
        link_decisions(mine, seat, last, size, values, next_index, next_value)
        # the numpy of train.collect until 2026-12-02
        j = np.arange(size, size + len(mine))
        s = seat[mine]
        prev = ref_last[mine, s]
        linked = prev >= 0
        ref_index[prev[linked]] = j[linked]
        ref_value[prev[linked]] = values[j[linked]]
        ref_last[mine, s] = j
        size += len(mine)
        ends = rng.random(n) < 0.1
        last[ends] = ref_last[ends] = -1
    assert np.array_equal(last, ref_last) and np.array_equal(next_index, ref_index)
    assert np.array_equal(next_value, ref_value)


def test_credit_rewards_adds_each_seats_reward_to_its_last_decision():
    rng = np.random.default_rng(1)
    last = rng.integers(-1, 300, (50, 4))
    last[last >= 0] = rng.permutation(300)[:int((last >= 0).sum())]  # a decision belongs to one seat
    rewards = (rng.normal(size=(50, 4)) * (rng.random((50, 1)) < 0.3)).astype(np.float32)
    out = rng.normal(size=300).astype(np.float32)
    ref = out.copy()
    credit_rewards(rewards, last, out)
    scored = np.flatnonzero(rewards.any(axis=1))
    prev = last[scored]
    np.add.at(ref, prev[prev >= 0], rewards[scored][prev >= 0])
    assert np.array_equal(out, ref)


def _engine_rows(n=32, steps=6):
    env = VectorEnv("coinche", n, seed=4)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(4)
    out = []
    for _ in range(steps):
        out.append(obs)
        obs, mask, *_ = env.step(np.argmax(mask * rng.random(mask.shape), axis=1))
    return out


def test_the_buffer_keeps_the_rows_it_is_given():
    buf = Rollout(200)
    rng = np.random.default_rng(0)
    want, start = [], 0
    for obs in _engine_rows():
        rows = np.flatnonzero(rng.random(len(obs)) < 0.7)
        rows[::3] = rows[::-1][::3]  # any order, repeats allowed
        indptr, idx, val = buf.add_observations(start, obs, rows)
        ref = to_csr(obs[rows])
        assert np.array_equal(indptr, ref[0]) and np.array_equal(idx, ref[1]) and np.array_equal(val, ref[2])
        want.append(obs[rows])
        start += len(rows)
    buf.size = start
    dense = np.concatenate(want)
    assert np.array_equal(buf.observations(), dense) and np.array_equal(buf.rows("obs"), dense)
    assert np.array_equal(buf.observations(10, 20), dense[10:20])
    sparse, ref = buf.sparse_observations(), SparseObs.from_dense(dense)  # what the PPO update reads
    assert torch.equal(sparse.idx, ref.idx) and torch.equal(sparse.val, ref.val)
    for a, b in zip(buf.csr_observations(), to_csr(dense)):
        assert np.array_equal(a, b) and a.dtype == b.dtype
    # rows written again from a position: those before kept, those after dropped
    again = _engine_rows(4, 1)[0]
    buf.add_observations(5, again, np.array([3, 1]))
    assert np.array_equal(buf.observations(0, 7), np.concatenate([dense[:5], again[[3, 1]]]))


def test_the_buffer_grows_for_dense_rows_and_places_rows_in_any_order():
    buf = Rollout(10)
    full = np.arange(1, 10 * OBS_SIZE + 1, dtype=np.float32).reshape(10, OBS_SIZE)  # 853 entries a row
    assert OBS_SIZE > ENTRIES_PER_ROW
    buf.add_observations(0, full, np.arange(10))
    assert np.array_equal(buf.observations(0, 10), full)
    order = np.array([4, 0, 9, 1, 2, 3, 5, 6, 8, 7])
    x = np.zeros((10, OBS_SIZE), dtype=np.float32)
    x[np.arange(10), np.arange(10) * 7] = np.arange(10) + 0.5
    buf.write_observations(0, *to_csr(x), order=order)
    placed = np.empty_like(x)
    placed[order] = x
    assert np.array_equal(buf.observations(0, 10), placed)


def test_the_buffer_rejects_bad_rows():
    buf = Rollout(4)
    obs = _engine_rows(4, 1)[0]
    with pytest.raises(ValueError, match="past the rollout buffer's 4"):
        buf.add_observations(2, obs, np.arange(3))
    with pytest.raises(IndexError, match="rows must lie in 0..3"):
        buf.add_observations(0, obs, np.array([4]))
    with pytest.raises(ValueError, match="float32"):
        buf.add_observations(0, obs.astype(np.float64), np.array([0]))
    with pytest.raises(ValueError, match="permutation"):
        buf.write_observations(0, *to_csr(obs), order=np.array([0, 0, 1, 2]))
