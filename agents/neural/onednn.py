"""The hidden layers' and heads' products on the training path, through oneDNN: :func:`linear`.

``torch.nn.functional.linear`` on a CPU float32 batch runs MKL's product; oneDNN's
(``torch.ops.mkldnn._linear_pointwise``, the kernel ``torch.compile`` uses for CPU linear layers) is faster at
the training path's batch sizes (``python benchmarks/dev/bench_onednn.py`` compares them; figures in
docs/notes/training.md).

:func:`linear` is that product, with a gradient:

- forward: ``x W^T + b`` by oneDNN;
- backward: the input's gradient ``G W`` by oneDNN too, the weight's ``G^T X`` and the bias's ``G.sum(0)``
  by torch (oneDNN's product for the weight's gradient measured too unsteady from one process to another).

With torch 2.13, its results do not depend on the batch they come in (each row's sums run in one
order, for 2 to 3,000 rows; a single row runs another kernel), nor on the thread count, nor on whether the weight was packed beforehand
(:func:`pack`). So ``agents.training.ppo.collect``'s forward pass (one batch a step) and the PPO update's (minibatches of
2,048 rows) give the same numbers, bit for bit, and collection stays row-invariant (a Ray run equals the
local one); ``tests/agents/neural/test_onednn.py`` checks both, and falls back with the product if not.

Where the oneDNN op is missing (a torch build without it) or for another dtype or device, :func:`linear`
is ``torch.nn.functional.linear``. The play path (``PolicyValueNet.forward`` on dense batches:
``NeuralAgent``, tournaments, the ladder) keeps ``nn.Linear``, so the published tables replay.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

_OP: list = []  # [the oneDNN op or None], probed on first use


def _op():
    if not _OP:
        op = None
        try:
            if torch.backends.mkldnn.is_available():
                candidate = torch.ops.mkldnn._linear_pointwise
                x = torch.ones(2, 3)
                if torch.allclose(candidate(x, torch.ones(4, 3), torch.zeros(4), "none", [], ""), torch.full((2, 4), 3.0)):
                    op = candidate
        except Exception:  # noqa: BLE001 - a build without the op, or with another signature: torch's own product
            op = None
        _OP.append(op)
    return _OP[0]


def available() -> bool:
    """Whether :func:`linear` runs on oneDNN in this torch build."""
    return _op() is not None


def _supported(x: torch.Tensor, weight: torch.Tensor) -> bool:
    return (x.dim() == 2 and x.dtype == torch.float32 and weight.dtype == torch.float32
            and x.device.type == "cpu" and weight.device.type == "cpu" and _op() is not None)


class _Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return _OP[0](x.contiguous(), weight, bias, "none", [], "")

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_out = grad_out.contiguous()
        grad_x = grad_w = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_x = _OP[0](grad_out, weight.t().contiguous(), None, "none", [], "")
        if ctx.needs_input_grad[1]:
            grad_w = grad_out.t() @ x
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_b = grad_out.sum(0)
        return grad_x, grad_w, grad_b


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``torch.nn.functional.linear(x, weight, bias)`` by oneDNN for a 2-D CPU float32 batch (gradients
    included); the same numbers up to float rounding. ``weight``: a plain ``(outputs, inputs)`` tensor or
    :func:`pack`'s copy of one (then without gradients)."""
    if not _supported(x, weight):
        return F.linear(x, weight, bias)
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or (bias is not None and bias.requires_grad)):
        return _Linear.apply(x, weight, bias)
    return _OP[0](x.contiguous(), weight, bias, "none", [], "")


def pack(weight: torch.Tensor, rows: int = 128) -> torch.Tensor:
    """``weight`` copied into oneDNN's layout for batches of about ``rows`` (:func:`linear` then skips that
    reordering at each call: about 10 µs of the 256 x 256 layer's 100 at 104 rows); the same results.
    The weight itself where oneDNN is not used. Valid until the weight next changes."""
    if _supported(weight, weight):
        try:
            return torch.ops.mkldnn._reorder_linear_weight(weight.detach(), rows)
        except Exception:  # noqa: BLE001 - no reordering op in this build: the plain copy gives the same results
            pass
    return weight.detach().clone()
