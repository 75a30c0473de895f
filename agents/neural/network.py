"""The policy-value network that ``train.py`` trains and :class:`~agents.neural.agent.NeuralAgent` plays.

One network plays every seat, bidding and card play alike: it reads the
observation vector of :func:`belote_env.observation.encode` (853 floats) and
gives 112 action logits and a value. Illegal actions get :data:`MASKED_LOGIT`,
so no choice made from the logits is ever illegal.

Two paths give the same results up to float rounding: :meth:`PolicyValueNet.forward` on dense batches (the
agents), and the training path on the observations' non-zero entries (:mod:`agents.neural.sparse`) with
oneDNN's products (:mod:`agents.neural.onednn`), used by collection and the PPO update.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import torch
from torch import nn

from agents.neural import onednn
from agents.neural.sparse import SparseObs, csr_rows_linear, row_nonzeros, sparse_input_linear
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS

#: Logit given to illegal actions: far below any real logit, still finite (no NaN in softmax).
MASKED_LOGIT = -1e9
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}


def layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    """A linear layer with CleanRL's orthogonal initialisation."""
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


def mlp(n_in: int, hidden_sizes, activation: str) -> nn.Sequential:
    """Linear + activation per hidden size (CleanRL's initialisation): the trunk of the policy and the critic."""
    layers, n = [], n_in
    for h in hidden_sizes:
        layers += [layer(n, h, math.sqrt(2)), ACTIVATIONS[activation]()]
        n = h
    return nn.Sequential(*layers)


class RowWeights(NamedTuple):
    """:meth:`PolicyValueNet.row_weights`: the first layer's ``(columns, outputs)`` table, the other trunk
    layers' weights in oneDNN's layout, and the heads' (policy and value stacked: weight in oneDNN's layout, bias)."""
    table: torch.Tensor
    hidden: list
    heads: tuple


class PolicyValueNet(nn.Module):
    """MLP trunk shared by a policy head (112 logits) and a value head (1).

    ``config()`` returns the plain dictionary that rebuilds the same
    architecture with ``PolicyValueNet(**config)``.
    """

    def __init__(self, obs_size: int = OBS_SIZE, hidden_sizes=(256, 256), num_actions: int = NUM_ACTIONS,
                 activation: str = "relu"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; accepted: {', '.join(ACTIVATIONS)}")
        hidden_sizes = [int(h) for h in hidden_sizes]
        if not hidden_sizes or min(hidden_sizes) < 1:
            raise ValueError(f"hidden_sizes must be a non-empty list of positive ints, got {hidden_sizes}")
        self.obs_size = int(obs_size)
        self.hidden_sizes = hidden_sizes
        self.num_actions = int(num_actions)
        self.activation = activation
        self.trunk = mlp(self.obs_size, hidden_sizes, activation)
        n = hidden_sizes[-1]
        self.policy = layer(n, self.num_actions, 0.01)
        self.value = layer(n, 1, 1.0)

    def config(self) -> dict:
        return {"obs_size": self.obs_size, "hidden_sizes": list(self.hidden_sizes),
                "num_actions": self.num_actions, "activation": self.activation}

    def training_path(self) -> _SparsePath:
        """How training reads rows with this network (:mod:`agents.neural.protocol`): its fast path."""
        return _SparsePath(self)

    def features(self, obs) -> torch.Tensor:
        """The trunk's output for a dense batch, or for a :class:`~agents.neural.sparse.SparseObs` batch, the
        training path: the first layer then runs on the non-zero entries only and the other products on
        oneDNN (:mod:`agents.neural.onednn`); the same result up to float rounding."""
        if isinstance(obs, SparseObs):
            return self._fast_trunk(sparse_input_linear(obs, self.trunk[0]))
        return self.trunk(obs)

    def forward(self, obs, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at :data:`MASKED_LOGIT`) and values, for a batch (a dense
        ``(batch, obs_size)`` tensor or a :class:`~agents.neural.sparse.SparseObs`, the training path)."""
        if isinstance(obs, SparseObs):
            return self._heads(self.features(obs), mask, fast=True)
        return self._heads(self.features(obs), mask)

    def _heads(self, h: torch.Tensor, mask: torch.Tensor, fast: bool = False,
               packed: tuple | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values; ``fast``: the training path's heads (:meth:`_fast_heads`, ``packed``)."""
        logits, value = self._fast_heads(h, packed) if fast else (self.policy(h), self.value(h))
        return torch.where(mask, logits, MASKED_LOGIT), value.squeeze(-1)

    def _fast_trunk(self, h: torch.Tensor, packed: list | None = None) -> torch.Tensor:
        """The trunk after its first layer, the products by :func:`agents.onednn.linear` (``packed``: the
        weights of :meth:`row_weights`, else the parameters)."""
        i = 0
        for m in itertools.islice(self.trunk, 1, None):  # not trunk[1:]: a new Sequential at every call (12 µs)
            if isinstance(m, nn.Linear):
                h = onednn.linear(h, m.weight if packed is None else packed[i], m.bias)
                i += 1
            else:
                h = m(h)
        return h

    def _fast_heads(self, h: torch.Tensor, packed: tuple | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy and value heads as one product of ``num_actions + 1`` outputs (oneDNN's product of one
        output is slow: 27 µs at 96 rows against a few for the extra column); ``packed``: that product's weight
        and bias from :meth:`row_weights`, else the parameters, stacked (with their gradients)."""
        weight, bias = self._stacked_heads() if packed is None else packed
        out = onednn.linear(h, weight, bias)
        return out[:, :self.num_actions], out[:, self.num_actions:]

    def _stacked_heads(self) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.cat([self.policy.weight, self.value.weight]), torch.cat([self.policy.bias, self.value.bias])

    def row_weights(self) -> RowWeights:
        """The weights as the training path reads them, for :meth:`forward_rows` and :meth:`value_rows`
        (``weights=``): the first layer's transposed (a ``(columns, outputs)`` table for ``embedding_bag``) and
        the others in oneDNN's layout (:func:`agents.onednn.pack`). Copies, valid until the weights next
        change (``agents.training.ppo.collect`` reads them at the start of a rollout, during which they do not): about 0.5 ms
        for the default network, once a rollout; packed, oneDNN's products skip a reordering of the weight at
        every call (about 10 µs each at collection's ~100 rows)."""
        packed = [onednn.pack(m.weight) for m in self.trunk[1:] if isinstance(m, nn.Linear)]
        weight, bias = self._stacked_heads()
        return RowWeights(self.trunk[0].weight.detach().t().contiguous(), packed,
                          (onednn.pack(weight), bias.detach()))

    def _nonzero_features(self, nonzeros, k: int, weights: RowWeights) -> torch.Tensor:
        """The trunk's output on the training path for a batch of ``k`` rows given by the non-zero entries of its
        first ones (the rows after them zero rows): the first layer on those entries
        (:func:`~agents.neural.sparse.csr_rows_linear`), the others on oneDNN, with ``weights`` (:meth:`row_weights`)."""
        return self._fast_trunk(csr_rows_linear(*nonzeros, k, weights.table, self.trunk[0].bias), weights.hidden)

    def forward_rows(self, obs: torch.Tensor, mask: torch.Tensor, n: int | None = None,
                     weights: RowWeights | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` on a dense CPU batch with every row's result independent of the batch it comes in,
        bit for bit, with one torch thread (``train.py``'s default): collection gives a table the same
        actions whether it is played with other tables or not (split among Ray actors: ``agents.counter_rng``).

        MKL's matrix products (``nn.Linear``) choose their kernels by the number of rows (with torch 2.13 a
        row's result takes one of three values for batches of 1, 2 to 15 and 16 or more rows, and rows past the
        last multiple of 4 are summed in another order). So the batch runs with :func:`padded_rows` rows, its results for the extra rows dropped: at most
        7 rows more (16 for batches under 16). ``n``: the batch is the first ``n`` rows of ``obs`` and ``mask``;
        when they hold ``padded_rows(n)`` rows, the rows after the batch pad it as they are (whatever they
        hold: a product's rows never mix), without a copy. Otherwise the batch is copied to a scratch tensor and
        padded with zeros. This holds with one torch
        thread; with several, how a product is split among them may depend on the batch size, so collection
        runs on one (:func:`one_thread`).

        ``weights``: :meth:`row_weights`, read once by the caller: the training path, :meth:`forward_nonzeros`
        on the rows' non-zero entries (``agents.training.ppo.collect`` calls it on the entries its rollout buffer keeps). The
        first layer sums, row by row, the table's rows of the observation's non-zero entries (about 40 of 853),
        and the other products run on oneDNN (:mod:`agents.neural.onednn`), as in the PPO update, so the
        log-probabilities and values collection records are those the update recomputes, bit for bit.
        The same results as without it up to float rounding, and as row-invariant (oneDNN's products are,
        padded or not). Without it (the tournament's ``NeuralAgent``), the dense layers."""
        n = obs.shape[0] if n is None else n
        if weights is not None:  # the training path: the rows' non-zero entries, as collection's
            return self.forward_nonzeros(row_nonzeros(obs[:n].numpy()), mask, n, weights)
        k = padded_rows(n)
        if obs.shape[0] < k or mask.shape[0] < k:
            obs, mask = self._scratch("_rows_obs", obs[:n]), self._scratch("_rows_mask", mask[:n])
        logits, value = self._heads(self.trunk(obs[:k]), mask[:k])
        return logits[:n], value[:n]

    def forward_nonzeros(self, nonzeros, mask: torch.Tensor, n: int,
                         weights: RowWeights) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward_rows` with ``weights`` (the training path) for ``n`` rows given by their non-zero entries
        ``(indptr from 0, int64 columns, float32 values)``, as the rollout buffer keeps them
        (``agents.training.collection.Rollout.add_observations``): ``agents.training.ppo.collect``'s forward pass, with no dense rows.
        The batch runs padded to :func:`padded_rows` rows, zero rows past the given ones, which a row's result
        does not depend on (tested against the dense rows, in one batch and one row at a time). ``mask``
        holds at least the ``n`` rows (with ``padded_rows(n)`` rows, used as they are; else copied and padded)."""
        k = padded_rows(n)
        if mask.shape[0] < k:
            mask = self._scratch("_rows_mask", mask[:n])
        logits, value = self._heads(self._nonzero_features(nonzeros, k, weights), mask[:k], True, weights.heads)
        return logits[:n], value[:n]

    def value_rows(self, obs: torch.Tensor, weights: RowWeights | None = None) -> torch.Tensor:
        """The value head's output for a dense batch, row-invariant as :meth:`forward_rows` (``weights``: the same)."""
        n = obs.shape[0]
        if weights is None:
            value = self.value(self.trunk(self._scratch("_rows_obs", obs)))
        else:
            value = self._fast_heads(self._nonzero_features(row_nonzeros(obs.numpy()), padded_rows(n), weights),
                                     weights.heads)[1]
        return value[:n].squeeze(-1)

    def _scratch(self, name: str, rows: torch.Tensor) -> torch.Tensor:
        """``rows`` copied to the start of the scratch tensor ``name`` (rebuilt when too small), zeros after them up to
        :func:`padded_rows`; that padded view."""
        n, k = rows.shape[0], padded_rows(rows.shape[0])
        s = self.__dict__.get(name)
        if s is None or s.shape[0] < k or s.shape[1:] != rows.shape[1:] or s.dtype != rows.dtype or s.device != rows.device:
            s = rows.new_zeros((k,) + tuple(rows.shape[1:]))
            self.__dict__[name] = s  # a plain attribute: not a parameter or buffer, not in the state_dict
        x = s[:k]
        x[:n] = rows
        x[n:] = 0
        return x


class _SparsePath:
    """The MLP's training path (:func:`agents.neural.protocol.training_path`): the first layer on the rows'
    non-zero entries and the other products on oneDNN, with the weights read once per rollout
    (:meth:`PolicyValueNet.row_weights`); the PPO update and the warm start get :class:`SparseObs` batches on
    the CPU. The same results as the dense layers up to float rounding, and row-invariant."""

    def __init__(self, net: PolicyValueNet):
        self.net = net
        self.weights = None

    def begin(self) -> None:
        self.weights = self.net.row_weights()

    def buffer_rows(self, buf, start: int, k: int, nonzeros) -> tuple[torch.Tensor, torch.Tensor]:
        mask = torch.from_numpy(buf.mask[start:start + padded_rows(k)])  # the buffer keeps the padding rows
        return self.net.forward_nonzeros(nonzeros, mask, k, self.weights)

    def values(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net.value_rows(obs, self.weights)

    def batch(self, buf, n: int, device: torch.device):
        if device.type == "cpu":
            return buf.sparse_observations(n)
        return torch.from_numpy(buf.observations(0, n)).to(device)  # the sparse first layer is the CPU's

    def dense_batch(self, obs):
        return SparseObs.from_dense(obs)


ROW_MULTIPLE, MIN_ROWS = 8, 16


def one_thread(fn):
    """``fn`` run with one torch thread, the caller's count restored afterwards: ``agents.training.ppo.collect`` (decorated)
    stays row-invariant (:meth:`PolicyValueNet.forward_rows`), so a run equals its Ray twin whatever
    ``torch_threads`` gives the PPO update and the evaluations."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        threads = torch.get_num_threads()
        if threads == 1:
            return fn(*args, **kwargs)
        torch.set_num_threads(1)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(threads)
    return wrapper


def padded_rows(n: int) -> int:
    """The rows :meth:`PolicyValueNet.forward_rows` runs for a batch of ``n``: a multiple of 8, at least 16."""
    return max(MIN_ROWS, -(-n // ROW_MULTIPLE) * ROW_MULTIPLE)
