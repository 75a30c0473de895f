"""The sparse first layer (agents.neural.sparse) computes what the dense nn.Linear computes."""

import numpy as np
import pytest
import torch

from agents.neural.network import PolicyValueNet
from agents.training.learner import adam
from agents.neural.sparse import SparseObs, nonzeros
from belote_env.observation import OBS_SIZE
from belote_env.vector import VectorEnv


def _observations(n_steps=40, tables=64, seed=0):
    env = VectorEnv("coinche", tables, seed=seed)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    for _ in range(n_steps):
        rows.append(obs.copy())
        masks.append(mask.copy())
        a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, *_ = env.step(a)
    return np.concatenate(rows), np.concatenate(masks)


def test_nonzeros_pads_rows_and_keeps_values():
    x = np.zeros((3, 5), dtype=np.float32)
    x[0, [1, 4]] = [2.0, 0.5]
    x[2, 3] = 1.0
    idx, val = nonzeros(x)
    assert idx.shape == val.shape == (3, 2)
    assert idx[0].tolist() == [1, 4] and val[0].tolist() == [2.0, 0.5]
    assert val[1].tolist() == [0.0, 0.0]  # an empty row is all padding
    assert idx[2, 0] == 3 and val[2].tolist() == [1.0, 0.0]
    idx, val = nonzeros(np.zeros((2, 4), dtype=np.float32))
    assert idx.shape == (2, 1) and not val.any()


@pytest.mark.parametrize("columns", [5, 16, 17, 853])
def test_the_blocked_scan_finds_every_non_zero_entry_as_numpy_does(columns):
    """nonzeros and to_csr skip blocks of all-zero bits: entries at block edges and in the tail, -0.0
    (non-zero bits, equal to zero: skipped), NaN and denormals (kept) are found as np.nonzero finds them."""
    from agents.neural.sparse import from_csr, to_csr
    rng = np.random.default_rng(columns)
    x = (rng.random((60, columns)) < 0.05).astype(np.float32) * rng.normal(size=(60, columns)).astype(np.float32)
    x[0, :] = 0.0
    x[1, ::15] = 1.0
    x[2, -1] = 3.0
    x[3, min(16, columns - 1)] = -0.0
    x[4, 0] = np.nan
    x[5, columns // 2] = np.float32(1e-45)
    idx, val = nonzeros(x)
    indptr, cidx, cval = to_csr(x)
    for i, row in enumerate(x):
        (cols,) = np.nonzero(row)
        assert idx[i, :len(cols)].tolist() == cols.tolist() and not val[i, len(cols):].any()
        np.testing.assert_array_equal(val[i, :len(cols)], row[cols])
        assert cidx[indptr[i]:indptr[i + 1]].tolist() == cols.tolist()
    np.testing.assert_array_equal(from_csr(indptr, cidx, cval, np.ones_like(x)), np.where(x == 0, 0, x))


def test_forward_and_gradients_match_the_dense_layer():
    obs, mask = _observations()
    torch.manual_seed(0)
    net = PolicyValueNet()
    x, m = torch.from_numpy(obs), torch.from_numpy(mask)
    grads = []
    for batch in (x, SparseObs.from_dense(obs)):
        net.zero_grad()
        logits, value = net(batch, m)
        (torch.log_softmax(logits, -1)[:, :32].sum() * 1e-3 + value.square().sum()).backward()
        grads.append([p.grad.clone() for p in net.parameters()])
        if batch is x:
            dense = (logits.detach(), value.detach())
    logits, value = net(SparseObs.from_dense(obs), m)
    torch.testing.assert_close(logits, dense[0], rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(value, dense[1], rtol=1e-5, atol=1e-5)
    for g_dense, g_sparse in zip(*grads):
        torch.testing.assert_close(g_sparse, g_dense, rtol=1e-4, atol=1e-4 * float(g_dense.abs().max()))


def test_index_select_selects_rows_and_updates_see_new_weights():
    obs, mask = _observations(n_steps=5, tables=16)
    sp = SparseObs.from_dense(obs)
    rows = torch.tensor([3, 0, 7])
    sub = sp.index_select(0, rows)
    assert len(sub) == 3 and len(sp) == len(obs)
    net = PolicyValueNet()
    opt = adam(net, 1e-2)
    m = torch.from_numpy(mask).index_select(0, rows)
    for _ in range(2):  # the cached transposed weight follows the optimizer's in-place updates
        logits, value = net(sub, m)
        torch.testing.assert_close(value, net(torch.from_numpy(obs).index_select(0, rows), m)[1], rtol=1e-5, atol=1e-5)
        opt.zero_grad()
        value.sum().backward()
        opt.step()
    with pytest.raises(ValueError):
        sp.index_select(1, rows)
    assert sp.idx.shape[1] < OBS_SIZE // 4  # observations are sparse



def test_central_critic_reads_sparse_batches_as_dense_ones():
    from agents.training.critic import HIDDEN_SIZE, CentralCritic

    obs, _ = _observations(n_steps=6, tables=32)
    hidden = torch.from_numpy((np.random.default_rng(1).random((len(obs), HIDDEN_SIZE)) < 0.25).astype(np.float32))
    critic = CentralCritic(OBS_SIZE)
    dense = critic(torch.from_numpy(obs), hidden)
    sparse = critic(SparseObs.from_dense(obs), hidden)
    torch.testing.assert_close(sparse, dense, rtol=1e-5, atol=1e-5)
    sparse.sum().backward()
    g_sparse = critic.trunk[0].weight.grad.clone()
    critic.zero_grad()
    dense.sum().backward()
    torch.testing.assert_close(g_sparse, critic.trunk[0].weight.grad, rtol=1e-4, atol=1e-3)


def test_collections_first_layer_is_the_updates_bit_for_bit():
    from agents.neural.sparse import sparse_input_linear, sparse_rows_linear

    obs, _ = _observations()
    torch.manual_seed(0)
    layer = torch.nn.Linear(OBS_SIZE, 256)
    table = layer.weight.detach().t().contiguous()
    with torch.no_grad():
        full = sparse_input_linear(SparseObs.from_dense(obs), layer)  # rows padded to the widest
        for rows in (obs[:1], obs[:104], obs):
            out = sparse_rows_linear(torch.from_numpy(np.ascontiguousarray(rows)), table, layer.bias.detach())
            assert torch.equal(out, full[:len(rows)])
        empty = np.zeros((3, OBS_SIZE), dtype=np.float32)
        assert torch.equal(sparse_rows_linear(torch.from_numpy(empty), table, layer.bias.detach()),
                           layer.bias.detach().expand(3, -1))


def test_csr_rows_linear_is_the_scan_of_the_rows_padded_with_zero_rows():
    from agents.neural.sparse import csr_rows_linear, sparse_rows_linear, to_csr

    obs, _ = _observations(n_steps=5)
    rows = obs[[5, 3, 300, 3, 0]]
    indptr, idx, val = to_csr(rows)
    indptr, idx = indptr.astype(np.int64), idx.astype(np.int64)
    torch.manual_seed(0)
    layer = torch.nn.Linear(OBS_SIZE, 64)
    table, bias = layer.weight.detach().t().contiguous(), layer.bias.detach()
    got = csr_rows_linear(indptr, idx, val, 8, table, bias)
    assert torch.equal(got[:5], sparse_rows_linear(torch.from_numpy(rows), table, bias))
    assert torch.equal(got[5:], bias.expand(3, -1))
    none = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    assert torch.equal(csr_rows_linear(*none, 2, table, bias), bias.expand(2, -1))
    with pytest.raises(ValueError, match="5 rows .* for a batch of 4 rows"):
        csr_rows_linear(indptr, idx, val, 4, table, bias)
    with pytest.raises(ValueError, match="offsets from [1-9]"):
        csr_rows_linear(indptr[2:], idx, val, 8, table, bias)


def test_sparse_obs_from_csr_is_from_dense_bit_for_bit():
    from agents.neural.sparse import to_csr

    obs, _ = _observations(n_steps=3)
    obs[4] = 0.0  # a row without entries
    for rows in (obs, obs[4:5], obs[:0]):
        want, got = SparseObs.from_dense(rows), SparseObs.from_csr(*to_csr(rows))
        assert torch.equal(got.idx, want.idx) and torch.equal(got.val, want.val)
        assert got.idx.dtype == torch.int64 and got.val.dtype == torch.float32
    indptr, idx, val = to_csr(obs)
    part = SparseObs.from_csr(indptr[10:21], idx, val)  # offsets into idx and val as they are
    want = SparseObs.from_dense(obs[10:20])
    assert torch.equal(part.idx, want.idx) and torch.equal(part.val, want.val)
