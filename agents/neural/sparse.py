"""The network's first layer on sparse observations: the same ``y = x W^T + b`` as ``nn.Linear``, faster.

A Belote observation (``belote_env.observation``, 853 floats) has about 15 to 60 non-zero
entries. A dense first layer multiplies all 853 columns; here the non-zero entries of a batch are
gathered once (:func:`nonzeros`, a numba scan) and the layer becomes

- forward: a weighted sum of the weight columns of those entries (``torch.nn.functional.embedding_bag``);
- backward: the weight gradient ``G^T X`` accumulated over the non-zero entries only (a numba kernel),
  the bias gradient ``G.sum(0)``; no gradient flows to the observations (they are data).

The parameters stay those of the ``nn.Linear`` (same ``state_dict``), so checkpoints do not change.
Results equal the dense layer's up to float rounding (the sums run in another order).
``agents.training.ppo.ppo_update`` and behaviour cloning use it; the speed-up of the whole update is measured by
``python benchmarks/dev/bench_sparse.py`` (figures in docs/training.md). Collection's forward pass
(``agents.training.ppo.collect``, through ``PolicyValueNet.forward_nonzeros``) runs the same ``embedding_bag`` on the same
entries, as the rollout buffer keeps them, without gradients and without the padding (:func:`csr_rows_linear`;
:func:`sparse_rows_linear` on dense rows), and the other layers on
oneDNN as the update does (:mod:`agents.neural.onednn`), so the log-probabilities and values it records are
those the update recomputes, bit for bit with one thread.

:func:`to_csr` and :func:`from_csr` are the same non-zero entries without padding (row offsets, int16
columns): the form in which Ray rollout actors send observations (``agents.training.ray_rollouts.pack_rollout``).
"""

from __future__ import annotations

import numba
import numpy as np
import torch
import torch.nn.functional as F
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from belote_env.numba_cache import heal_damaged_files

heal_damaged_files()  # a damaged cache file of the kernels below is compiled again, not fatal


@numba.njit(cache=True, nogil=True)
def _count_nonzeros(x):
    n, d = x.shape
    most = 0
    for i in range(n):
        c = 0
        for j in range(d):
            if x[i, j] != 0.0:
                c += 1
        if c > most:
            most = c
    return most


SCAN_WORD = 64  # columns tested per bit mask by _scan_row


@intrinsic
def _trailing_zeros(typingctx, x):
    """The index of the lowest set bit of the uint64 ``x`` (LLVM's ``cttz``; ``x`` must not be 0)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.uint64(types.uint64), codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _scan_row(x, idx, val, c):
    """Append the non-zero entries of the row ``x`` (float32) to ``idx``/``val`` from position ``c``, in column
    order; return the position after them. Each word of SCAN_WORD columns gets a bit mask of its entries that
    are not 0.0 (-0.0 is 0.0; a NaN is kept), then the set bits are visited lowest first: no branch per
    column."""
    d = x.shape[0]
    j0 = 0
    while j0 < d:
        m = np.uint64(0)
        for t in range(min(SCAN_WORD, d - j0)):
            m |= np.uint64(x[j0 + t] != 0.0) << np.uint64(t)
        while m:
            j = j0 + np.int64(_trailing_zeros(m))
            idx[c] = j
            val[c] = x[j]
            c += 1
            m &= m - np.uint64(1)
        j0 += SCAN_WORD
    return c


@numba.njit(cache=True, nogil=True)
def _fill_nonzeros(x, idx, val):
    for i in range(x.shape[0]):
        _scan_row(x[i], idx[i], val[i], 0)


@numba.njit(cache=True, nogil=True, fastmath=True)
def _weight_grad(idx, val, g, out):
    """out[c, :] += val[i, k] * g[i, :] for every entry (i, k) with idx[i, k] == c (padding has val 0)."""
    n, width = idx.shape
    h = g.shape[1]
    for i in range(n):
        for k in range(width):
            v = val[i, k]
            if v != 0.0:
                c = idx[i, k]
                for m in range(h):
                    out[c, m] += v * g[i, m]


def nonzeros(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and values of the non-zero entries of each row of ``x`` (float32, 2-D), padded to
    the longest row with index 0 and value 0: arrays of shape ``(rows, width)``, width at least 1."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    width = max(1, int(_count_nonzeros(x)))
    idx = np.zeros((x.shape[0], width), dtype=np.int64)
    val = np.zeros((x.shape[0], width), dtype=np.float32)
    _fill_nonzeros(x, idx, val)
    return idx, val


@numba.njit(cache=True, nogil=True)
def append_csr(x, rows, ptr, start, idx, val):
    """The non-zero entries of rows ``rows`` of ``x`` as the CSR rows ``start, start + 1, ...`` of ``(ptr, idx, val)``
    (``ptr[start]`` set: where they begin)."""
    c = ptr[start]
    for i in range(len(rows)):
        r = rows[i]
        c = _scan_row(x[r], idx, val, c)
        ptr[start + i + 1] = c


@numba.njit(cache=True, nogil=True)
def place_csr(indptr, idx, val, order, ptr, start, out_idx, out_val):
    """Row ``i`` of the CSR ``(indptr, idx, val)`` copied to row ``start + order[i]`` of ``(ptr, out_idx, out_val)``,
    whose offsets are set."""
    for i in range(len(order)):
        a = indptr[i]
        d = ptr[start + order[i]]
        for k in range(indptr[i + 1] - a):
            out_idx[d + k] = idx[a + k]
            out_val[d + k] = val[a + k]


@numba.njit(cache=True, nogil=True)
def _csr_to_padded(indptr, idx, val, out_idx, out_val):
    for i in range(out_idx.shape[0]):
        a = indptr[i]
        for k in range(indptr[i + 1] - a):
            out_idx[i, k] = idx[a + k]
            out_val[i, k] = val[a + k]


@numba.njit(cache=True, nogil=True)
def _csr_scatter(indptr, idx, val, rows, out):
    for i in range(len(rows)):
        r = rows[i]
        out[r, :] = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            out[r, idx[k]] = val[k]


def to_csr(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-zero entries of the rows of ``x`` (float32, 2-D, at most 32,767 columns), row after row:
    ``(indptr, idx, val)`` with row ``i``'s entries at ``indptr[i]:indptr[i + 1]`` (int32 offsets, int16
    columns, float32 values); the compact form in which Ray rollout actors send observations."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.shape[1] > np.iinfo(np.int16).max:
        raise ValueError(f"to_csr stores columns as int16: {x.shape[1]} columns is too many")
    nnz = int(np.count_nonzero(x))
    indptr = np.empty(x.shape[0] + 1, dtype=np.int32)
    idx = np.empty(nnz, dtype=np.int16)
    val = np.empty(nnz, dtype=np.float32)
    indptr[0] = 0
    append_csr(x, np.arange(x.shape[0]), indptr, 0, idx, val)
    return indptr, idx, val


def from_csr(indptr: np.ndarray, idx: np.ndarray, val: np.ndarray, out: np.ndarray, rows=None) -> np.ndarray:
    """Write the rows :func:`to_csr` gave into ``out`` (float32, ``(rows, columns)``; the rows are zeroed
    first); with ``rows``, row ``i`` goes to ``out[rows[i]]`` (the other rows are left as they are)."""
    n = len(indptr) - 1
    if rows is None:
        if n != out.shape[0]:
            raise ValueError(f"from_csr: {n} rows for an output of {out.shape[0]}")
        rows = np.arange(n)
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) != n or (n and (rows.min() < 0 or rows.max() >= out.shape[0])):
        raise ValueError(f"from_csr: {n} rows, but {len(rows)} destination rows in 0..{out.shape[0] - 1} expected")
    _csr_scatter(indptr, idx, val, rows, out)
    return out


class SparseObs:
    """A batch of observations as the column indices and values of their non-zero entries
    (:func:`nonzeros`); :class:`~agents.neural.PolicyValueNet` accepts it in place of the dense batch.
    ``index_select(0, rows)`` selects rows, as on a tensor (minibatches of the PPO update)."""

    __slots__ = ("idx", "val")

    def __init__(self, idx: torch.Tensor, val: torch.Tensor):
        self.idx, self.val = idx, val

    @classmethod
    def from_dense(cls, x) -> SparseObs:
        """From a 2-D float batch (numpy array or CPU tensor)."""
        if isinstance(x, torch.Tensor):
            x = x.detach().numpy()
        idx, val = nonzeros(x)
        return cls(torch.from_numpy(idx), torch.from_numpy(val))

    @classmethod
    def from_csr(cls, indptr: np.ndarray, idx: np.ndarray, val: np.ndarray) -> SparseObs:
        """From the non-zero entries of the rows (row ``i``'s at ``indptr[i]:indptr[i + 1]`` of ``idx`` and
        ``val``, as :func:`to_csr` gives them): the arrays :meth:`from_dense` gives for those rows."""
        indptr = np.asarray(indptr, dtype=np.int64)
        n = len(indptr) - 1
        width = max(1, int(np.diff(indptr).max())) if n else 1
        out_idx = np.zeros((n, width), dtype=np.int64)
        out_val = np.zeros((n, width), dtype=np.float32)
        _csr_to_padded(indptr, np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=np.float32), out_idx, out_val)
        return cls(torch.from_numpy(out_idx), torch.from_numpy(out_val))

    def with_columns(self, extra: torch.Tensor, offset: int) -> SparseObs:
        """This batch with the dense ``extra`` (same rows) appended as columns ``offset``, ``offset + 1``, ..."""
        idx, val = nonzeros(extra.detach().numpy() if isinstance(extra, torch.Tensor) else extra)
        return SparseObs(torch.cat([self.idx, torch.from_numpy(idx) + offset], 1),
                         torch.cat([self.val, torch.from_numpy(val)], 1))

    def index_select(self, dim: int, rows: torch.Tensor) -> SparseObs:
        if dim != 0:
            raise ValueError("SparseObs selects rows only (dim 0)")
        return SparseObs(self.idx.index_select(0, rows), self.val.index_select(0, rows))

    def __len__(self) -> int:
        return self.idx.shape[0]


class _SparseInputLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, idx, val, weight, bias):
        ctx.save_for_backward(idx, val)
        ctx.weight_shape = weight.shape
        # embedding_bag reads a (columns, outputs) table: the transposed weight (a copy: 0.25 ms for 853 x 256,
        # not cached, since fused optimizers update weights in place without bumping their version counter)
        out = F.embedding_bag(idx, weight.t().contiguous(), per_sample_weights=val, mode="sum")
        return out + bias

    @staticmethod
    def backward(ctx, grad_out):
        idx, val = ctx.saved_tensors
        grad_w = grad_b = None
        if ctx.needs_input_grad[2]:
            g = np.ascontiguousarray(grad_out.detach().numpy(), dtype=np.float32)
            gt = np.zeros((ctx.weight_shape[1], ctx.weight_shape[0]), dtype=np.float32)
            _weight_grad(idx.numpy(), val.numpy(), g, gt)
            grad_w = torch.from_numpy(gt).t()
        if ctx.needs_input_grad[3]:
            grad_b = grad_out.sum(0)
        return None, None, grad_w, grad_b


def sparse_input_linear(obs: SparseObs, layer: torch.nn.Linear) -> torch.Tensor:
    """``layer(x)`` for the dense batch ``x`` that ``obs`` holds (CPU float32 layer)."""
    if layer.weight.device.type != "cpu" or layer.weight.dtype != torch.float32:
        raise ValueError("SparseObs batches run on a CPU float32 network; pass the dense batch elsewhere")
    return _SparseInputLinear.apply(obs.idx, obs.val, layer.weight, layer.bias)


def row_nonzeros(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-zero entries of the rows of ``x`` (float32, 2-D), row after row, in the form
    :func:`csr_rows_linear` reads: int64 offsets from 0, int64 columns, float32 values (one scan)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    n, d = x.shape
    indptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.empty(n * d, dtype=np.int64)  # room for every entry; only the non-zero ones are written
    val = np.empty(n * d, dtype=np.float32)
    append_csr(x, np.arange(n), indptr, 0, idx, val)
    c = int(indptr[n])
    return indptr, idx[:c], val[:c]


def sparse_rows_linear(x: torch.Tensor, table: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ table + bias`` for a dense CPU float32 batch ``x`` and a (columns, outputs) ``table`` (a first
    layer's weight transposed, ``PolicyValueNet.row_weights().table``), without gradients: each row sums, in column
    order, the table's rows of its non-zero entries (:func:`row_nonzeros`, then :func:`csr_rows_linear`). A row's
    result does not depend on the other rows of the batch, and equals :func:`sparse_input_linear`'s, whose padding
    entries add exact zeros (tested)."""
    return csr_rows_linear(*row_nonzeros(x.numpy()), x.shape[0], table, bias)


def csr_rows_linear(indptr: np.ndarray, idx: np.ndarray, val: np.ndarray, rows: int, table: torch.Tensor,
                    bias: torch.Tensor) -> torch.Tensor:
    """:func:`sparse_rows_linear` for a batch of ``rows`` rows given by the non-zero entries of its first ones, row
    after row (``indptr`` from 0, int64 columns ``idx``, float32 ``val``: ``agents.training.ppo.collect``'s rows, as the rollout
    buffer keeps them); the rows past them count as zero rows (their outputs are ``bias``: the padding of
    ``PolicyValueNet.forward_nonzeros``, whose results are dropped). ``embedding_bag`` on the rows' entries one
    after the other, with offsets: no padding to the widest row."""
    m, c = len(indptr) - 1, len(idx)
    if m > rows or int(indptr[0]) != 0 or int(indptr[m]) != c or len(val) != c:
        raise ValueError(f"csr_rows_linear: the entries of {m} rows ({c} entries, offsets from {int(indptr[0])}) "
                         f"for a batch of {rows} rows")
    offsets = np.full(rows, c, dtype=np.int64)  # rows past the given ones: empty bags
    offsets[:m] = indptr[:m]
    return F.embedding_bag(torch.from_numpy(idx), table, torch.from_numpy(offsets),
                           per_sample_weights=torch.from_numpy(val), mode="sum") + bias
