"""A table plays the same game whatever other tables are collected with it (agents.counter_rng): collecting tables
0..11 in one process, or tables 0..4 and 5..11 apart and merging the two rollouts as the Ray driver does
(agents.training.ray_rollouts.merge_rollouts), gives the same buffer, bit for bit. This is what makes a Ray run equal a
local run of the same seed (tests/train/test_ray.py runs both)."""

import numpy as np
import pytest
import torch

from agents.neural import onednn
from agents.neural.network import PolicyValueNet
from agents.neural.sampling import policy_terms
from agents.neural.sparse import SparseObs
from agents.training import ppo
from agents.training.collection import Collector
from agents.training.ray_rollouts import BUFFER_FIELDS, merge_rollouts, pack_rollout
from belote_env.variants import load_variant

STEPS, ROLLOUTS, KEY = 24, 3, 77


def _collect(ids, net, mix):
    tables = Collector(load_variant("coinche"), len(ids), mix, np.random.default_rng(0), True, table_ids=list(ids), key=KEY)
    out = []
    for _ in range(ROLLOUTS):
        buf = ppo.Rollout(len(ids) * STEPS)
        stats = {"return_team0": [], "return_team1": []}
        ppo.collect(net, tables, buf, STEPS, stats)
        out.append((buf, stats))
    return out


@pytest.mark.parametrize("hidden", [[256, 256], [32]])
def test_split_tables_collect_the_same_rollouts(hidden, one_thread):
    torch.manual_seed(0)
    net = PolicyValueNet(hidden_sizes=hidden)
    net.eval()
    mix = {"random": 0.3, "heuristic": 0.3}
    whole = _collect(range(12), net, mix)
    halves = [_collect(range(0, 5), net, mix), _collect(range(5, 12), net, mix)]
    for r, (buf, stats) in enumerate(whole):
        merged = ppo.Rollout(12 * STEPS)
        merge_rollouts([pack_rollout(h[r][0], h[r][0].size) for h in halves], merged)
        n = buf.size
        assert merged.size == n > 0 and merged.per_step == buf.per_step
        for name in BUFFER_FIELDS:
            assert np.array_equal(merged.rows(name, 0, n), buf.rows(name, 0, n)), (r, name)
        parts = [h[r][1] for h in halves]
        for key in set(stats) | {k for p in parts for k in p}:
            got = [v for p in parts for v in (p.get(key, []) if isinstance(p.get(key, []), list) else [p[key]])]
            want = stats.get(key, []) if isinstance(stats.get(key, []), list) else [stats[key]]
            if key == "all_pass":
                assert sum(got) == sum(want)
            else:
                assert sorted(got) == sorted(want), key


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "row_weights"])
def test_forward_rows_does_not_depend_on_the_batch(one_thread, sparse):
    torch.manual_seed(1)
    net = PolicyValueNet()
    weights = net.row_weights() if sparse else None
    x = torch.rand(300, net.obs_size) * (torch.rand(300, net.obs_size) < 0.05)
    x[7] = 0  # a row without entries
    mask = torch.rand(300, net.num_actions) < 0.3
    mask[:, 0] = True
    alone = [net.forward_rows(x[i:i + 1], mask[i:i + 1], weights=weights) for i in range(300)]
    rng = np.random.default_rng(0)
    for _ in range(40):
        lo = int(rng.integers(0, 299))
        hi = int(rng.integers(lo + 1, 301))
        logits, value = net.forward_rows(x[lo:hi], mask[lo:hi], weights=weights)
        for i in range(lo, hi, 5):
            assert torch.equal(logits[i - lo], alone[i][0][0]) and torch.equal(value[i - lo], alone[i][1][0])
        assert torch.equal(net.value_rows(x[lo:hi], weights), value)


def test_forward_rows_on_the_row_weights_is_the_dense_pass_up_to_rounding(one_thread):
    """Collection's training path (the non-zero entries' rows of the first layer's table, oneDNN's products)
    gives the dense layers' numbers up to float rounding; the weights are copies, read once (weights changed
    afterwards are not seen)."""
    torch.manual_seed(2)
    net = PolicyValueNet()
    x = torch.rand(100, net.obs_size) * (torch.rand(100, net.obs_size) < 0.05)
    mask = torch.ones(100, net.num_actions, dtype=torch.bool)
    weights = net.row_weights()
    dense, sparse = net.forward_rows(x, mask), net.forward_rows(x, mask, weights=weights)
    for a, b in zip(dense, sparse):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    before = sparse[0].clone()
    with torch.no_grad():
        net.trunk[0].weight.add_(1.0)
        net.trunk[2].weight.add_(1.0)
        net.policy.weight.add_(1.0)
    assert torch.equal(net.forward_rows(x, mask, weights=weights)[0], before)


def test_collection_records_the_numbers_the_update_recomputes(one_thread):
    """Collection's forward pass is the update's (the first layer by embedding_bag over the non-zero entries,
    agents.neural.sparse; the other products by oneDNN, agents.neural.onednn, whose rows do not depend on the batch),
    so the log-probabilities and values it records are those the PPO update computes from the rollout, bit for
    bit: the first minibatch's ratio is exactly 1."""
    torch.manual_seed(3)
    net = PolicyValueNet()
    buf = _collect(range(12), net, {"random": 0.3, "heuristic": 0.3})[0][0]
    n = buf.size
    rows = torch.randperm(n)[:n // 2]  # a minibatch
    with torch.no_grad():
        logits, value = net(SparseObs.from_dense(buf.observations(0, n)).index_select(0, rows),
                            torch.from_numpy(buf.mask[:n]).index_select(0, rows))
    logp = policy_terms(logits)[0].gather(1, torch.from_numpy(buf.actions[:n])[rows][:, None]).squeeze(1)
    assert np.array_equal(logp.numpy(), buf.logprobs[:n][rows.numpy()])
    if onednn.available():
        assert np.array_equal(value.numpy(), buf.values[:n][rows.numpy()])
    else:  # MKL's one-column value product sums some row counts in another order
        np.testing.assert_allclose(value.numpy(), buf.values[:n][rows.numpy()], rtol=1e-5, atol=1e-6)


def test_collection_runs_on_one_thread_whatever_the_update_uses():
    """torch_threads > 1 speeds the PPO update; collection still runs on one thread (ppo.collect is wrapped in
    agents.neural.network.one_thread), where forward_rows is row-invariant, so the split still equals the whole."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        torch.manual_seed(0)
        net = PolicyValueNet(hidden_sizes=[32])
        net.eval()
        seen = []
        forward = net.forward_nonzeros  # collection's forward pass

        def spy(*args, **kwargs):
            seen.append(torch.get_num_threads())
            return forward(*args, **kwargs)

        net.forward_nonzeros = spy
        whole = _collect(range(12), net, {"heuristic": 0.5})
        halves = [_collect(range(0, 5), net, {"heuristic": 0.5}), _collect(range(5, 12), net, {"heuristic": 0.5})]
        assert seen and set(seen) == {1} and torch.get_num_threads() == 2
        merged = ppo.Rollout(12 * STEPS)
        merge_rollouts([pack_rollout(h[0][0], h[0][0].size) for h in halves], merged)
        n = whole[0][0].size
        for name in BUFFER_FIELDS:
            assert np.array_equal(merged.rows(name, 0, n), whole[0][0].rows(name, 0, n)), name
    finally:
        torch.set_num_threads(threads)


def test_forward_nonzeros_is_forward_rows_bit_for_bit(one_thread):
    """Collection's forward pass on the rows' non-zero entries (as the rollout buffer keeps them) gives
    forward_rows' numbers on the dense rows, bit for bit, whatever the padding rows hold."""
    from agents.neural.network import padded_rows
    from agents.training.collection import Rollout

    torch.manual_seed(3)
    net = PolicyValueNet()
    weights = net.row_weights()
    x = (torch.rand(120, net.obs_size) * (torch.rand(120, net.obs_size) < 0.05)).numpy()
    mask = torch.rand(120, net.num_actions) < 0.3
    mask[:, 0] = True
    buf = Rollout(120)
    for n in (1, 15, 97, 104, 120):
        nonzeros = buf.add_observations(0, x, np.arange(n))
        want = net.forward_rows(torch.from_numpy(x[:n]), mask[:n], weights=weights)
        for m in (mask[:n], mask[:padded_rows(n)] if padded_rows(n) <= 120 else mask[:n]):
            got = net.forward_nonzeros(nonzeros, m, n, weights)
            assert all(torch.equal(a, b) for a, b in zip(got, want)), n
