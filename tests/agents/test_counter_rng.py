"""The tables' own random numbers (agents.counter_rng) and the agents that draw from them (``takes_seeds``)."""

import numpy as np

from agents import make_agent
from agents.counter_rng import AGENT, NETWORK, keys, to_uniform, uniforms


def test_numbers_are_fixed_by_their_inputs_and_change_with_each():
    tables = np.arange(1000)
    u = uniforms(5, tables, 3, NETWORK)
    assert u.dtype == np.float64 and ((u >= 0) & (u < 1)).all()
    assert np.array_equal(u, uniforms(5, tables, 3, NETWORK))
    assert np.array_equal(u[[7, 300]], uniforms(5, [7, 300], 3, NETWORK))  # a table's number alone
    for other in (uniforms(6, tables, 3, NETWORK), uniforms(5, tables, 4, NETWORK), uniforms(5, tables, 3, AGENT),
                  uniforms(5, tables + 1000, 3, NETWORK)):
        assert np.mean(other == u) < 0.01
    assert np.array_equal(to_uniform(keys(5, tables, 3, NETWORK)), u)


def test_numbers_look_uniform_and_independent():
    u = uniforms(2**40 + 3, np.arange(200_000), 17, AGENT)
    counts = np.bincount((u * 20).astype(int), minlength=20)
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 45  # 19 degrees of freedom: p < 0.001 above 43.8
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.01  # neighbouring tables
    steps = np.array([uniforms(9, [4], t, AGENT)[0] for t in range(20_000)])
    assert abs(steps.mean() - 0.5) < 0.01 and abs(np.corrcoef(steps[:-1], steps[1:])[0, 1]) < 0.03


def test_random_agent_draws_each_decision_from_its_seed():
    rng = np.random.default_rng(0)
    masks = (rng.random((500, 112)) < 0.1).astype(np.int8)
    masks[:, 3] = 1
    seeds = keys(1, np.arange(500), 0, AGENT)
    agent = make_agent("random")
    got = agent.act_batch(None, masks, [None] * 500, seeds=seeds)
    assert all(masks[i, a] for i, a in enumerate(got))
    assert got[10:20] == agent.act_batch(None, masks[10:20], [None] * 10, seeds=seeds[10:20])
    counts = np.zeros(112)
    one = np.zeros((1, 112), dtype=np.int8)
    one[0, [5, 9, 40]] = 1
    for a in agent.act_batch(None, np.repeat(one, 3000, 0), [None] * 3000, seeds=keys(2, np.arange(3000), 0, AGENT)):
        counts[a] += 1
    assert set(np.flatnonzero(counts)) == {5, 9, 40} and counts.min(initial=3000, where=counts > 0) > 900


def test_a_sampling_neural_agent_draws_each_row_from_its_seed():
    import torch

    from agents.neural.agent import NeuralAgent
    from agents.neural.network import PolicyValueNet

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # forward_rows is row-invariant with one thread
    try:
        torch.manual_seed(0)
        agent = NeuralAgent(PolicyValueNet(hidden_sizes=[64]), sample=True)
        rng = np.random.default_rng(1)
        obs = (rng.random((40, agent.net.obs_size)) < 0.05).astype(np.float32)
        masks = (rng.random((40, 112)) < 0.3).astype(np.int8)
        masks[:, 0] = 1
        seeds = keys(3, np.arange(40), 0, AGENT)
        got = agent.act_batch(obs, masks, [None] * 40, seeds=seeds)
        assert all(masks[i, a] for i, a in enumerate(got))
        assert [agent.act_batch(obs[i:i + 1], masks[i:i + 1], [None], seeds=seeds[i:i + 1])[0] for i in range(40)] == got
    finally:
        torch.set_num_threads(threads)


def test_a_tables_numbers_are_the_streams_numbers():
    from agents.training.collection import Collector
    from agents.counter_rng import OPPONENT
    from belote_env.variants import load_variant

    tables = Collector(load_variant("coinche"), 4, {"random": 0.5}, np.random.default_rng(0), table_ids=[7, 3, 9, 20], key=11)
    tables.t = 5
    assert np.array_equal(tables.numbers(np.array([1, 3]), OPPONENT), uniforms(11, [3, 20], 5, OPPONENT))
    assert np.array_equal(tables.agent_seeds(), keys(11, [7, 3, 9, 20], 5, AGENT))


def test_the_compiled_steps_are_the_numpy_mixing():
    from agents.counter_rng import _G, _M1, _M2, at_step, bases, uniforms_at

    def _mix(z):  # splitmix64's finaliser in numpy, as agents.counter_rng computed it until 2026-12-02
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))

    b = bases(2**33 + 5, np.arange(300), NETWORK)
    idx = np.array([299, 0, 7, 7, 150])
    for step in (0, 1, 64, 2**40, 2**70):
        expected = _mix(b + np.uint64(_G * step % 2**64))
        assert np.array_equal(at_step(b, step), expected)
        assert np.array_equal(at_step(b, step, idx), expected[idx])
        assert np.array_equal(uniforms_at(b, step, idx), (expected[idx] >> np.uint64(11)).astype(np.float64) * 2.0**-53)
    grid = bases(3, np.arange(12).reshape(3, 4), AGENT)
    assert at_step(grid, 4).shape == (3, 4)
    assert np.array_equal(at_step(grid, 4), _mix(grid + np.uint64(_G * 4 % 2**64)))
    assert uniforms_at(b, 3, np.array([], dtype=np.int64)).shape == (0,)


def test_the_random_agents_kernel_picks_the_numpy_formulas_action():
    import pytest

    from agents.random_agent import RandomAgent
    from agents.counter_rng import at_step, bases

    def numpy_pick(masks, seeds):  # RandomAgent.act_batch with seeds until 2026-12-02
        legal = np.asarray(masks) != 0
        u = (np.asarray(seeds, dtype=np.uint64) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        k = (u * legal.sum(axis=1)).astype(np.int64)
        return (legal.cumsum(axis=1) > k[:, None]).argmax(axis=1).tolist()

    agent, rng = RandomAgent(), np.random.default_rng(0)
    for trial in range(100):
        n = int(rng.integers(1, 60))
        m = rng.random((n, 112)) < rng.uniform(0.01, 1)
        m[np.arange(n), rng.integers(0, 112, n)] = True
        seeds = at_step(bases(trial, np.arange(n), AGENT), trial)
        seeds[0] = np.uint64(2**64 - 1)  # u just under 1: the last legal action
        for masks in (m, m.astype(np.int8), m.astype(np.float32)):
            assert agent.act_batch(None, masks, [None] * n, seeds=seeds) == numpy_pick(masks, seeds), trial
    m[-1] = False
    with pytest.raises(ValueError, match="empty mask"):
        agent.act_batch(None, m, [None] * n, seeds=seeds)
