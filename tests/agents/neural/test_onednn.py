"""agents.neural.onednn: oneDNN's products on the training path give nn.Linear's numbers up to rounding, with
gradients, row-invariant (collection and the PPO update record and recompute the same numbers)."""

import torch

from agents.neural import onednn


def test_linear_and_its_gradients_match_torch():
    g = torch.Generator().manual_seed(0)
    x = torch.relu(torch.randn(300, 64, generator=g)).requires_grad_()
    w = (torch.randn(40, 64, generator=g) * 0.1).requires_grad_()
    b = torch.randn(40, generator=g).requires_grad_()
    grads = []
    for f in (onednn.linear, torch.nn.functional.linear):
        x.grad = w.grad = b.grad = None
        y = f(x, w, b)
        (y.square().sum() + y[:, 3].sum()).backward()
        grads.append((y.detach(), x.grad.clone(), w.grad.clone(), b.grad.clone()))
    for fast, ref in zip(*grads):
        torch.testing.assert_close(fast, ref, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(onednn.linear(x, w), torch.nn.functional.linear(x, w), rtol=1e-5, atol=1e-4)


def test_rows_do_not_depend_on_the_batch_the_threads_or_the_packing(one_thread):
    """From 2 rows on (a single row runs another kernel: PolicyValueNet.forward_rows pads to 16 at least)."""
    g = torch.Generator().manual_seed(1)
    x = torch.relu(torch.randn(2100, 256, generator=g))
    w, b = torch.randn(113, 256, generator=g) * 0.06, torch.randn(113, generator=g)
    with torch.no_grad():
        whole = onednn.linear(x, w, b)
        packed = onednn.pack(w)
        for lo, hi in ((0, 2), (5, 9), (40, 56), (17, 120), (100, 2100), (3, 2051)):
            assert torch.equal(onednn.linear(x[lo:hi], w, b), whole[lo:hi])
            assert torch.equal(onednn.linear(x[lo:hi], packed, b), whole[lo:hi])
        torch.set_num_threads(2)
        assert torch.equal(onednn.linear(x, w, b), whole)


def test_other_dtypes_fall_back_to_torch():
    x, w = torch.randn(4, 3, dtype=torch.float64), torch.randn(2, 3, dtype=torch.float64)
    assert torch.equal(onednn.linear(x, w), torch.nn.functional.linear(x, w))
    assert onednn.pack(w).dtype == torch.float64


def test_available_in_the_pinned_torch():
    """torch 2.13's CPU build (the project's pin) has the op; without it, linear is torch's own."""
    if torch.__version__.startswith("2.13"):
        assert onednn.available()


def test_without_the_op_the_training_path_runs_on_torch(monkeypatch):
    """A torch build without oneDNN's op: linear is torch's product, pack a plain copy, and the network's
    training path (SparseObs batches, row_weights) gives its dense numbers up to rounding."""
    from agents.neural.network import PolicyValueNet
    from agents.neural.sparse import SparseObs

    monkeypatch.setattr(onednn, "_OP", [None])
    assert not onednn.available()
    torch.manual_seed(0)
    net = PolicyValueNet(hidden_sizes=[32, 16])
    x = torch.rand(40, net.obs_size) * (torch.rand(40, net.obs_size) < 0.05)
    mask = torch.ones(40, net.num_actions, dtype=torch.bool)
    w = onednn.pack(net.trunk[2].weight)
    assert w.layout == torch.strided and torch.equal(w, net.trunk[2].weight) and w.data_ptr() != net.trunk[2].weight.data_ptr()
    with torch.no_grad():
        dense = net(x, mask)
        for got in (net(SparseObs.from_dense(x), mask), net.forward_rows(x, mask, weights=net.row_weights())):
            for a, b in zip(got, dense):
                torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
