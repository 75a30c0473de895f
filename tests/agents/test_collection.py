"""agents.collection's per-step kernels against the numpy they replace in ``train.collect``."""

import numpy as np

from agents.collection import credit_rewards, link_decisions


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
